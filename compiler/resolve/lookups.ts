/**
 * Lookups one resource makes while it resolves, recorded, so a later run can
 * tell whether its result still holds: it does when every lookup answers the
 * same (the same objects) against the new index. This is what makes an edit
 * reach exactly the resources that read what changed (a Service's port, a
 * Secret, an Upstream), without a reverse index to keep up to date.
 */
import { fieldError, notFound as notFoundError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { NamespacedName, UpstreamIR } from '../ir/model.js';
import type { Resource } from '../validate/validate.js';
import { refOf, showRef, type FindUpstream, type ResourceIndex } from './index.js';
import type { ServicePort, UpstreamCatalog } from './upstreams.js';

export type Dependency =
  | { kind: 'upstream'; ref: NamespacedName; answer: ReturnType<UpstreamCatalog['lookup']> }
  | { kind: 'servicePort'; ref: NamespacedName; port: number; answer: ReturnType<UpstreamCatalog['servicePort']> }
  | { kind: 'discovered'; name: string; answer: ServicePort[] }
  | { kind: 'resource'; resourceKind: string; ref: NamespacedName; answer: Resource | undefined }
  | { kind: 'all'; resourceKind: string; answer: Resource[] };

export class Lookups {
  readonly deps: Dependency[] = [];
  /** Probes made so far, so each is recorded once (a VirtualService's routes often share one Service port). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly index: ResourceIndex,
    private readonly catalog: UpstreamCatalog,
  ) {}

  upstream(ref: NamespacedName): ReturnType<UpstreamCatalog['lookup']> {
    const answer = this.catalog.lookup(ref);
    if (this.first(`u|${ref.namespace}|${ref.name}`)) this.deps.push({ kind: 'upstream', ref, answer });
    return answer;
  }

  servicePort(ref: NamespacedName, port: number): ReturnType<UpstreamCatalog['servicePort']> {
    const answer = this.catalog.servicePort(ref, port);
    if (this.first(`p|${ref.namespace}|${ref.name}|${port}`))
      this.deps.push({ kind: 'servicePort', ref, port, answer });
    return answer;
  }

  /** The Service ports a discovered Upstream of this name comes from (what an error about a reference to it says). */
  discoveredFrom(name: string): ServicePort[] {
    const answer = this.catalog.discoveredFrom(name);
    if (this.first(`d|${name}`)) this.deps.push({ kind: 'discovered', name, answer });
    return answer;
  }

  resource(resourceKind: string, ref: NamespacedName): Resource | undefined {
    const answer = this.index.get(resourceKind, ref);
    if (this.first(`r|${resourceKind}|${ref.namespace}|${ref.name}`))
      this.deps.push({ kind: 'resource', resourceKind, ref, answer });
    return answer;
  }

  /** Every resource of a kind, sorted (what a label selector chooses from): any addition, removal or edit answers differently. */
  all(resourceKind: string): Resource[] {
    const answer = this.index.all(resourceKind);
    if (this.first(`a|${resourceKind}`)) this.deps.push({ kind: 'all', resourceKind, answer });
    return answer;
  }

  private first(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  /** The upstream a reference names; a dangling or ambiguous one is an error on `path`. */
  findUpstream(options: { controlPlaneNamespace: string }, diagnostics: Diagnostic[]): FindUpstream {
    return (from, path, raw) => {
      const ref = refOf(raw, from);
      const upstream = this.upstream(ref);
      if (Array.isArray(upstream)) {
        const services = upstream.map((u) => (u.target.kind === 'static' ? u.name : u.target.host)).join(' and ');
        diagnostics.push(
          fieldError(
            'resolve',
            from.origin,
            path,
            `Upstream name "${ref.name}" is discovered from more than one Service (${services})`,
            `route to the Service with routeAction.single.kube, or define an Upstream named "${ref.name}" in namespace "${options.controlPlaneNamespace}"`,
          ),
        );
        return undefined;
      }
      if (!upstream) {
        diagnostics.push(notFound(ref, this.discoveredFrom(ref.name), options.controlPlaneNamespace, from, path));
        return undefined;
      }
      return upstream;
    };
  }
}

/** The error of a reference that finds no Upstream: when a Service gives the name, the namespace is what is wrong, and the hint says where discovered Upstreams live. */
function notFound(
  ref: NamespacedName,
  sources: ServicePort[],
  controlPlaneNamespace: string,
  from: Resource,
  path: FieldPath,
): Diagnostic {
  if (sources.length === 0) {
    return notFoundError(
      fieldError(
        'resolve',
        from.origin,
        path,
        `Upstream ${showRef(ref)} not found`,
        `define an Upstream (gloo.gateway.example/v1) named "${ref.name}" in namespace "${ref.namespace}", or a v1 Service whose port gives that discovered name (<namespace>-<service>-<port>)`,
      ),
      `Upstream ${showRef(ref)}`,
    );
  }
  const services = sources.map((s) => `Service ${showRef(s.service)} port ${s.port}`).join(' and ');
  const own = sources.length === 1 ? ` or "${sources[0].service.namespace}" (the Service's own)` : '';
  return fieldError(
    'resolve',
    from.origin,
    path,
    `Upstream ${showRef(ref)} not found: "${ref.name}" is discovered from ${services}, in namespace "${controlPlaneNamespace}" (the --namespace setting), not "${ref.namespace}"`,
    `reference it in namespace "${controlPlaneNamespace}"${own}, or run sluice with --namespace ${ref.namespace} if that is where your discovered Upstreams live`,
  );
}

/** What changed since the last run: the upstream catalog (any Upstream or Service), and which kinds of resources. */
export interface Changes {
  catalog: boolean;
  kinds: ReadonlySet<string>;
}

/** Whether every recorded lookup answers the same now; lookups into what did not change are not made again. */
export function stillValid(
  deps: readonly Dependency[],
  index: ResourceIndex,
  catalog: UpstreamCatalog,
  changes: Changes,
): boolean {
  for (const d of deps) {
    if (d.kind === 'resource' || d.kind === 'all' ? !changes.kinds.has(d.resourceKind) : !changes.catalog) continue;
    const now = lookAgain(d, index, catalog);
    if (!same(now, d.answer)) return false;
  }
  return true;
}

function lookAgain(d: Dependency, index: ResourceIndex, catalog: UpstreamCatalog): unknown {
  switch (d.kind) {
    case 'upstream':
      return catalog.lookup(d.ref);
    case 'servicePort':
      return catalog.servicePort(d.ref, d.port);
    case 'discovered':
      return catalog.discoveredFrom(d.name);
    case 'all':
      return index.all(d.resourceKind);
    case 'resource':
      return index.get(d.resourceKind, d.ref);
  }
}

/** Identity, looking one level into the arrays and records lookups answer with. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) || Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
