/**
 * Gloo's claimsToHeaders, the part jwt_authn does not do: a client-sent copy
 * of a claim header must never reach the upstream. jwt_authn removes a
 * provider's claim headers only when that provider's verifier runs
 * (ProviderVerifierImpl::verify -> Extractor::sanitizeHeaders), so a copy
 * survives on a route with jwt disabled and, with several providers, when
 * the first one in requires_any accepts the token before the next one runs.
 * Route and virtual-host request_headers_to_remove run in the router, after
 * jwt_authn, and would remove the claim too. So an
 * envoy.filters.http.header_mutation filter ahead of jwt_authn removes every
 * claim header of the virtual host from the request, on every route of it.
 */
import type { VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const HEADER_MUTATION_FILTER_NAME = 'envoy.filters.http.header_mutation';

const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.';
// Made once: a type URL built per virtual host is a string of its own in each.
const HEADER_MUTATION_TYPE = `${TYPE}HeaderMutation`;
const HEADER_MUTATION_PER_ROUTE_TYPE = `${TYPE}HeaderMutationPerRoute`;

/** Every claim header of the virtual host's providers, lower-cased, sorted, once each. */
export function claimHeaderNames(vh: VirtualHostIR): string[] {
  const names = (vh.jwt?.providers ?? []).flatMap((p) => (p.claimsToHeaders ?? []).map((c) => c.header.toLowerCase()));
  return [...new Set(names)].sort();
}

export const claimHeadersConcern: HttpFilterConcern = {
  filterName: HEADER_MUTATION_FILTER_NAME,
  // Asked once of each host while its IR object is kept: no list is built for it.
  usedBy: (vh) => vh.jwt?.providers.some((p) => (p.claimsToHeaders?.length ?? 0) > 0) ?? false,
  // The filter's own config changes nothing: only virtual hosts with claim headers remove them.
  httpFilter: () => ({ name: HEADER_MUTATION_FILTER_NAME, typed_config: { '@type': HEADER_MUTATION_TYPE } }),
  // Without a host's mutations it changes nothing.
  idleFilter: () => ({ name: HEADER_MUTATION_FILTER_NAME, typed_config: { '@type': HEADER_MUTATION_TYPE } }),
  perVirtualHost: (vh) => {
    const names = claimHeaderNames(vh);
    if (names.length === 0) return undefined;
    return {
      '@type': HEADER_MUTATION_PER_ROUTE_TYPE,
      mutations: { request_mutations: names.map((remove) => ({ remove })) },
    };
  },
};
