/**
 * The compiled configuration explain reads: the Envoy messages (listeners,
 * route configurations, clusters, load assignments) and the sidecars'
 * messages (AuthConfigs, GraphQL APIs), exactly as `compile` emits them and
 * `serve` serves them. `fromCompileResult` is the one place that knows the
 * pipeline's result shape.
 */
import type { CompileResult } from '../pipeline.js';
import type { Json } from '../translate/output.js';
import { secretHeaderValues, type SecretHeaderValues } from './secret-headers.js';

export interface GatewayConfig {
  listeners: Json[];
  /** RouteConfigurations by name (what RDS serves). */
  routeConfigurations: Map<string, Json>;
  clusters: Map<string, Json>;
  /** ClusterLoadAssignments of EDS clusters, by cluster name. */
  endpoints: Map<string, Json>;
  /** `sluice.extauth.v1.AuthConfig` by name (`<namespace>.<name>`). */
  authConfigs: Map<string, Json>;
  /** `sluice.graphql.v1.GraphQLApi` by name. */
  graphqlApis: Map<string, Json>;
  /** `sluice.ratelimit.v1.RateLimitDomain` by domain. */
  rateLimitDomains: Map<string, Json>;
  /** Header values the configuration carries that are Secrets' entries, never shown. */
  secretHeaders: SecretHeaderValues;
}

/** The compiled messages of a successful compile; undefined when it failed. */
export function fromCompileResult(result: CompileResult): GatewayConfig | undefined {
  const xds = result.xds;
  if (!xds) return undefined;
  return {
    listeners: [...xds.listeners.values()],
    routeConfigurations: xds.routes,
    clusters: xds.clusters,
    endpoints: xds.endpoints,
    authConfigs: xds.authConfigs,
    graphqlApis: xds.graphqlApis,
    rateLimitDomains: xds.rateLimitDomains,
    secretHeaders: result.ir ? secretHeaderValues(result.ir) : new Map(),
  };
}
