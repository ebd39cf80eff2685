/**
 * From the compiled output (shaped for a static bootstrap) to the resources
 * served over ADS. Pure: no I/O, input not mutated.
 *
 * - Each HTTP connection manager with an inline `route_config` gets `rds`
 *   (config source ADS) naming that route configuration, which is served by
 *   RDS. Route configurations listed in `output.routes` are served as well.
 * - Clusters of type STATIC (or with no discovery type, which Envoy reads as
 *   STATIC) that carry a `load_assignment` become EDS clusters fetched over
 *   ADS; their load assignment is served as a ClusterLoadAssignment, so an
 *   endpoint change is an EDS push that does not re-warm the cluster.
 *   STRICT_DNS and LOGICAL_DNS clusters keep their inline assignment (Envoy
 *   resolves those itself).
 */
import { HCM_TYPE } from '../translate/listener.js';
import { TYPE_URL } from '../../protos/contract.js';
import type { CompiledOutput, Json } from '../translate/output.js';


/** ADS order (make before break): clusters, endpoints, listeners, routes, then the sidecars' types. */
export const TYPE_ORDER: readonly string[] = [
  TYPE_URL.cluster,
  TYPE_URL.endpoint,
  TYPE_URL.listener,
  TYPE_URL.route,
  TYPE_URL.authConfig,
  TYPE_URL.graphqlApi,
];

/** Types a client may subscribe to with an empty name list (legacy wildcard); RDS and EDS go by name. */
export const WILDCARD_TYPES: ReadonlySet<string> = new Set([
  TYPE_URL.listener,
  TYPE_URL.cluster,
  TYPE_URL.authConfig,
  TYPE_URL.graphqlApi,
]);

/** Resources to serve, per type URL. */
export type ResourceSet = Record<string, Json[]>;

export const ADS_CONFIG_SOURCE: Json = { ads: {}, resource_api_version: 'V3' };

/** The name a resource goes by in xDS: `cluster_name` for ClusterLoadAssignment, `name` otherwise. */
export function resourceName(typeUrl: string, resource: Json): string {
  const name = typeUrl === TYPE_URL.endpoint ? resource.cluster_name : resource.name;
  if (typeof name !== 'string' || name === '') throw new Error(`${typeUrl} resource without a name`);
  return name;
}

export function toXdsResources(output: CompiledOutput): ResourceSet {
  const routes = new Map<string, Json>(output.routes.map((r) => [resourceName(TYPE_URL.route, r), r]));
  const listeners = output.listeners.map((listener) => withRds(listener, routes));
  const clusters: Json[] = [];
  const endpoints: Json[] = [];
  for (const cluster of output.clusters) {
    const isStatic = (cluster.type === undefined || cluster.type === 'STATIC') && cluster.cluster_type === undefined;
    if (isStatic && cluster.load_assignment) {
      const { load_assignment, ...rest } = cluster;
      clusters.push({ ...rest, type: 'EDS', eds_cluster_config: { eds_config: ADS_CONFIG_SOURCE } });
      endpoints.push({ ...(load_assignment as Json), cluster_name: cluster.name });
    } else {
      clusters.push(cluster);
    }
  }
  return {
    [TYPE_URL.cluster]: clusters,
    [TYPE_URL.endpoint]: endpoints,
    [TYPE_URL.listener]: listeners,
    [TYPE_URL.route]: [...routes.values()],
    [TYPE_URL.authConfig]: output.authConfigs,
    [TYPE_URL.graphqlApi]: output.graphqlApis,
  };
}

/** The listener with every inline HCM route_config moved out (into `routes`) and replaced by `rds`. */
function withRds(listener: Json, routes: Map<string, Json>): Json {
  const chains = listener.filter_chains as Json[] | undefined;
  if (!chains) return listener;
  return {
    ...listener,
    filter_chains: chains.map((chain) => ({
      ...chain,
      filters: ((chain.filters as Json[] | undefined) ?? []).map((filter) => {
        const hcm = filter.typed_config as Json | undefined;
        if (!hcm || hcm['@type'] !== HCM_TYPE || !hcm.route_config) return filter;
        const { route_config, ...rest } = hcm;
        const routeConfig = route_config as Json;
        const name = resourceName(TYPE_URL.route, routeConfig);
        if (!routes.has(name)) routes.set(name, routeConfig);
        return { ...filter, typed_config: { ...rest, rds: { config_source: ADS_CONFIG_SOURCE, route_config_name: name } } };
      }),
    })),
  };
}
