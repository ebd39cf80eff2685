/**
 * The fast path of an endpoint change. EndpointSlices and Pods feed one
 * thing only: the endpoint sets of the clusters of Services (resolve/endpoints.ts)
 * and their warnings, plus which Services have slices at all (whether a
 * Service's cluster is EDS or DNS). So when the resources that changed since
 * the last good compile are all EndpointSlices and Pods, validate cleanly,
 * and no Service gains its first slice or loses its last, the next compile's
 * output is the last one with those sets made again: their
 * ClusterLoadAssignments are translated and verified as a full compile would,
 * the served sets get them in place of the old ones, and the diagnostics are
 * the last compile's with the new endpoint warnings. Only the upstreams of
 * the Services whose slices changed are looked at (and, when a Pod changed,
 * those that read pods' labels: a kube.selector or subsets). Nothing else
 * is resolved, translated or verified; the result equals a full compile's
 * (compiler/endpoint-update.test.ts compares them over random changes).
 */
import { sortDiagnostics, type Diagnostic } from './diagnostics.js';
import type { EndpointSetIR, Model, UpstreamIR } from './ir/model.js';
import { SERVICE_NAME_LABEL } from './kinds/kubernetes.js';
import { compareText } from './order.js';
import {
  labelsOf,
  readsPods,
  resolveEndpointSet,
  serviceKeyOf,
  type EndpointInputs,
  type EndpointMemo,
} from './resolve/endpoints.js';
import type { NamespacedName } from './ir/model.js';
import type { EndpointBasis } from './resolve/resolve.js';
import type { Json, XdsSet } from './translate/output.js';
import { endpointAssignment, type TranslateMemo } from './translate/translate.js';
import type { Resource, Validated } from './validate/validate.js';
import { verifyEndpoints, type VerifyMemo } from './verify/verify.js';

/** The kinds whose changes can take the fast path. */
const ENDPOINT_KINDS: ReadonlySet<string> = new Set(['EndpointSlice', 'Pod']);

/** A compile's output, as the pipeline returns it. */
export interface Output {
  ir?: Model;
  xds?: XdsSet;
  proxies?: ReadonlyMap<string, XdsSet>;
  diagnostics: Diagnostic[];
}

/** A good compile the fast path starts from. */
export interface EndpointBase {
  result: Output & { ir: Model };
  /** Its diagnostics unsorted, without the endpoint warnings. */
  others: readonly Diagnostic[];
  basis: EndpointBasis;
  /** Made on the first endpoint change after the compile, then kept current by each. */
  view?: EndpointView;
}

export interface EndpointMemos {
  endpoints: EndpointMemo;
  translate: TranslateMemo;
  verify: VerifyMemo;
}

/** Whether validating a changed document gave only EndpointSlices and Pods, and nothing to say about them. */
export function onlyEndpoints(validated: Validated | undefined): boolean {
  return (
    validated === undefined ||
    (validated.diagnostics.length === 0 &&
      validated.invalid.length === 0 &&
      validated.resources.every((r) => ENDPOINT_KINDS.has(r.kind)))
  );
}

const nameKey = (kind: string, namespace: string, name: string) => `${kind}|${namespace}/${name}`;

/** The `namespace/name` of the Service an EndpointSlice belongs to, if it names one. */
function serviceOf(r: Resource): string | undefined {
  if (r.kind !== 'EndpointSlice') return undefined;
  const service = labelsOf(r)[SERVICE_NAME_LABEL];
  return service === undefined ? undefined : `${r.namespace}/${service}`;
}

/** What a change touched: the Services whose slices changed, and whether a Pod did. */
interface Touched {
  services: ReadonlySet<string>;
  pods: boolean;
}

/**
 * The EndpointSlices and Pods as they are now: the last compile's, with the
 * changes since applied; and the upstreams with a service target, in the
 * order of the model's endpoint sets, with where to find them by Service.
 */
class EndpointView implements EndpointInputs {
  readonly slices: Map<string, readonly Resource[]>;
  private readonly byName = new Map<string, Resource>();
  /** The upstreams with a service target: upstreams[i] has the model's endpoint set i. */
  readonly upstreams: readonly UpstreamIR[];
  /** Their endpoint warnings, by the same index, as the last compile (or change) made them. */
  readonly warnings: (readonly Diagnostic[])[];
  private readonly byService = new Map<string, number[]>();
  private readonly podReaders: number[] = [];

  constructor(basis: EndpointBasis, upstreams: readonly UpstreamIR[], memo: EndpointMemo) {
    this.slices = new Map(basis.slices);
    for (const kind of ENDPOINT_KINDS)
      for (const r of basis.index.all(kind)) this.byName.set(nameKey(r.kind, r.namespace, r.name), r);
    this.upstreams = upstreams.filter((u) => u.target.kind === 'service');
    // The sets are the compile's (kept in the memo): this only reads their warnings.
    this.warnings = this.upstreams.map((u) => resolveEndpointSet(this, u, memo).warnings);
    this.upstreams.forEach((u, i) => {
      const key = serviceKeyOf(u);
      const list = this.byService.get(key);
      if (list) list.push(i);
      else this.byService.set(key, [i]);
      if (readsPods(u)) this.podReaders.push(i);
    });
  }

  /** The indexes of the upstreams whose endpoint sets a change may have changed, in order. */
  affected(touched: Touched): number[] {
    const out = new Set<number>(touched.pods ? this.podReaders : []);
    for (const service of touched.services) for (const i of this.byService.get(service) ?? []) out.add(i);
    return [...out].sort((a, b) => a - b);
  }

  pod(ref: NamespacedName): Resource | undefined {
    return this.byName.get(nameKey('Pod', ref.namespace, ref.name));
  }

  /**
   * Applies a change; what it touched. Undefined when it is more than new
   * endpoint sets: a Service gains its first slice or loses its last (its
   * cluster turns between EDS and DNS), or a name is taken twice (an
   * error); the view is then left half changed, for the full compile to
   * replace.
   */
  apply(removed: readonly Resource[], added: readonly Resource[]): Touched | undefined {
    /** The Services whose slices change, and whether they had any. */
    const had = new Map<string, boolean>();
    const touch = (r: Resource) => {
      const service = serviceOf(r);
      if (service !== undefined && !had.has(service)) had.set(service, this.slices.has(service));
      return service;
    };
    let pods = false;
    for (const r of removed) {
      const key = nameKey(r.kind, r.namespace, r.name);
      if (this.byName.get(key) !== r) return undefined;
      pods ||= r.kind === 'Pod';
      this.byName.delete(key);
      const service = touch(r);
      if (service === undefined) continue;
      const left = this.slices.get(service)!.filter((s) => s !== r);
      if (left.length > 0) this.slices.set(service, left);
      else this.slices.delete(service);
    }
    for (const r of added) {
      const key = nameKey(r.kind, r.namespace, r.name);
      if (this.byName.has(key)) return undefined;
      pods ||= r.kind === 'Pod';
      this.byName.set(key, r);
      const service = touch(r);
      if (service === undefined) continue;
      // In the order of a full compile's index: by name within the namespace.
      const list = [...(this.slices.get(service) ?? []), r].sort((a, b) => compareText(a.name, b.name));
      this.slices.set(service, list);
    }
    for (const [service, before] of had) if (before !== this.slices.has(service)) return undefined;
    return { services: new Set(had.keys()), pods };
  }
}

/**
 * The output after EndpointSlices and Pods changed (`removed` and `added`
 * resources, each validated without a diagnostic), made from `base`; with
 * it, the base to start the next change from. Undefined: the change needs
 * the full compile.
 */
export function endpointUpdate(
  base: EndpointBase,
  removed: readonly Resource[],
  added: readonly Resource[],
  memos: EndpointMemos,
): { result: Output; base?: EndpointBase } | undefined {
  const model = base.result.ir;
  const view = (base.view ??= new EndpointView(base.basis, model.upstreams, memos.endpoints));
  const touched = view.apply(removed, added);
  if (!touched) return undefined;
  const before = model.endpoints ?? [];
  let sets: EndpointSetIR[] = before;
  const changed = new Map<string, Json>();
  for (const i of view.affected(touched)) {
    const { set, warnings } = resolveEndpointSet(view, view.upstreams[i], memos.endpoints);
    view.warnings[i] = warnings;
    if (set === before[i]) continue;
    if (sets === before) sets = [...before];
    sets[i] = set;
    changed.set(set.cluster, endpointAssignment(set, memos.translate));
  }
  if (changed.size === 0) return { result: base.result, base };
  const errors = verifyEndpoints(changed, memos.verify);
  if (errors.length > 0) return { result: { diagnostics: errors } };
  const withChanged = (set: XdsSet): XdsSet => {
    const endpoints = new Map(set.endpoints);
    for (const [name, json] of changed) if (endpoints.has(name)) endpoints.set(name, json);
    return { ...set, endpoints };
  };
  const { xds, proxies } = base.result;
  let served: Pick<Output, 'xds' | 'proxies'>;
  if (proxies) {
    const sets = new Map([...proxies].map(([proxy, set]) => [proxy, withChanged(set)] as const));
    const chosen = [...proxies].find(([, set]) => set === xds)?.[0];
    served = { xds: chosen === undefined ? undefined : sets.get(chosen), proxies: sets };
  } else served = { xds: xds && withChanged(xds) };
  const result = {
    ir: { ...model, endpoints: sets },
    ...served,
    diagnostics: sortDiagnostics([...base.others, ...unique(view.warnings.flat())]),
  };
  return { result, base: { ...base, result } };
}

/** Without repeats, as resolve reports them. */
function unique(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = JSON.stringify(d);
    return !seen.has(key) && !!seen.add(key);
  });
}
