/**
 * Emit: the static Envoy bootstrap that `envoy -c` loads, made from the xDS
 * set that `serve` serves: each connection manager gets its RDS route
 * configuration inline, each EDS cluster its load assignment (as a
 * STATIC cluster), and the SDS Secrets are static ones, named the same. Pure; the set is not changed.
 */
import { HCM_TYPE } from '../translate/listener.js';
import type { CompileOptions, Json, XdsSet } from '../translate/output.js';

export function staticBootstrap(set: XdsSet, options: CompileOptions): Json {
  // Every SDS reference names a Secret of the set (verify checks it): without Secrets there is none to rewrite, and no walk of the whole output.
  const staticSecretRefs = set.secrets.size > 0 ? withStaticSecretRefs : <T>(node: T) => node;
  return {
    // Loopback only: the admin interface can change Envoy's state.
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: options.adminPort } } },
    static_resources: {
      listeners: [...set.listeners.values()].map((l) => staticSecretRefs(withInlineRoutes(l, set.routes))),
      clusters: [...set.clusters.values()].map((c) =>
        staticSecretRefs(staticCluster(c, c.type === 'EDS' ? set.endpoints.get(c.name as string) : undefined)),
      ),
      ...(set.secrets.size > 0 ? { secrets: [...set.secrets.values()] } : {}),
    },
  };
}

/**
 * SDS references (`{name, sds_config}`) without their `sds_config`: a name
 * alone is a static Secret's. Only the objects on the way to a reference are
 * copied; the rest (a route configuration of 10,000 virtual hosts, say) is
 * shared with the set.
 */
function withStaticSecretRefs<T>(node: T): T {
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined;
    node.forEach((item, i) => {
      const changed = withStaticSecretRefs(item);
      if (changed !== item) copy ??= node.slice();
      if (copy) copy[i] = changed;
    });
    return (copy ?? node) as T;
  }
  if (!node || typeof node !== 'object') return node;
  const o = node as Json;
  const isRef = 'sds_config' in o && 'name' in o;
  const keys = Object.keys(o);
  let copy: Json | undefined;
  keys.forEach((key, i) => {
    const drop = isRef && key === 'sds_config';
    const value = drop ? undefined : withStaticSecretRefs(o[key]);
    if (!copy && (drop || value !== o[key])) copy = Object.fromEntries(keys.slice(0, i).map((k) => [k, o[k]]));
    if (copy && !drop) copy[key] = value;
  });
  return (copy ?? node) as T;
}

/** An EDS cluster as a STATIC one carrying its load assignment; any other cluster as it is. */
export function staticCluster(cluster: Json, assignment: Json | undefined): Json {
  if (cluster.type !== 'EDS') return cluster;
  if (!assignment) throw new Error(`EDS cluster "${String(cluster.name)}" has no load assignment in the set`);
  const { name, type: _eds, connect_timeout, eds_cluster_config: _source, ...rest } = cluster;
  return { name, type: 'STATIC', connect_timeout, load_assignment: assignment, ...rest };
}

/** The listener with each HCM's `rds` replaced, in place, by the route configuration it names. */
function withInlineRoutes(listener: Json, routes: Map<string, Json>): Json {
  const chains = listener.filter_chains as Json[] | undefined;
  if (!chains) return listener;
  const inline = (hcm: Json): Json => {
    const name = (hcm.rds as Json).route_config_name as string;
    const routeConfig = routes.get(name);
    if (!routeConfig)
      throw new Error(
        `listener "${String(listener.name)}" uses route configuration "${name}", which is not in the set`,
      );
    return Object.fromEntries(
      Object.entries(hcm).map(([k, v]) => (k === 'rds' ? ['route_config', routeConfig] : [k, v])),
    );
  };
  return {
    ...listener,
    filter_chains: chains.map((chain) => ({
      ...chain,
      filters: ((chain.filters as Json[] | undefined) ?? []).map((filter) => {
        const hcm = filter.typed_config as Json | undefined;
        return hcm?.['@type'] === HCM_TYPE && hcm.rds ? { ...filter, typed_config: inline(hcm) } : filter;
      }),
    })),
  };
}
