/**
 * The resource index: every validated resource by kind/namespace/name, with
 * duplicates reported. Resolvers look references up here.
 */
import { fieldError, placeOf, type Diagnostic, type FieldPath } from '../diagnostics.js';
import { compareText, sortedLike } from '../order.js';
import type { Resource } from '../validate/validate.js';
import type { NamespacedName, UpstreamIR } from '../ir/model.js';
import type { Ref } from '../kinds/resource.js';

/** A reference as written: `{name, namespace?}`. */
export type { Ref };

/** Looks up the upstream a reference at `path` of `from` names; reports and returns undefined if there is none. */
export type FindUpstream = (from: Resource, path: FieldPath, raw: Ref) => UpstreamIR | undefined;

export class ResourceIndex {
  /** kind -> namespace -> name: looked up without building a key string (resolve checks every reference of every resource on each run). */
  private readonly byName = new Map<string, Map<string, Map<string, Resource>>>();
  /** The resources of each kind, duplicates left out, in input order. */
  private readonly byKind = new Map<string, Resource[]>();
  private readonly sorted = new Map<string, Resource[]>();

  /** `previous`: each kind's sorted resources of an earlier run, to sort this run's from (see sortedLike). */
  constructor(
    resources: Resource[],
    diagnostics: Diagnostic[],
    private readonly previous?: ReadonlyMap<string, Resource[]>,
  ) {
    for (const r of resources) {
      let namespaces = this.byName.get(r.kind);
      if (!namespaces) this.byName.set(r.kind, (namespaces = new Map()));
      let names = namespaces.get(r.namespace);
      if (!names) namespaces.set(r.namespace, (names = new Map()));
      const first = names.get(r.name);
      if (first) {
        diagnostics.push(
          fieldError(
            'resolve',
            r.origin,
            ['metadata', 'name'],
            `duplicate ${r.kind} "${r.name}" in namespace "${r.namespace}"; first defined at ${placeOf(first.origin, [])}`,
            'rename one of them or remove the copy',
          ),
        );
        continue;
      }
      names.set(r.name, r);
      let members = this.byKind.get(r.kind);
      if (!members) this.byKind.set(r.kind, (members = []));
      members.push(r);
    }
  }

  get(kind: string, ref: NamespacedName): Resource | undefined {
    return this.byName.get(kind)?.get(ref.namespace)?.get(ref.name);
  }

  /** The resources of `kind` by namespace, then name. */
  all(kind: string): Resource[] {
    let list = this.sorted.get(kind);
    if (!list) {
      const members = this.byKind.get(kind) ?? [];
      this.sorted.set(
        kind,
        (list = sortedLike(
          members,
          this.previous?.get(kind),
          (a, b) => compareText(a.namespace, b.namespace) || compareText(a.name, b.name),
        )),
      );
    }
    return list;
  }

  /** Whether `kind` has the very resources it had in `previous`. */
  unchanged(kind: string): boolean {
    const before = this.previous?.get(kind);
    const now = this.all(kind);
    return before !== undefined && before.length === now.length && before.every((r, i) => r === now[i]);
  }

  /** Each kind's sorted resources so far, for the next run's index. */
  sortedKinds(): Map<string, Resource[]> {
    return this.sorted;
  }
}

/** A `{name, namespace?}` reference; the namespace defaults to the referring resource's. */
export function refOf(raw: Ref, from: Resource): NamespacedName {
  return { name: raw.name, namespace: raw.namespace ?? from.namespace };
}

export function showRef(ref: NamespacedName): string {
  return `${ref.namespace}/${ref.name}`;
}
