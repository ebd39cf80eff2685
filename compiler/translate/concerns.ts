/** The HTTP filter concerns in chain order (fault -> cors -> local_ratelimit -> jwt_authn -> rbac -> ext_authz -> csrf, Gloo's order; claim headers are stripped just before jwt_authn), then the router. */
import type { VirtualHostIR } from '../ir/model.js';
import type { HttpFilterConcern } from './concern.js';
import { customAuthConcerns } from './filters/custom-auth.js';
import { claimHeadersConcern } from './filters/claim-headers.js';
import { corsConcern } from './filters/cors.js';
import { csrfConcern } from './filters/csrf.js';
import { faultConcern } from './filters/fault.js';
import { extauthConcern } from './filters/extauth.js';
import { graphqlConcern } from './filters/graphql.js';
import { jwtConcern } from './filters/jwt.js';
import { localRateLimitConcern } from './filters/local-ratelimit.js';
import { rbacConcern } from './filters/rbac.js';

export const CONCERNS: readonly HttpFilterConcern[] = [
  faultConcern,
  corsConcern,
  localRateLimitConcern,
  claimHeadersConcern,
  jwtConcern,
  rbacConcern,
  extauthConcern,
  csrfConcern,
  graphqlConcern,
];

/** The concerns of a model: its customAuth servers' filters (./filters/custom-auth.ts) right after sluice-extauth's. */
export function concernsFor(virtualHosts: readonly VirtualHostIR[]): readonly HttpFilterConcern[] {
  const custom = customAuthConcerns(virtualHosts);
  if (!custom.length) return CONCERNS;
  const at = CONCERNS.indexOf(extauthConcern) + 1;
  return [...CONCERNS.slice(0, at), ...custom, ...CONCERNS.slice(at)];
}
