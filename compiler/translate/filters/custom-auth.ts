/**
 * Gloo's customAuth -> one envoy.filters.http.ext_authz filter per team
 * server the Settings resource names (`extauth`, `namedExtauth.<name>`),
 * placed after sluice-extauth's, calling the server's Upstream cluster over
 * gRPC (or plain HTTP with httpService) with the Settings' timeout, failure
 * mode and status on error. A
 * virtual host or route whose customAuth names the server carries an
 * ExtAuthzPerRoute with its context_extensions; every other one turns the
 * filter off, so each request is checked by at most the server it names.
 */
import type { CustomAuthIR, CustomAuthServerIR, RouteIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';
import { EXT_AUTHZ_PER_ROUTE_TYPE, EXT_AUTHZ_TYPE, EXTAUTH_FILTER_NAME } from './extauth.js';

/** The filter of one server: its own name, so each virtual host and route can turn each on or off. */
export const customAuthFilterName = (server: string) => `${EXTAUTH_FILTER_NAME}.custom${server ? `.${server}` : ''}`;

const DISABLED = { '@type': EXT_AUTHZ_PER_ROUTE_TYPE, disabled: true };

const routeCustomAuth = (route: RouteIR): CustomAuthIR | undefined => {
  const e = route.options?.extauth;
  return e && 'customAuth' in e ? e.customAuth : undefined;
};

/** Header names, lower case as Envoy holds them. */
const names = (list: string[]) => list.map((exact) => ({ exact }));
const listMatcher = (patterns: Json[]) => (patterns.length ? { patterns } : undefined);

/** Where the check goes: gRPC's Check, or a plain HTTP request to the same cluster. */
function service(s: CustomAuthServerIR): Json {
  const h = s.http;
  if (!h)
    return {
      grpc_service: {
        envoy_grpc: { cluster_name: s.cluster, ...(s.authority !== undefined ? { authority: s.authority } : {}) },
        timeout: s.timeout,
      },
    };
  const response = Object.fromEntries(
    (
      [
        ['allowed_upstream_headers', h.allowedUpstreamHeaders],
        ['allowed_client_headers', h.allowedClientHeaders],
        ['allowed_upstream_headers_to_append', h.allowedUpstreamHeadersToAppend],
      ] as const
    )
      .filter(([, list]) => list.length > 0)
      .map(([field, list]) => [field, { patterns: names(list) }]),
  );
  const headersToAdd = Object.entries(h.headersToAdd).map(([key, value]) => ({ key, value }));
  const allowed = listMatcher([
    ...names(h.allowedHeaders),
    ...h.allowedHeadersRegex.map((regex) => ({ safe_regex: { regex } })),
  ]);
  return {
    http_service: {
      // Envoy requires a URI; the filter sends to the cluster and never reads it.
      server_uri: { uri: 'http://ext-authz.invalid/', cluster: s.cluster, timeout: s.timeout },
      ...(h.pathPrefix ? { path_prefix: h.pathPrefix } : {}),
      ...(headersToAdd.length ? { authorization_request: { headers_to_add: headersToAdd } } : {}),
      ...(Object.keys(response).length ? { authorization_response: response } : {}),
    },
    ...(allowed ? { allowed_headers: allowed } : {}),
  };
}

function filter(s: CustomAuthServerIR): Json {
  return {
    name: customAuthFilterName(s.name),
    typed_config: {
      '@type': EXT_AUTHZ_TYPE,
      ...service(s),
      transport_api_version: 'V3',
      failure_mode_allow: s.failureModeAllow,
      ...(s.statusOnError !== undefined ? { status_on_error: { code: s.statusOnError } } : {}),
      ...(s.clearRouteCache ? { clear_route_cache: true } : {}),
      ...(s.statPrefix !== undefined ? { stat_prefix: s.statPrefix } : {}),
      ...(s.requestBody
        ? {
            with_request_body: {
              max_request_bytes: s.requestBody.maxRequestBytes,
              ...(s.requestBody.allowPartialMessage ? { allow_partial_message: true } : {}),
              ...(s.requestBody.packAsBytes ? { pack_as_bytes: true } : {}),
            },
          }
        : {}),
    },
  };
}

const checkSettings = (c: CustomAuthIR): Json => ({
  '@type': EXT_AUTHZ_PER_ROUTE_TYPE,
  check_settings: Object.keys(c.contextExtensions).length ? { context_extensions: c.contextExtensions } : {},
});

/** The concern of one server. */
function customAuthConcern(server: CustomAuthServerIR): HttpFilterConcern & { usageKey: string } {
  const json = filter(server);
  const mine = (c: CustomAuthIR | undefined) => c?.server.name === server.name;
  return {
    filterName: json.name as string,
    // The filter's settings are part of what the listener is made from.
    usageKey: JSON.stringify(json),
    usedBy: (vh) => mine(vh.customAuth) || vh.routes.some((r) => mine(routeCustomAuth(r))),
    perVirtualHost: (vh) => (mine(vh.customAuth) ? checkSettings(vh.customAuth!) : DISABLED),
    perRoute: (route) => {
      const e = route.options?.extauth;
      if (!e) return undefined;
      const c = routeCustomAuth(route);
      return c && mine(c) ? checkSettings(c) : DISABLED;
    },
    httpFilter: () => json,
  };
}

/** The servers the virtual hosts' customAuth names, each once, by name. */
export function customAuthConcerns(virtualHosts: readonly VirtualHostIR[]): HttpFilterConcern[] {
  const servers = new Map<string, CustomAuthServerIR>();
  for (const vh of virtualHosts) {
    if (vh.customAuth) servers.set(vh.customAuth.server.name, vh.customAuth.server);
    for (const r of vh.routes) {
      const c = routeCustomAuth(r);
      if (c) servers.set(c.server.name, c.server);
    }
  }
  return [...servers.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(customAuthConcern);
}
