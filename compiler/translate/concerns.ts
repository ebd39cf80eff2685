/** The HTTP filter concerns in chain order (fault -> cors -> local_ratelimit -> jwt_authn -> rbac -> ext_authz -> csrf, Gloo's order; claim headers are stripped just before jwt_authn), then the router. */
import type { HttpFilterConcern } from './concern.js';
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
