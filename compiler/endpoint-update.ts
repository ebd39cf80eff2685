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
 * the last compile's with the new endpoint warnings. Nothing else is
 * resolved, translated or verified; the result equals a full compile's
 * (compiler/endpoint-update.test.ts compares them over random changes).
 */
import { sortDiagnostics, type Diagnostic } from './diagnostics.js';
import type { Model } from './ir/model.js';
import { SERVICE_NAME_LABEL } from './kinds/kubernetes.js';
import { compareText } from './order.js';
import { labelsOf, resolveEndpoints, type EndpointInputs, type EndpointMemo } from './resolve/endpoints.js';
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

/** The EndpointSlices and Pods as they are now: the last compile's, with the changes since applied. */
class EndpointView implements EndpointInputs {
  readonly slices: Map<string, readonly Resource[]>;
  private readonly byName = new Map<string, Resource>();

  constructor(basis: EndpointBasis) {
    this.slices = new Map(basis.slices);
    for (const kind of ENDPOINT_KINDS)
      for (const r of basis.index.all(kind)) this.byName.set(nameKey(r.kind, r.namespace, r.name), r);
  }

  pod(ref: NamespacedName): Resource | undefined {
    return this.byName.get(nameKey('Pod', ref.namespace, ref.name));
  }

  /**
   * Applies a change. False when it is more than new endpoint sets: a
   * Service gains its first slice or loses its last (its cluster turns
   * between EDS and DNS), or a name is taken twice (an error); the view is
   * then left half changed, for the full compile to replace.
   */
  apply(removed: readonly Resource[], added: readonly Resource[]): boolean {
    /** The Services whose slices change, and whether they had any. */
    const had = new Map<string, boolean>();
    const touch = (r: Resource) => {
      const service = serviceOf(r);
      if (service !== undefined && !had.has(service)) had.set(service, this.slices.has(service));
      return service;
    };
    for (const r of removed) {
      const key = nameKey(r.kind, r.namespace, r.name);
      if (this.byName.get(key) !== r) return false;
      this.byName.delete(key);
      const service = touch(r);
      if (service === undefined) continue;
      const left = this.slices.get(service)!.filter((s) => s !== r);
      if (left.length > 0) this.slices.set(service, left);
      else this.slices.delete(service);
    }
    for (const r of added) {
      const key = nameKey(r.kind, r.namespace, r.name);
      if (this.byName.has(key)) return false;
      this.byName.set(key, r);
      const service = touch(r);
      if (service === undefined) continue;
      // In the order of a full compile's index: by name within the namespace.
      const list = [...(this.slices.get(service) ?? []), r].sort((a, b) => compareText(a.name, b.name));
      this.slices.set(service, list);
    }
    for (const [service, before] of had) if (before !== this.slices.has(service)) return false;
    return true;
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
  const view = (base.view ??= new EndpointView(base.basis));
  if (!view.apply(removed, added)) return undefined;
  const model = base.result.ir;
  const before = model.endpoints ?? [];
  const { sets, warnings } = resolveEndpoints(view, model.upstreams, memos.endpoints);
  const changed = new Map<string, Json>();
  sets.forEach((set, i) => {
    if (set !== before[i]) changed.set(set.cluster, endpointAssignment(set, memos.translate));
  });
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
    diagnostics: sortDiagnostics([...base.others, ...unique(warnings)]),
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
