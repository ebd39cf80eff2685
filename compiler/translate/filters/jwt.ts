/**
 * `options.jwt` -> envoy.filters.http.jwt_authn.
 *
 * One filter holds the providers of every virtual host; each virtual host
 * names its requirement in `requirement_map` and selects it with a
 * PerRouteConfig on the virtual host, or disables the filter. No `rules` are
 * emitted: without a per-route config Envoy applies none (filter.cc,
 * findVerifier), so verification happens only where a virtual host asks.
 */
import { JWT_FILTER_NAME } from '../../ir/jwt.js';
import type { JwtProviderIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export { JWT_FILTER_NAME };

const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.';
// Made once: a type URL built per virtual host is a string of its own in each.
const JWT_AUTHENTICATION_TYPE = `${TYPE}JwtAuthentication`;
const PER_ROUTE_CONFIG_TYPE = `${TYPE}PerRouteConfig`;

/** Time allowed for one fetch of a remote key set. */
export const REMOTE_JWKS_TIMEOUT = '5s';
/** How long a fetched key set is used before it is fetched again (Gloo's default: 5 minutes). */
export const REMOTE_JWKS_CACHE_DURATION = '300s';

function jwksSource(provider: JwtProviderIR): Json {
  const { jwks } = provider;
  if (jwks.kind === 'local') return { local_jwks: { inline_string: jwks.keys } };
  return {
    remote_jwks: {
      // Envoy sends the fetch to `cluster`; the URL gives the Host header and path.
      http_uri: { uri: jwks.url, cluster: jwks.cluster, timeout: REMOTE_JWKS_TIMEOUT },
      cache_duration: provider.cacheDuration ?? REMOTE_JWKS_CACHE_DURATION,
      // Fetched in the background when the listener starts and again on expiry, so no request waits for it
      // (fast_listener: the listener does not wait for the first fetch).
      async_fetch: provider.fastListener ? { fast_listener: true } : {},
    },
  };
}

export function jwtProvider(p: JwtProviderIR): Json {
  return {
    issuer: p.issuer,
    ...(p.audiences ? { audiences: p.audiences } : {}),
    ...(p.clockSkewSeconds ? { clock_skew_seconds: p.clockSkewSeconds } : {}),
    ...jwksSource(p),
    // Tokens come in `Authorization: Bearer <token>` or `?access_token=<token>`, unless the provider says where.
    from_headers: p.tokenSource
      ? p.tokenSource.headers.map((h) => ({ name: h.name, ...(h.prefix ? { value_prefix: h.prefix } : {}) }))
      : [{ name: 'Authorization', value_prefix: 'Bearer ' }],
    from_params: p.tokenSource ? p.tokenSource.queryParams : ['access_token'],
    ...(p.keepToken ? { forward: true } : {}),
    // Envoy removes a client-sent copy of each header first (Extractor::sanitizeHeaders), then adds the claim if the token has it.
    // The route was chosen before that (by the client's copy, if any): clear_route_cache has it chosen again with the claims.
    ...(p.claimsToHeaders
      ? {
          claim_to_headers: p.claimsToHeaders.map((c) => ({ header_name: c.header, claim_name: c.claim })),
          clear_route_cache: true,
        }
      : {}),
    // Under the provider's own name, so that an RBAC principal can ask for a token of one provider (Gloo's jwtPrincipal.provider).
    payload_in_metadata: p.payloadKey,
    ...(p.failedStatusInMetadata ? { failed_status_in_metadata: p.failedStatusInMetadata } : {}),
  };
}

/**
 * The requirement_map entry of a virtual host with providers. Gloo's
 * validationPolicy is one more alternative of requires_any: Envoy tries the
 * providers, then turns the combined failure into success, for
 * allow_missing only when no provider found a token (JwtMissed; a token of
 * an unknown issuer or an invalid one still gets 401), for
 * allow_missing_or_failed always (verifier.cc, AnyVerifierImpl).
 */
export function jwtRequirement(vh: VirtualHostIR): Json | undefined {
  const names = (vh.jwt?.providers ?? []).map((p) => p.name).sort();
  if (names.length === 0) return undefined;
  const alternatives: Json[] = names.map((name) => ({ provider_name: name }));
  if (vh.jwt?.allowMissing === 'ALLOW_MISSING') alternatives.push({ allow_missing: {} });
  if (vh.jwt?.allowMissing === 'ALLOW_MISSING_OR_FAILED') alternatives.push({ allow_missing_or_failed: {} });
  // requires_any needs at least two entries (validate rule), hence the single-provider form.
  return alternatives.length === 1 ? alternatives[0] : { requires_any: { requirements: alternatives } };
}

/**
 * The filter's config from each virtual host's providers (as jwtProvider
 * makes them) and requirement; translate keeps those per virtual host.
 */
export function jwtFilter(
  hosts: ReadonlyArray<{ name: string; providers: ReadonlyArray<readonly [string, Json]>; requirement?: Json }>,
): Json {
  const providers: (readonly [string, Json])[] = [];
  const requirementMap: Record<string, Json> = {};
  for (const h of hosts) {
    if (!h.requirement) continue;
    providers.push(...h.providers);
    requirementMap[h.name] = h.requirement;
  }
  return {
    name: JWT_FILTER_NAME,
    typed_config: {
      '@type': JWT_AUTHENTICATION_TYPE,
      providers: Object.fromEntries(providers.sort(([a], [b]) => a.localeCompare(b))),
      requirement_map: requirementMap,
    },
  };
}

export const jwtConcern: HttpFilterConcern = {
  filterName: JWT_FILTER_NAME,
  usedBy: (vh) => (vh.jwt?.providers.length ?? 0) > 0,
  perVirtualHost: (vh) =>
    vh.jwt && vh.jwt.providers.length > 0
      ? { '@type': PER_ROUTE_CONFIG_TYPE, requirement_name: vh.name }
      : { '@type': PER_ROUTE_CONFIG_TYPE, disabled: true },
  // Gloo's route option jwt.disable: no token is asked for on that route.
  perRoute: (route) => (route.options?.jwtDisabled ? { '@type': PER_ROUTE_CONFIG_TYPE, disabled: true } : undefined),
  // Its filter holds every host's providers: translate builds it with jwtFilter from the parts it keeps per host.
  // No providers and no rules: no token is asked for.
  idleFilter: () => ({ name: JWT_FILTER_NAME, typed_config: { '@type': JWT_AUTHENTICATION_TYPE } }),
};
