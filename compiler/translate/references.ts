/** What a message (proto3 JSON) names of other xDS resources: clusters and SDS Secrets. */

/** Cluster names: `cluster` (routes, tcp_proxy, http_uri, mirrors), `cluster_name` (envoy_grpc), `collector_cluster` (Zipkin), weighted clusters. */
const CLUSTER_KEYS = new Set(['cluster', 'cluster_name', 'collector_cluster']);

export function namedClusters(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) namedClusters(item, into);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (CLUSTER_KEYS.has(key) && typeof value === 'string' && value) into.add(value);
      else if (key === 'weighted_clusters' && value && typeof value === 'object') {
        for (const c of (value as { clusters?: Array<{ name?: unknown }> }).clusters ?? [])
          if (typeof c.name === 'string' && c.name) into.add(c.name);
      } else namedClusters(value, into);
    }
  }
  return into;
}

/** SDS Secret names: the `name` of each SdsSecretConfig (an object with `sds_config`). */
export function namedSecrets(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) namedSecrets(item, into);
  } else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if ('sds_config' in o && typeof o.name === 'string') into.add(o.name);
    for (const value of Object.values(o)) namedSecrets(value, into);
  }
  return into;
}
