/**
 * Gloo's Destination (kube or upstream) and weighted destinations
 * (routeAction.multi, an UpstreamGroup's spec): the clusters they name, each
 * problem an error on the resource that wrote it. Every UpstreamGroup is
 * checked on its own too, so a broken group no route names is reported.
 */
import { fieldError, notFound, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { ClusterRefIR, UpstreamIR, WeightedClusterIR } from '../ir/model.js';
import type { DestinationSpec, WeightedDestinationSpec } from '../kinds/destinations.js';
import type { Resource } from '../validate/validate.js';
import { refOf, showRef, type FindUpstream, type ResourceIndex } from './index.js';
import type { Lookups } from './lookups.js';
import { destinationOptions } from './destination-options.js';
import { lambdaInvoke, weightedLambdaProblem } from './aws-lambda.js';

/** Records an upstream Envoy sends to (it becomes a cluster), named at `path` of `from`. */
export type UseUpstream = (path: FieldPath, from: Resource, upstream: UpstreamIR) => void;

/** The cluster of a Gloo Destination (with its subset), or undefined after reporting why not. */
export function destinationCluster(
  at: FieldPath,
  dest: DestinationSpec,
  from: Resource,
  lookups: Lookups,
  findUpstream: FindUpstream,
  use: UseUpstream,
  diagnostics: Diagnostic[],
): ClusterRefIR | undefined {
  let upstream: UpstreamIR | undefined;
  if (dest.upstream) {
    upstream = findUpstream(from, [...at, 'upstream'], dest.upstream);
    if (upstream) use([...at, 'upstream'], from, upstream);
  } else {
    const kube = dest.kube!;
    const ref = refOf(kube.ref, from);
    const found = lookups.servicePort(ref, kube.port);
    upstream = found.upstream;
    if (upstream) use([...at, 'kube'], from, upstream);
    else if (found.knownPorts)
      diagnostics.push(
        fieldError(
          'resolve',
          from.origin,
          [...at, 'kube', 'port'],
          `Service ${showRef(ref)} has no port ${kube.port}`,
          `its ports are ${found.knownPorts.join(', ') || 'none'}`,
        ),
      );
    else {
      const single =
        at[at.length - 1] === 'single' && (at.includes('routeAction') ? 'routeAction.single' : 'destination.single');
      const hint = `define the v1 Service among the inputs, or route to an Upstream with ${single || 'destination'}.upstream`;
      diagnostics.push(
        notFound(
          fieldError('resolve', from.origin, [...at, 'kube', 'ref'], `Service ${showRef(ref)} not found`, hint),
          `Service ${showRef(ref)}`,
        ),
      );
    }
  }
  if (!upstream) return undefined;
  const lambda = lambdaInvoke(at, dest, upstream, from, lookups, diagnostics);
  if (lambda === false) return undefined;
  if (lambda) return { cluster: upstream.name, lambda };
  const own = upstream.grpcJsonTranscoder ? { transcoder: upstream.grpcJsonTranscoder } : {};
  if (!dest.subset) return { cluster: upstream.name, ...own };
  const problem = subsetProblem(upstream, dest.subset.values);
  if (problem) {
    diagnostics.push(fieldError('resolve', from.origin, [...at, 'subset', 'values'], problem[0], problem[1]));
    return undefined;
  }
  return Object.keys(dest.subset.values).length > 0
    ? { cluster: upstream.name, subset: dest.subset.values, ...own }
    : { cluster: upstream.name, ...own };
}

/** Why a route's subset cannot select endpoints of `upstream` (Gloo's check: its keys must be those of one of the upstream's subset selectors), and what to do. */
function subsetProblem(upstream: UpstreamIR, values: Record<string, string>): [string, string] | undefined {
  const keys = Object.keys(values);
  if (keys.length === 0) return undefined;
  const selectors = upstream.subsets?.selectors;
  if (!selectors)
    return [
      `upstream ${upstream.namespace}/${upstream.name} has no subsets`,
      'add kube.subsetSpec to the Upstream, with a selector of these keys, or remove subset',
    ];
  if (selectors.some((s) => s.keys.length === keys.length && s.keys.every((k) => keys.includes(k)))) return undefined;
  return [
    `subset keys [${keys.join(', ')}] are not the keys of any subset selector of upstream ${upstream.namespace}/${upstream.name} (${selectors.map((s) => `[${s.keys.join(', ')}]`).join(', ')})`,
    'use the keys of one of its selectors, or add a selector of these keys to its kube.subsetSpec',
  ];
}

/** Weighted destinations written at `at` of `owner`: their clusters, or undefined after reporting why not. */
export function weightedClusters(
  owner: Resource,
  at: FieldPath,
  destinations: WeightedDestinationSpec[],
  cluster: (at: FieldPath, dest: DestinationSpec, from: Resource) => ClusterRefIR | undefined,
  diagnostics: Diagnostic[],
  lookups: Lookups,
): WeightedClusterIR[] | undefined {
  const clusters = destinations.map((d, j) => {
    const ref = cluster([...at, j, 'destination'], d.destination, owner);
    const lambda = ref && weightedLambdaProblem([...at, j, 'destination'], ref, owner);
    if (lambda) diagnostics.push(lambda);
    return {
      ref: lambda ? undefined : ref,
      weight: d.weight ?? 0,
      ...destinationOptions(d.options, owner, [...at, j, 'options'], diagnostics, lookups),
    };
  });
  // Envoy refuses weighted clusters whose weights add up to 0.
  if (clusters.every((c) => c.weight === 0)) {
    diagnostics.push(
      fieldError(
        'resolve',
        owner.origin,
        at,
        'every destination has weight 0, so none would get a request',
        'give the destinations weights (requests are split in proportion to them)',
      ),
    );
    return undefined;
  }
  // Envoy runs one transcoder config per route (Gloo keeps one of them silently).
  const transcoders = new Set(clusters.flatMap((c) => (c.ref?.transcoder ? [JSON.stringify(c.ref.transcoder)] : [])));
  if (transcoders.size > 1) {
    diagnostics.push(
      fieldError(
        'resolve',
        owner.origin,
        at,
        "the destinations' Upstreams have different serviceSpec.grpcJsonTranscoder settings, and Envoy applies one per route",
        'give the Upstreams the same transcoder settings, or route to each with its own route',
      ),
    );
    return undefined;
  }
  return clusters.every((c) => c.ref && c.ok)
    ? clusters.map((c) => ({ ...c.ref!, weight: c.weight, ...(c.options ? { options: c.options } : {}) }))
    : undefined;
}

/**
 * Every UpstreamGroup's destinations, whether a route names the group or not
 * (a route's own check of a group reports the same diagnostics, which resolve
 * keeps once). Nothing here becomes a cluster.
 */
export function checkUpstreamGroups(
  index: ResourceIndex,
  lookups: Lookups,
  options: { controlPlaneNamespace: string },
  diagnostics: Diagnostic[],
): void {
  const findUpstream = lookups.findUpstream(options, diagnostics);
  const unused: UseUpstream = () => {};
  for (const group of index.all('UpstreamGroup')) {
    const destinations = (group.spec as { destinations: WeightedDestinationSpec[] }).destinations;
    weightedClusters(
      group,
      ['spec', 'destinations'],
      destinations,
      (at, dest, from) => destinationCluster(at, dest, from, lookups, findUpstream, unused, diagnostics),
      diagnostics,
      lookups,
    );
  }
}
