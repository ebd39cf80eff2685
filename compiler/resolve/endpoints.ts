/**
 * The endpoints of the used upstreams with a service target: from the
 * Service's EndpointSlices (label `kubernetes.io/service-name`, in its
 * namespace), the slice port named as the Service port (a Service with one
 * unnamed port: the slice's one port). An endpoint neither ready nor serving
 * is left out; one terminating but serving drains. With a kube.selector only
 * the pods with its labels; with subsets each endpoint carries its pod's
 * values of the subset keys, as Gloo gives them.
 *
 * An upstream's endpoint set is kept (the same object) while its slices and
 * the pods it read are the same objects: an endpoint change makes one new
 * set, which translate turns into one new ClusterLoadAssignment.
 */
import { isIP } from 'node:net';
import { asWarning, fieldError, type Diagnostic } from '../diagnostics.js';
import { SERVICE_NAME_LABEL, type EndpointSliceValue, type EndpointSpec } from '../kinds/kubernetes.js';
import type { EndpointIR, EndpointSetIR, NamespacedName, UpstreamIR } from '../ir/model.js';
import type { Resource } from '../validate/validate.js';
import type { ResourceIndex } from './index.js';

export class EndpointMemo {
  /** The slices of each Service (`namespace/name`), made again when any EndpointSlice changed. */
  slices: Map<string, Resource[]> | undefined;
  readonly sets = new WeakMap<
    UpstreamIR,
    { slices: readonly Resource[]; pods: (Resource | undefined)[]; set: EndpointSetIR; warnings: Diagnostic[] }
  >();
}

/** `namespace/name` of the Services with EndpointSlices among the resources. */
export function slicesByService(index: ResourceIndex, memo: EndpointMemo): Map<string, Resource[]> {
  if (memo.slices && index.unchanged('EndpointSlice')) return memo.slices;
  const out = new Map<string, Resource[]>();
  for (const slice of index.all('EndpointSlice')) {
    const service = labelsOf(slice)[SERVICE_NAME_LABEL];
    if (service === undefined) continue;
    const key = `${slice.namespace}/${service}`;
    const list = out.get(key);
    if (list) list.push(slice);
    else out.set(key, [slice]);
  }
  return (memo.slices = out);
}

/** What endpoint sets are made of: the EndpointSlices of each Service (slicesByService), and the Pods they name. */
export interface EndpointInputs {
  slices: ReadonlyMap<string, readonly Resource[]>;
  pod(ref: NamespacedName): Resource | undefined;
}

/** The endpoint sets, and warnings for what leaves a set short: endpoints whose pod's labels are unknown, a set with no endpoint. */
export function resolveEndpoints(
  inputs: EndpointInputs,
  upstreams: readonly UpstreamIR[],
  memo: EndpointMemo,
): { sets: EndpointSetIR[]; warnings: Diagnostic[] } {
  const out: EndpointSetIR[] = [];
  const warnings: Diagnostic[] = [];
  for (const upstream of upstreams) {
    if (upstream.target.kind !== 'service') continue;
    const made = resolveEndpointSet(inputs, upstream, memo);
    out.push(made.set);
    warnings.push(...made.warnings);
  }
  return { sets: out, warnings };
}

/** Whether an upstream's endpoint set reads the labels of its endpoints' Pods. */
export function readsPods(upstream: UpstreamIR): boolean {
  return upstream.selector !== undefined || upstream.subsets !== undefined;
}

/** The `namespace/name` of the Service of an upstream with a service target. */
export function serviceKeyOf(upstream: UpstreamIR): string {
  const target = upstream.target as Extract<UpstreamIR['target'], { kind: 'service' }>;
  return `${target.service.namespace}/${target.service.name}`;
}

/** One upstream's endpoint set (an upstream with a service target), kept while its slices and pods are the same objects. */
export function resolveEndpointSet(
  inputs: EndpointInputs,
  upstream: UpstreamIR,
  memo: EndpointMemo,
): { set: EndpointSetIR; warnings: readonly Diagnostic[] } {
  const slices = inputs.slices.get(serviceKeyOf(upstream)) ?? NONE;
  const pods = readsPods(upstream) ? slices.flatMap((s) => endpointsOf(s).map((e) => podOf(inputs, s, e))) : NONE;
  const kept = memo.sets.get(upstream);
  if (kept && same(kept.slices, slices) && same(kept.pods, pods)) return kept;
  const made = endpointSet(upstream, slices, pods);
  memo.sets.set(upstream, { slices, pods, ...made });
  return made;
}

const NONE: never[] = [];

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function labelsOf(r: Resource): Record<string, string> {
  return ((r.value.metadata as { labels?: Record<string, string> | null }).labels ?? {}) as Record<string, string>;
}

function endpointsOf(slice: Resource): EndpointSpec[] {
  return (slice.value as unknown as EndpointSliceValue).endpoints ?? [];
}

/** The Pod an endpoint names (targetRef), if it is among the resources. */
function podOf(inputs: EndpointInputs, slice: Resource, e: EndpointSpec): Resource | undefined {
  const ref = e.targetRef;
  if (ref?.kind !== 'Pod' || !ref.name) return undefined;
  return inputs.pod({ name: ref.name, namespace: ref.namespace ?? slice.namespace });
}

/** `pods`: per endpoint of the slices in order, its Pod (only read with a selector or subsets). */
function endpointSet(
  upstream: UpstreamIR,
  slices: readonly Resource[],
  pods: readonly (Resource | undefined)[],
): { set: EndpointSetIR; warnings: Diagnostic[] } {
  const warnings: Diagnostic[] = [];
  const target = upstream.target as Extract<UpstreamIR['target'], { kind: 'service' }>;
  const keys = upstream.subsets ? [...new Set(upstream.subsets.selectors.flatMap((s) => s.keys))].sort() : undefined;
  const byZone = new Map<string, Map<string, EndpointIR>>();
  let at = 0;
  for (const slice of slices) {
    let k = -1;
    const value = slice.value as unknown as EndpointSliceValue;
    const endpoints = value.endpoints ?? [];
    const port = slicePort(value, target.portName);
    for (const e of endpoints) {
      const pod = pods[at++];
      k++;
      // FQDN slices name hosts, not addresses: Envoy's EDS takes addresses.
      if (port === undefined || value.addressType === 'FQDN') continue;
      const ready = e.conditions?.ready !== false;
      const serving = e.conditions?.serving ?? ready;
      if (!ready && !serving) continue;
      const labels = pod ? labelsOf(pod) : undefined;
      if ((upstream.selector || upstream.subsets) && !pod) warnings.push(unknownPod(upstream, slice, k, e));
      if (upstream.selector && !(labels && Object.entries(upstream.selector).every(([k, v]) => labels[k] === v)))
        continue;
      const zone = e.zone ?? '';
      let endpointsOfZone = byZone.get(zone);
      if (!endpointsOfZone) byZone.set(zone, (endpointsOfZone = new Map()));
      // An address of the wrong family is left out: Envoy's EDS takes IP addresses only.
      for (const address of e.addresses.filter((a) => isIP(a) !== 0)) {
        // An address listed twice (two slices during a move) is one endpoint; a ready copy wins.
        const key = `${address}:${port}`;
        const listed = endpointsOfZone.get(key);
        if (listed && (!listed.draining || !ready)) continue;
        endpointsOfZone.set(key, {
          address,
          port,
          ...(!ready ? { draining: true } : {}),
          ...(keys ? { labels: Object.fromEntries(keys.map((k) => [k, labels?.[k] ?? ''])) } : {}),
        });
      }
    }
  }
  const zones = [...byZone].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const set = {
    cluster: upstream.name,
    zones: zones.map(([zone, endpoints]) => ({
      zone,
      endpoints: [...endpoints.values()].sort((a, b) =>
        a.address < b.address ? -1 : a.address > b.address ? 1 : a.port - b.port,
      ),
    })),
  };
  if (set.zones.every((z) => z.endpoints.length === 0)) warnings.push(noEndpoint(upstream, slices));
  return { set, warnings };
}

/** An endpoint a selector or subsets must place, whose Pod is not among the inputs. */
function unknownPod(upstream: UpstreamIR, slice: Resource, k: number, e: EndpointSpec): Diagnostic {
  const ref =
    e.targetRef?.kind === 'Pod' && e.targetRef.name
      ? `Pod ${e.targetRef.namespace ?? slice.namespace}/${e.targetRef.name}`
      : undefined;
  const what = upstream.selector
    ? 'kube.selector leaves this endpoint out'
    : 'this endpoint is in no subset (its subset keys are "")';
  return asWarning(
    fieldError(
      'resolve',
      slice.origin,
      ['endpoints', k, ...(ref ? ['targetRef'] : [])],
      `${ref ? `${ref} is not among the inputs` : 'this endpoint names no Pod (targetRef)'}: Upstream ${upstream.namespace}/${upstream.name} cannot read its labels, so ${what}`,
      "add the Service's Pods to the inputs (kubectl get pods -o yaml)",
    ),
  );
}

/** A service target with EndpointSlices among the inputs and not one endpoint from them: Envoy answers 503. */
function noEndpoint(upstream: UpstreamIR, slices: readonly Resource[]): Diagnostic {
  const target = upstream.target as Extract<UpstreamIR['target'], { kind: 'service' }>;
  // A discovered upstream's origin is its Service, an explicit one's its Upstream.
  const path = upstream.origin.resource.startsWith('Service ')
    ? ['spec', 'ports']
    : ['spec', 'kube', upstream.selector ? 'selector' : 'servicePort'];
  const port =
    target.portName !== undefined ? `the slice port named ${JSON.stringify(target.portName)}` : "the slices' only port";
  return asWarning(
    fieldError(
      'resolve',
      upstream.origin,
      path,
      `no ready or serving endpoint of Service ${target.service.namespace}/${target.service.name} port ${target.port}${upstream.selector ? " with the selector's labels" : ''} in its ${slices.length} EndpointSlice(s) among the inputs (${port}): Envoy answers 503 "no healthy upstream"`,
      'expected while the Service has no ready pods; otherwise check the pods are ready, and that the slices have the port the Service port names',
    ),
  );
}

/** The slice's port for the Service port named `name`; a Service port without a name (or not known): the slice's only port. */
function slicePort(slice: EndpointSliceValue, name: string | undefined): number | undefined {
  const ports = slice.ports ?? [];
  if (name === undefined) return ports.length === 1 ? ports[0]!.port : undefined;
  return ports.find((p) => (p.name ?? '') === name)?.port;
}
