/** The HTTP filter concerns in chain order (fault -> cors -> local_ratelimit -> [early ratelimit] -> jwt_authn -> rbac -> ext_authz -> [ratelimit] -> csrf, Gloo's order, then aws_lambda and its function errors' lua; claim headers are stripped just before jwt_authn), then the router. */
import type { VirtualHostIR } from '../ir/model.js';
import type { RateLimitServerIR } from '../ir/ratelimit.js';
import type { HttpFilterConcern } from './concern.js';
import { customAuthConcerns } from './filters/custom-auth.js';
import { claimHeadersConcern } from './filters/claim-headers.js';
import { corsConcern } from './filters/cors.js';
import { csrfConcern } from './filters/csrf.js';
import { faultConcern } from './filters/fault.js';
import { bufferConcern } from './filters/buffer.js';
import { awsLambdaConcern, lambdaErrorsConcern } from './filters/aws-lambda.js';
import { extProcConcerns } from './filters/ext-proc.js';
import { extauthConcern } from './filters/extauth.js';
import { graphqlConcern } from './filters/graphql.js';
import { jwtConcern } from './filters/jwt.js';
import { localRateLimitConcern } from './filters/local-ratelimit.js';
import { idleRateLimitConcerns, rateLimitConcerns } from './filters/ratelimit.js';
import { rbacConcern } from './filters/rbac.js';
import { upstreamTranscoderConcerns } from './filters/upstream-transcoder.js';

export const CONCERNS: readonly HttpFilterConcern[] = [
  faultConcern,
  corsConcern,
  localRateLimitConcern,
  claimHeadersConcern,
  jwtConcern,
  rbacConcern,
  extauthConcern,
  bufferConcern,
  csrfConcern,
  graphqlConcern,
  awsLambdaConcern,
  lambdaErrorsConcern,
  // No filter of their own in the shared chain (a Gateway adds it): only the virtual hosts' and routes' settings.
  ...extProcConcerns,
];

/**
 * The concerns of a model: its customAuth servers' filters (./filters/custom-auth.ts) right after sluice-extauth's,
 * then the gRPC-JSON transcoder of routes to Upstreams with one (./filters/upstream-transcoder.ts),
 * and its global rate limit filters (./filters/ratelimit.ts): those before authentication after local_ratelimit,
 * the others after every authentication filter, as Gloo stages them.
 */
export function concernsFor(
  virtualHosts: readonly VirtualHostIR[],
  rateLimitServer?: RateLimitServerIR,
): readonly HttpFilterConcern[] {
  const custom = [...customAuthConcerns(virtualHosts), ...upstreamTranscoderConcerns(virtualHosts)];
  const limits = rateLimitConcerns(virtualHosts, rateLimitServer);
  if (!custom.length && !limits.early.length && !limits.regular.length) return CONCERNS;
  return inChainOrder(custom, limits);
}

/** Mesh mode's filter list, the same in every compile: the concerns with an idle form and every rate limit filter. */
export const MESH_CONCERNS: readonly HttpFilterConcern[] = inChainOrder([], idleRateLimitConcerns()).filter(
  (c) => c.idleFilter,
);

function inChainOrder(
  custom: readonly HttpFilterConcern[],
  limits: { early: readonly HttpFilterConcern[]; regular: readonly HttpFilterConcern[] },
): readonly HttpFilterConcern[] {
  const early = CONCERNS.indexOf(localRateLimitConcern) + 1;
  const after = CONCERNS.indexOf(extauthConcern) + 1;
  return [
    ...CONCERNS.slice(0, early),
    ...limits.early,
    ...CONCERNS.slice(early, after),
    ...custom,
    ...limits.regular,
    ...CONCERNS.slice(after),
  ];
}
