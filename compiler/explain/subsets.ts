/**
 * Envoy's subset load balancer, as explain reads it: which endpoints of a
 * cluster with `lb_subset_config` a route's `metadata_match` leaves (the
 * endpoints whose `envoy.lb` metadata has every one of its values), and
 * the fallback when none does or the route names no subset
 * (cluster.proto LbSubsetConfig; Envoy's default fallback is NO_FALLBACK).
 * Draining endpoints are kept and marked: Envoy counts them unhealthy, so
 * they take new requests only in panic (fewer than half healthy).
 */
import type { Json } from '../translate/output.js';

export interface LbEndpoint {
  /** `host:port` */
  address: string;
  draining: boolean;
  labels: Record<string, string>;
}

/** The endpoints of `cluster`: its own load_assignment, else `eds`, its EDS assignment. */
export function lbEndpoints(cluster: Json, eds: Json | undefined): LbEndpoint[] {
  const assignment = (cluster.load_assignment as Json | undefined) ?? eds;
  return (((assignment?.endpoints as Json[] | undefined) ?? []) as Json[]).flatMap((locality) =>
    ((locality.lb_endpoints as Json[] | undefined) ?? []).map((e) => {
      const sa = ((e.endpoint as Json).address as Json).socket_address as Json;
      const labels = ((((e.metadata as Json | undefined)?.filter_metadata as Json | undefined)?.[LB] as
        Record<string, string> | undefined) ?? {}) as Record<string, string>;
      return {
        address: `${sa.address as string}:${String(sa.port_value)}`,
        draining: e.health_status === 'DRAINING',
        labels,
      };
    }),
  );
}

const LB = 'envoy.lb';

/** The values a route (or a weighted cluster) asks of the endpoints' `envoy.lb` metadata, if any. */
export function metadataMatch(holder: Json): Record<string, string> | undefined {
  return (
    (((holder.metadata_match as Json | undefined)?.filter_metadata as Json | undefined)?.[LB] as
      Record<string, string> | undefined) ?? undefined
  );
}

const matches = (e: LbEndpoint, values: Record<string, string>) =>
  Object.entries(values).every(([k, v]) => e.labels[k] === v);

/** The endpoints the request may go to, and how they were chosen (undefined: the cluster has no subsets). */
export function pickSubset(
  cluster: Json,
  endpoints: LbEndpoint[],
  match: Record<string, string> | undefined,
): { endpoints: LbEndpoint[]; how?: string } {
  const config = cluster.lb_subset_config as Json | undefined;
  if (!config) return { endpoints };
  const show = (values: Record<string, string>) =>
    Object.entries(values)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  const selectors = ((config.subset_selectors as Json[] | undefined) ?? []).map((s) =>
    [...((s.keys as string[] | undefined) ?? [])].sort().join(','),
  );
  if (match && Object.keys(match).length > 0 && selectors.includes(Object.keys(match).sort().join(','))) {
    const subset = endpoints.filter((e) => matches(e, match));
    if (subset.length > 0) return { endpoints: subset, how: `subset ${show(match)}` };
  }
  const why = match ? `no endpoint in subset ${show(match)}` : 'the route names no subset';
  const policy = (config.fallback_policy as string | undefined) ?? 'NO_FALLBACK';
  if (policy === 'ANY_ENDPOINT') return { endpoints, how: `${why}: fallback ANY_ENDPOINT, every endpoint` };
  if (policy === 'DEFAULT_SUBSET') {
    const values = (config.default_subset as Record<string, string> | undefined) ?? {};
    return {
      endpoints: endpoints.filter((e) => matches(e, values)),
      how: `${why}: fallback DEFAULT_SUBSET ${show(values) || '(every endpoint)'}`,
    };
  }
  return { endpoints: [], how: `${why}: fallback NO_FALLBACK, no endpoint` };
}
