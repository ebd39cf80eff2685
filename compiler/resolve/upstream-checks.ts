/**
 * Upstream load-balancing settings that Envoy would reject or silently
 * ignore: a ring whose minimum size is above its maximum (Envoy refuses
 * the cluster), and a route's hash policies sent to upstreams that do not
 * hash (Envoy uses `hash_policy` only in RING_HASH and MAGLEV clusters).
 */
import { asWarning, fieldError, type Diagnostic } from '../diagnostics.js';
import type { UpstreamIR, VirtualHostIR } from '../ir/model.js';
import type { ResourceIndex } from './index.js';
import type { UpstreamPolicySpec } from './upstream-policy.js';

/** Envoy's RingHashLbConfig defaults (cluster.proto). */
const RING_DEFAULTS = { minimumRingSize: 1024, maximumRingSize: 8388608 } as const;

/** Ring sizes Envoy refuses: the minimum (as written or Envoy's default) above the maximum. */
export function ringSizeProblems(index: ResourceIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) {
    const ring = (upstream.spec as UpstreamPolicySpec).loadBalancerConfig?.ringHash?.ringHashConfig;
    if (!ring) continue;
    const min = ring.minimumRingSize ?? RING_DEFAULTS.minimumRingSize;
    const max = ring.maximumRingSize ?? RING_DEFAULTS.maximumRingSize;
    if (min <= max) continue;
    const path = [
      'spec',
      'loadBalancerConfig',
      'ringHash',
      'ringHashConfig',
      ring.minimumRingSize !== undefined ? 'minimumRingSize' : 'maximumRingSize',
    ];
    const sizes = `minimumRingSize ${min}${ring.minimumRingSize === undefined ? " (Envoy's default)" : ''} is larger than maximumRingSize ${max}${ring.maximumRingSize === undefined ? " (Envoy's default)" : ''}`;
    out.push(
      fieldError(
        'resolve',
        upstream.origin,
        path,
        `${sizes}; Envoy refuses the cluster`,
        'lower minimumRingSize or raise maximumRingSize',
      ),
    );
  }
  return out;
}

/** The clusters a route sends to. */
function routeClusters(action: VirtualHostIR['routes'][number]['action']): string[] {
  if (action.kind === 'cluster') return [action.cluster];
  if (action.kind === 'weighted') return action.clusters.map((c) => c.cluster);
  return [];
}

/** A warning at each lbHash whose route sends to upstreams that ignore it; once per lbHash (a route with several matchers is several routes). */
export function hashPolicyWarnings(virtualHosts: VirtualHostIR[], upstreams: UpstreamIR[]): Diagnostic[] {
  // Run on every compile, over every route: nothing is allocated until a route has an lbHash.
  let byName: Map<string, UpstreamIR> | undefined;
  const seen = new Set<object>();
  const out: Diagnostic[] = [];
  for (const vh of virtualHosts)
    for (const route of vh.routes) {
      const at = route.options?.lbHashAt;
      if (!at || seen.has(at)) continue;
      seen.add(at);
      const found = (byName ??= new Map(upstreams.map((u) => [u.name, u])));
      const ignoring = routeClusters(route.action).flatMap((name) => {
        const upstream = found.get(name);
        const kind = upstream?.policy?.loadBalancer?.kind;
        // The origin names what the user wrote: an Upstream, or the Service a discovered one comes from.
        return upstream && kind !== 'ringHash' && kind !== 'maglev'
          ? [`${upstream.origin.resource} (${kind ?? 'roundRobin, the default'})`]
          : [];
      });
      if (ignoring.length === 0) continue;
      out.push(
        asWarning(
          fieldError(
            'resolve',
            at.origin,
            at.path,
            `Envoy ignores hash policies for ${ignoring.join(', ')}: only ringHash and maglev load balancers hash requests`,
            'set loadBalancerConfig.ringHash or maglev on the Upstream (for a Service, route to an Upstream of it that sets one), or remove lbHash',
          ),
        ),
      );
    }
  return out;
}
