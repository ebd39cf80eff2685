/** `sluice.extauth.v1.OidcAuthorizationCode` (contract/proto/sluice/extauth/v1/oidc.proto). */
import type { OidcClaimHeaderIR, OidcIR } from '../../ir/oidc.js';
import type { Json } from '../output.js';

const nonEmpty = (m: Record<string, string>) => (Object.keys(m).length ? m : undefined);
const claims = (list: OidcClaimHeaderIR[]) =>
  list.length
    ? list.map((c) => ({ claim: c.claim, header: c.header, ...(c.append ? { append: true } : {}) }))
    : undefined;

/** Without the fields proto3 leaves out (undefined, false, empty). */
function compact(o: Record<string, unknown>): Json {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined && v !== false && v !== '' && !(Array.isArray(v) && !v.length)),
  ) as Json;
}

export function compileOidc(o: OidcIR): Json {
  const s = o.session;
  const d = o.discoveryOverride;
  const override = compact({
    auth_endpoint: d.authEndpoint,
    token_endpoint: d.tokenEndpoint,
    jwks_uri: d.jwksUri,
    id_token_algs: d.idTokenAlgs,
    auth_methods: d.authMethods,
  });
  return compact({
    client_id: o.clientId,
    client_secret: o.clientSecret,
    issuer_url: o.issuerUrl,
    auth_endpoint_query_params: nonEmpty(o.authEndpointQueryParams),
    token_endpoint_params: nonEmpty(o.tokenEndpointParams),
    app_url: o.appUrl,
    callback_path: o.callbackPath,
    logout_path: o.logoutPath,
    after_logout_url: o.afterLogoutUrl,
    scopes: o.scopes,
    session: compact({
      fail_on_fetch_failure: s.failOnFetchFailure,
      cookie: compact({
        name: s.cookie.name,
        max_age_seconds: s.cookie.maxAgeSeconds || undefined,
        secure: s.cookie.secure,
        http_only: s.cookie.httpOnly,
        path: s.cookie.path,
        domain: s.cookie.domain,
        same_site: s.cookie.sameSite,
      }),
      cipher_keys: s.cipherKeys,
      allow_refreshing: s.allowRefreshing,
      pre_expiry_buffer_ms: s.preExpiryBufferMs || undefined,
      target_domain: s.targetDomain,
      redis:
        s.redis && compact({ address: s.redis.address, db: s.redis.db || undefined, key_prefix: s.redis.keyPrefix }),
    }),
    headers: nonEmptyObject(
      compact({
        id_token_header: o.headers.idTokenHeader,
        access_token_header: o.headers.accessTokenHeader,
        use_bearer_schema: o.headers.useBearerSchema,
      }),
    ),
    discovery_override: nonEmptyObject(override),
    discovery_poll_interval_ms: o.discoveryPollIntervalMs,
    identity_claims_to_headers: claims(o.identityClaimsToHeaders),
    access_claims_to_headers: claims(o.accessClaimsToHeaders),
  });
}

const nonEmptyObject = (j: Json) => (Object.keys(j).length ? j : undefined);
