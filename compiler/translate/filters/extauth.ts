/**
 * `options.extauth.configRef` -> envoy.filters.http.ext_authz,
 * calling the sluice-extauth sidecar over gRPC (envoy.service.auth.v3).
 *
 * The filter itself is on for every request; each virtual host that refers to
 * an AuthConfig carries an ExtAuthzPerRoute with
 * `context_extensions.config_ref: <namespace>.<name>` (how the sidecar picks
 * the AuthConfig), and every other virtual host one with `disabled: true`.
 * Fail closed: failure_mode_allow false, and a sidecar that cannot be reached
 * or does not answer in time gives 503 (status_on_error) instead of Envoy's
 * default 403, so clients can tell an outage from a denial.
 */
import { JWT_AUTHN_NAMESPACE, USER_ID_HEADER } from '../../../contract/extauth.js';
import { SIDECAR_CLUSTERS, type ExtauthRefIR } from '../../ir/model.js';
import { sidecarCluster } from '../clusters.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const EXTAUTH_FILTER_NAME = 'envoy.filters.http.ext_authz';
export const EXTAUTH_CLUSTER = SIDECAR_CLUSTERS.extauth;
/** Room for a bind, a service-account bind and a search on a slow directory. */
export const EXTAUTH_TIMEOUT = '5s';

const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.';
// Made once: a type URL built per virtual host is a string of its own in each.
export const EXT_AUTHZ_TYPE = `${TYPE}ExtAuthz`;
export const EXT_AUTHZ_PER_ROUTE_TYPE = `${TYPE}ExtAuthzPerRoute`;
/** passThroughBody: the body Envoy buffers for the check (its first 4 KiB; larger bodies are sent cut, not refused). */
const REQUEST_BODY = { max_request_bytes: 4096, allow_partial_message: true };

/** The per-route settings that send the check to the AuthConfig (and the body when it passes it through). */
const checkSettings = (e: ExtauthRefIR): Json => ({
  '@type': EXT_AUTHZ_PER_ROUTE_TYPE,
  check_settings: {
    context_extensions: { config_ref: e.configRef },
    ...(e.withRequestBody ? { with_request_body: REQUEST_BODY } : {}),
  },
});

function extauthFilter(extra: Json = {}): Json {
  return {
    name: EXTAUTH_FILTER_NAME,
    typed_config: {
      '@type': EXT_AUTHZ_TYPE,
      grpc_service: { envoy_grpc: { cluster_name: EXTAUTH_CLUSTER }, timeout: EXTAUTH_TIMEOUT },
      transport_api_version: 'V3',
      failure_mode_allow: false,
      status_on_error: { code: 'ServiceUnavailable' },
      // A token jwt_authn verified reaches sluice-extauth, where an AuthConfig's `jwt` config reads it.
      metadata_context_namespaces: [JWT_AUTHN_NAMESPACE],
      ...extra,
    },
  };
}

export const extauthConcern: HttpFilterConcern = {
  filterName: EXTAUTH_FILTER_NAME,
  usedBy: (vh) => vh.extauth !== undefined,
  // Only the sidecar may vouch for a user: elsewhere a client-sent x-user-id is dropped.
  // (Not on extauth hosts: Envoy applies route header removals after ext_authz added it.)
  requestHeadersToRemove: (vh) => (vh.extauth ? [] : [USER_ID_HEADER]),
  perVirtualHost: (vh) =>
    vh.extauth ? checkSettings(vh.extauth) : { '@type': EXT_AUTHZ_PER_ROUTE_TYPE, disabled: true },
  // Gloo's route option extauth: disabled, or another AuthConfig (the sidecar reads config_ref) than the host's.
  // A route's customAuth goes to its own server's filter (./custom-auth.ts): this one stays out of it.
  perRoute: (route) => {
    const e = route.options?.extauth;
    if (!e) return undefined;
    return 'configRef' in e ? checkSettings(e) : { '@type': EXT_AUTHZ_PER_ROUTE_TYPE, disabled: true };
  },
  httpFilter: () => extauthFilter(),
  // Enabled for no request: without a host's per-route config it would ask the sidecar about every request.
  idleFilter: () => extauthFilter({ filter_enabled: { default_value: { numerator: 0, denominator: 'HUNDRED' } } }),
  sidecarCluster: (options) => sidecarCluster(EXTAUTH_CLUSTER, options.extauthAddress, true),
};
