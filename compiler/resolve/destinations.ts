/**
 * Gloo's Destination (kube or upstream) and weighted destinations
 * (routeAction.multi, an UpstreamGroup's spec): the clusters they name, each
 * problem an error on the resource that wrote it. Every UpstreamGroup is
 * checked on its own too, so a broken group no route names is reported.
 */
import { fieldError, notFound, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { UpstreamIR } from '../ir/model.js';
import type { DestinationSpec, WeightedDestinationSpec } from '../kinds/destinations.js';
import type { Resource } from '../validate/validate.js';
import { refOf, showRef, type FindUpstream, type ResourceIndex } from './index.js';
import type { Lookups } from './lookups.js';

/** Records an upstream Envoy sends to (it becomes a cluster), named at `path` of `from`. */
export type UseUpstream = (path: FieldPath, from: Resource, upstream: UpstreamIR) => void;

/** The cluster of a Gloo Destination, or undefined after reporting why not. */
export function destinationCluster(at: FieldPath, dest: DestinationSpec, from: Resource, lookups: Lookups, findUpstream: FindUpstream, use: UseUpstream, diagnostics: Diagnostic[]): string | undefined {
  if (dest.upstream) {
    const upstream = findUpstream(from, [...at, 'upstream'], dest.upstream);
    if (upstream) use([...at, 'upstream'], from, upstream);
    return upstream?.name;
  }
  const kube = dest.kube!;
  const ref = refOf(kube.ref, from);
  const found = lookups.servicePort(ref, kube.port);
  if (found.upstream) {
    use([...at, 'kube'], from, found.upstream);
    return found.upstream.name;
  }
  if (found.knownPorts) diagnostics.push(fieldError('resolve', from.origin, [...at, 'kube', 'port'], `Service ${showRef(ref)} has no port ${kube.port}`, `its ports are ${found.knownPorts.join(', ') || 'none'}`));
  else {
    const hint = `define the v1 Service among the inputs, or route to an Upstream with ${at[at.length - 1] === 'single' ? 'routeAction.single' : 'destination'}.upstream`;
    diagnostics.push(notFound(fieldError('resolve', from.origin, [...at, 'kube', 'ref'], `Service ${showRef(ref)} not found`, hint), `Service ${showRef(ref)}`));
  }
  return undefined;
}

/** Weighted destinations written at `at` of `owner`: their clusters, or undefined after reporting why not. */
export function weightedClusters(
  owner: Resource,
  at: FieldPath,
  destinations: WeightedDestinationSpec[],
  cluster: (at: FieldPath, dest: DestinationSpec, from: Resource) => string | undefined,
  diagnostics: Diagnostic[],
): { cluster: string; weight: number }[] | undefined {
  const clusters = destinations.map((d, j) => ({ cluster: cluster([...at, j, 'destination'], d.destination, owner), weight: d.weight ?? 0 }));
  // Envoy refuses weighted clusters whose weights add up to 0.
  if (clusters.every((c) => c.weight === 0)) {
    diagnostics.push(fieldError('resolve', owner.origin, at, 'every destination has weight 0, so none would get a request', 'give the destinations weights (requests are split in proportion to them)'));
    return undefined;
  }
  return clusters.every((c) => c.cluster) ? clusters.map((c) => ({ cluster: c.cluster!, weight: c.weight })) : undefined;
}

/**
 * Every UpstreamGroup's destinations, whether a route names the group or not
 * (a route's own check of a group reports the same diagnostics, which resolve
 * keeps once). Nothing here becomes a cluster.
 */
export function checkUpstreamGroups(index: ResourceIndex, lookups: Lookups, options: { controlPlaneNamespace: string }, diagnostics: Diagnostic[]): void {
  const findUpstream = lookups.findUpstream(options, diagnostics);
  const unused: UseUpstream = () => {};
  for (const group of index.all('UpstreamGroup')) {
    const destinations = (group.spec as { destinations: WeightedDestinationSpec[] }).destinations;
    weightedClusters(group, ['spec', 'destinations'], destinations, (at, dest, from) => destinationCluster(at, dest, from, lookups, findUpstream, unused, diagnostics), diagnostics);
  }
}
