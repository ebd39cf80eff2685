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
import { SERVICE_NAME_LABEL, type EndpointSliceValue, type EndpointSpec } from '../kinds/kubernetes.js';
import type { EndpointIR, EndpointSetIR, UpstreamIR } from '../ir/model.js';
import type { Resource } from '../validate/validate.js';
import type { ResourceIndex } from './index.js';

export class EndpointMemo {
  /** The slices of each Service (`namespace/name`), made again when any EndpointSlice changed. */
  slices: Map<string, Resource[]> | undefined;
  readonly sets = new WeakMap<UpstreamIR, { slices: Resource[]; pods: (Resource | undefined)[]; set: EndpointSetIR }>();
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

export function resolveEndpoints(index: ResourceIndex, upstreams: readonly UpstreamIR[], memo: EndpointMemo): EndpointSetIR[] {
  const byService = slicesByService(index, memo);
  const out: EndpointSetIR[] = [];
  for (const upstream of upstreams) {
    const { target } = upstream;
    if (target.kind !== 'service') continue;
    const slices = byService.get(`${target.service.namespace}/${target.service.name}`) ?? NONE;
    const readsPods = upstream.selector !== undefined || upstream.subsets !== undefined;
    const pods = readsPods ? slices.flatMap((s) => endpointsOf(s).map((e) => podOf(index, s, e))) : NONE;
    const kept = memo.sets.get(upstream);
    if (kept && same(kept.slices, slices) && same(kept.pods, pods)) {
      out.push(kept.set);
      continue;
    }
    const set = endpointSet(upstream, slices, pods);
    memo.sets.set(upstream, { slices, pods, set });
    out.push(set);
  }
  return out;
}

const NONE: never[] = [];

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function labelsOf(r: Resource): Record<string, string> {
  return ((r.value.metadata as { labels?: Record<string, string> | null }).labels ?? {}) as Record<string, string>;
}

function endpointsOf(slice: Resource): EndpointSpec[] {
  return (slice.value as unknown as EndpointSliceValue).endpoints ?? [];
}

/** The Pod an endpoint names (targetRef), if it is among the resources. */
function podOf(index: ResourceIndex, slice: Resource, e: EndpointSpec): Resource | undefined {
  const ref = e.targetRef;
  if (ref?.kind !== 'Pod' || !ref.name) return undefined;
  return index.get('Pod', { name: ref.name, namespace: ref.namespace ?? slice.namespace });
}

/** `pods`: per endpoint of the slices in order, its Pod (only read with a selector or subsets). */
function endpointSet(upstream: UpstreamIR, slices: readonly Resource[], pods: readonly (Resource | undefined)[]): EndpointSetIR {
  const target = upstream.target as Extract<UpstreamIR['target'], { kind: 'service' }>;
  const keys = upstream.subsets ? [...new Set(upstream.subsets.selectors.flatMap((s) => s.keys))].sort() : undefined;
  const byZone = new Map<string, Map<string, EndpointIR>>();
  let at = 0;
  for (const slice of slices) {
    const value = slice.value as unknown as EndpointSliceValue;
    const endpoints = value.endpoints ?? [];
    const port = slicePort(value, target.portName);
    for (const e of endpoints) {
      const pod = pods[at++];
      // FQDN slices name hosts, not addresses: Envoy's EDS takes addresses.
      if (port === undefined || value.addressType === 'FQDN') continue;
      const ready = e.conditions?.ready !== false;
      const serving = e.conditions?.serving ?? ready;
      if (!ready && !serving) continue;
      const labels = pod ? labelsOf(pod) : undefined;
      if (upstream.selector && !(labels && Object.entries(upstream.selector).every(([k, v]) => labels[k] === v))) continue;
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
  return {
    cluster: upstream.name,
    zones: zones.map(([zone, endpoints]) => ({ zone, endpoints: [...endpoints.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : a.port - b.port)) })),
  };
}

/** The slice's port for the Service port named `name`; a Service port without a name (or not known): the slice's only port. */
function slicePort(slice: EndpointSliceValue, name: string | undefined): number | undefined {
  const ports = slice.ports ?? [];
  if (name === undefined) return ports.length === 1 ? ports[0]!.port : undefined;
  return ports.find((p) => (p.name ?? '') === name)?.port;
}
