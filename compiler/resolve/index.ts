/**
 * The resource index: every validated resource by kind/namespace/name, with
 * duplicates reported. Resolvers look references up here.
 */
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { Resource } from '../validate/validate.js';
import type { NamespacedName, UpstreamIR } from '../ir/model.js';

/** A reference as written: `{name, namespace?}`. */
export type Ref = { name: string; namespace?: string };

/** Looks up the upstream a reference at `path` of `from` names; reports and returns undefined if there is none. */
export type FindUpstream = (from: Resource, path: FieldPath, raw: Ref) => UpstreamIR | undefined;

export class ResourceIndex {
  private readonly byKey = new Map<string, Resource>();

  constructor(resources: Resource[], diagnostics: Diagnostic[]) {
    for (const r of resources) {
      const key = ResourceIndex.key(r.kind, r.namespace, r.name);
      const first = this.byKey.get(key);
      if (first) {
        diagnostics.push(
          fieldError('resolve', r.origin, ['metadata', 'name'], `duplicate ${r.kind} "${r.name}" in namespace "${r.namespace}"; first defined at ${first.origin.file}:${first.origin.lineOf([])}`, 'rename one of them or remove the copy'),
        );
        continue;
      }
      this.byKey.set(key, r);
    }
  }

  static key(kind: string, namespace: string, name: string): string {
    return `${kind}|${namespace}|${name}`;
  }

  get(kind: string, ref: NamespacedName): Resource | undefined {
    return this.byKey.get(ResourceIndex.key(kind, ref.namespace, ref.name));
  }

  all(kind: string): Resource[] {
    return [...this.byKey.values()]
      .filter((r) => r.kind === kind)
      .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  }
}

/** A `{name, namespace?}` reference; the namespace defaults to the referring resource's. */
export function refOf(raw: Ref, from: Resource): NamespacedName {
  return { name: raw.name, namespace: raw.namespace ?? from.namespace };
}

export function showRef(ref: NamespacedName): string {
  return `${ref.namespace}/${ref.name}`;
}
