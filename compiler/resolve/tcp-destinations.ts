/**
 * Where a TCP host's connections go (Gloo's TcpHost.TcpAction): an Upstream
 * or a Kubernetes Service port with an optional subset, weighted
 * destinations, or an UpstreamGroup's destinations, each resolved as a route's
 * destinations are (resolve/destinations.ts). Envoy's tcp_proxy takes weights
 * of at least 1, and a connection has no requests for a destination's HTTP
 * options: an UpstreamGroup with either is an error at the TCP host.
 */
import { fieldError, notFound, placeOf, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { ClusterRefIR, TcpDestinationIR } from '../ir/model.js';
import type { DestinationSpec, WeightedDestinationSpec } from '../kinds/destinations.js';
import type { TcpDestinationSpec } from '../kinds/tcp-destinations.js';
import type { Resource } from '../validate/validate.js';
import { lambdaOnlyProblem } from './aws-lambda.js';
import { destinationCluster, weightedClusters, type UseUpstream } from './destinations.js';
import { refOf, showRef, type FindUpstream } from './index.js';
import type { Lookups } from './lookups.js';

/** The destination written at `path` of `from`; undefined after reporting why there is none. */
export type TcpDestinationOf = (
  from: Resource,
  path: FieldPath,
  spec: TcpDestinationSpec,
) => TcpDestinationIR | undefined;

export function tcpDestinations(
  lookups: Lookups,
  findUpstream: FindUpstream,
  use: UseUpstream,
  diagnostics: Diagnostic[],
): TcpDestinationOf {
  // Only a route invokes Lambda (signed, naming the function): an aws Upstream is no TCP destination.
  const tcpUpstream: FindUpstream = (from, path, ref) => {
    const upstream = findUpstream(from, path, ref);
    const problem = upstream && lambdaOnlyProblem(upstream);
    if (!problem) return upstream;
    diagnostics.push(fieldError('resolve', from.origin, path, problem.message, problem.hint));
    return undefined;
  };
  const cluster = (at: FieldPath, dest: DestinationSpec, from: Resource): ClusterRefIR | undefined =>
    destinationCluster(at, dest, from, lookups, tcpUpstream, use, diagnostics);
  const weighted = (owner: Resource, at: FieldPath, destinations: WeightedDestinationSpec[]) => {
    const clusters = weightedClusters(owner, at, destinations, cluster, diagnostics, lookups);
    return clusters && { weighted: clusters.map((c) => ({ cluster: c.cluster, weight: c.weight, ...subsetOf(c) })) };
  };
  return (from, path, spec) => {
    if (spec.single) return cluster([...path, 'single'], spec.single as DestinationSpec, from);
    if (spec.multi)
      return weighted(from, [...path, 'multi', 'destinations'], spec.multi.destinations as WeightedDestinationSpec[]);
    const ref = refOf(spec.upstreamGroup!, from);
    const at = [...path, 'upstreamGroup'];
    const group = lookups.resource('UpstreamGroup', ref);
    if (!group) {
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            from.origin,
            at,
            `UpstreamGroup ${showRef(ref)} not found`,
            'define the UpstreamGroup (gloo.gateway.example/v1) or fix the reference',
          ),
          `UpstreamGroup ${showRef(ref)}`,
        ),
      );
      return undefined;
    }
    const destinations = (group.spec as { destinations: WeightedDestinationSpec[] }).destinations;
    const unfit = destinations.flatMap((d, j) => {
      const where = (field: string) => placeOf(group.origin, ['spec', 'destinations', j, field]);
      if (!d.weight)
        return [
          `destination ${j + 1} has weight 0 (${where('weight')}), and Envoy's tcp_proxy takes weights of at least 1`,
        ];
      if (d.options)
        return [
          `destination ${j + 1} has options (${where('options')}), which set HTTP requests' headers, buffering and CSRF, and a TCP connection has none`,
        ];
      return [];
    });
    for (const problem of unfit)
      diagnostics.push(
        fieldError(
          'resolve',
          from.origin,
          at,
          `UpstreamGroup ${showRef(ref)}: ${problem}`,
          'give the TCP host an UpstreamGroup whose destinations all have a weight and no options, or use destination.multi',
        ),
      );
    return unfit.length > 0 ? undefined : weighted(group, ['spec', 'destinations'], destinations);
  };
}

const subsetOf = (c: ClusterRefIR) => (c.subset ? { subset: c.subset } : {});
