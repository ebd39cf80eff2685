/**
 * The whole compiler, the one entry point every caller uses (cli, serve,
 * goldens, benchmarks, tests): load -> validate -> resolve (the IR) ->
 * translate (the xDS set) -> verify. A run with any error yields no output:
 * a broken resource never reaches Envoy. Warnings alone do not stop it; they
 * come back with the output.
 *
 * A Compiler is incremental: it keeps each file's bytes, documents and
 * validated resources (per document chunk), and each stage's memo (results by
 * the objects they came from), so compiling again after an edit re-parses and
 * re-validates the changed documents only, re-resolves the resources whose lookups now answer
 * differently, re-translates the IR objects that changed and re-verifies the
 * messages that are new. The result equals a fresh Compiler's, byte for byte
 * (the property test in pipeline.test.ts holds it to that).
 */
import { promises as fs, type Stats } from 'node:fs';
import { fieldError, isError, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { endpointUpdate, onlyEndpoints, type EndpointBase } from './endpoint-update.js';
import type { Model } from './ir/model.js';
import { listInputFiles } from './load/files.js';
import {
  binaryFile,
  describeResource,
  parseChunks,
  readResourceFile,
  type LoadedDocument,
  type LoadResult,
  type ParsedChunk,
} from './load/load.js';
import { resolve, ResolveMemo, type EndpointBasis } from './resolve/resolve.js';
import type { CompileOptions, XdsSet } from './translate/output.js';
import { filtersMeshLacks, MeshMemo, meshSet, meshXdsCluster } from './translate/mesh.js';
import { tunnelsInMesh } from './resolve/upstream-protocol-checks.js';
import { proxyModel, proxyNames, withoutUnused } from './translate/proxies.js';
import { translate, TranslateMemo } from './translate/translate.js';
import { VhdsMemo, vhdsSet } from './translate/vhds.js';
import { explainRefusedReferences } from './validate/refused-references.js';
import { validateDocuments, type Resource, type Validated } from './validate/validate.js';
import { verifySet, VerifyMemo } from './verify/verify.js';

export interface CompileResult {
  /** The IR; present when the run has no error. */
  ir?: Model;
  /**
   * The xDS set; present when the run has no error and there is one set to
   * give: the default gateway's (no Gateways), `options.proxy`'s, or the one
   * proxy's the Gateways name.
   */
  xds?: XdsSet;
  /** With Gateways and no error: the set of each proxy they name (proxies.ts). */
  proxies?: ReadonlyMap<string, XdsSet>;
  /** With output: warnings only. Without: at least one error. */
  diagnostics: Diagnostic[];
  /** The input resources that were named (valid or not), as objects the next run keeps when their document did not change. */
  resources?: readonly Resource[];
}

/** Whether one formatted field path lies inside the other (or is it). */
function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string) => x === y || y === '' || x.startsWith(`${y}.`) || x.startsWith(`${y}[`);
  return inside(a, b) || inside(b, a);
}

/**
 * The resolve errors of resources that failed their schema, in the fields
 * that did validate: one run shows a dangling reference next to a bad URL,
 * instead of after the URL is fixed. A second resolve over every named
 * resource; only its findings on the invalid ones are kept (the valid ones'
 * come from the first, which never saw invalid data), and none under a
 * field that failed its schema, since resolve reads those fields as typed.
 */
function referenceErrorsOfInvalid(validated: Validated, options: CompileOptions): Diagnostic[] {
  if (validated.invalid.length === 0) return [];
  const byResource = new Map(
    validated.invalid.map((i) => [`${i.resource.origin.file}|${i.resource.origin.resource}`, i.errorFields]),
  );
  let diagnostics: Diagnostic[];
  try {
    diagnostics = resolve([...validated.resources, ...validated.invalid.map((i) => i.resource)], options).diagnostics;
  } catch {
    // Data the schema refused may break what resolve assumes; those fields' schema errors stand alone.
    return [];
  }
  return diagnostics.filter((d) => {
    const schemaErrors = byResource.get(`${d.file}|${d.resource}`);
    return schemaErrors !== undefined && !schemaErrors.some((field) => overlaps(d.field ?? '', field));
  });
}

/** How close to a read (ms) a modification time makes the file's times untrustworthy: coarse file-system clocks tick every few ms. */
const RACY_MS = 50;

function sameStat(a: Stats, b: Stats): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;
}

/** A document chunk of a file and its validated resources. */
interface FileChunk {
  chunk: ParsedChunk;
  validated: Validated;
}

/** One file as last read: its bytes, and what loading and validating them gave, chunk by chunk. */
interface FileEntry {
  bytes: Buffer;
  /** Its stat at that read, and whether it was modified too close to the read to trust it next time. */
  stat?: Stats;
  racy?: boolean;
  chunks: FileChunk[];
  /** Its chunks' load diagnostics (or why the file could not be read or parsed) and validated resources, joined once per read, not per compile. */
  loadDiagnostics: Diagnostic[];
  validated: Validated;
}

/**
 * Objects read from a Kubernetes cluster, each under a key of the provider's
 * that stays the same across its versions (apiVersion, kind, namespace and
 * name). An object is the API server's JSON, as a watch delivers it.
 */
export type ClusterObjects = ReadonlyMap<string, ClusterObject>;
export type ClusterObject = Record<string, unknown> & { metadata?: { resourceVersion?: string } };

/** One cluster object as last compiled, and what validating it gave. */
interface ObjectEntry {
  object: ClusterObject;
  validated: Validated;
}

export class Compiler {
  private files = new Map<string, FileEntry>();
  private objects = new Map<string, ObjectEntry>();
  private readonly resolveMemo: ResolveMemo;
  private readonly translateMemo = new TranslateMemo();
  private readonly meshMemo = new MeshMemo();
  private readonly vhdsMemo = new VhdsMemo();
  /** Per proxy of a fleet: its own memo, since each proxy's listener and filters differ. */
  private proxyMemos = new Map<string, TranslateMemo>();
  private readonly verifyMemo: VerifyMemo;
  /** The last good compile, while a change of EndpointSlices and Pods alone can start from it (endpoint-update.ts). */
  private base: EndpointBase | undefined;
  /** The fast path added objects at the end of `objects`: the next full compile sorts the keys. */
  private unsorted = false;
  /** How the last compile was made: every stage, or the endpoint sets alone (endpoint-update.ts). */
  lastPath: 'full' | 'endpoints' | undefined;

  /** `incremental: false` for a compile with no next run (`compileFiles`): neither the files' bytes nor the per-resource memos are kept, which saves their memory and the time to fill them. */
  private readonly incremental: boolean;

  constructor(
    readonly options: CompileOptions,
    { incremental = true }: { incremental?: boolean } = {},
  ) {
    this.incremental = incremental;
    this.resolveMemo = new ResolveMemo(incremental);
    this.verifyMemo = new VerifyMemo(incremental);
  }

  async compile(paths: string[]): Promise<CompileResult> {
    const listed = await listInputFiles(paths);
    const files = new Map<string, FileEntry>();
    for (const file of listed.files) files.set(file, await this.file(file));
    const fast = listed.diagnostics.length === 0 ? this.fileChanges(files) : undefined;
    // Files gone from the input are forgotten, with what was made from them.
    this.files = files;
    if (fast) return fast;
    const loadDiagnostics = [...listed.diagnostics];
    const validated = emptyValidated();
    for (const entry of files.values()) {
      append(loadDiagnostics, entry.loadDiagnostics);
      appendValidated(validated, entry.validated);
    }
    return { ...this.fromResources(loadDiagnostics, validated), resources: namedResources(validated) };
  }

  /** The fast path's output when the files changed only EndpointSlices and Pods, with nothing new to say about them; else undefined. */
  private fileChanges(files: ReadonlyMap<string, FileEntry>): CompileResult | undefined {
    if (!this.base) return undefined;
    const removed: Resource[] = [];
    const added: Resource[] = [];
    for (const file of new Set([...this.files.keys(), ...files.keys()])) {
      const before = this.files.get(file);
      const after = files.get(file);
      if (before?.validated === after?.validated) continue;
      // What the files say about themselves stays as the last compile found it (the same diagnostics).
      const said = (e: FileEntry | undefined) => [...(e?.loadDiagnostics ?? []), ...(e?.validated.diagnostics ?? [])];
      if (!sameItems(said(before), said(after)) || (after?.validated.invalid.length ?? 0) > 0) return undefined;
      const now = new Set(after?.validated.resources);
      const then = new Set(before?.validated.resources);
      append(
        removed,
        (before?.validated.resources ?? []).filter((r) => !now.has(r)),
      );
      append(
        added,
        (after?.validated.resources ?? []).filter((r) => !then.has(r)),
      );
    }
    const changes = { resources: removed, diagnostics: [], invalid: [] };
    if (!onlyEndpoints(changes) || !onlyEndpoints({ ...changes, resources: added })) return undefined;
    return this.endpointsOnly(removed, added);
  }

  /**
   * Compiles the objects of a cluster. An object that is the one of the last
   * run (the same value, or the same resourceVersion) is not validated again;
   * the stages' memos work as for files. The keys are read in sorted order, so
   * the result does not depend on the order the objects arrived in.
   */
  compileObjects(objects: ClusterObjects, changed?: ReadonlySet<string>): CompileResult {
    const fast = changed && this.objectChanges(objects, changed);
    if (fast) return fast;
    const validated = emptyValidated();
    const entries = new Map<string, ObjectEntry>();
    // The last run's keys are in sorted order: when the same keys are given (an object changed, none came or went), no sort.
    const sameKeys =
      !this.unsorted && objects.size === this.objects.size && [...objects.keys()].every((key) => this.objects.has(key));
    this.unsorted = false;
    for (const key of sameKeys ? this.objects.keys() : [...objects.keys()].sort()) {
      const object = objects.get(key)!;
      const known = this.objects.get(key);
      const entry =
        known && sameObject(known.object, object)
          ? known
          : { object, validated: validateDocuments([clusterDocument(object)]) };
      entries.set(key, entry);
      appendValidated(validated, entry.validated);
    }
    this.objects = entries;
    return { ...this.fromResources([], validated), resources: namedResources(validated) };
  }

  /** The fast path's output when the objects of `changed` are EndpointSlices and Pods, before and after, that validate cleanly; else undefined. */
  private objectChanges(objects: ClusterObjects, changed: ReadonlySet<string>): CompileResult | undefined {
    if (!this.base) return undefined;
    const removed: Resource[] = [];
    const added: Resource[] = [];
    const entries = new Map<string, ObjectEntry | undefined>();
    for (const key of changed) {
      const object = objects.get(key);
      const known = this.objects.get(key);
      if (object && known && sameObject(known.object, object)) continue;
      const entry = object && { object, validated: validateDocuments([clusterDocument(object)]) };
      if (!onlyEndpoints(known?.validated) || !onlyEndpoints(entry?.validated)) return undefined;
      if (known) append(removed, known.validated.resources);
      if (entry) append(added, entry.validated.resources);
      entries.set(key, entry);
    }
    const result = this.endpointsOnly(removed, added);
    if (!result) return undefined;
    for (const [key, entry] of entries) {
      if (!entry) this.objects.delete(key);
      else {
        if (!this.objects.has(key)) this.unsorted = true;
        this.objects.set(key, entry);
      }
    }
    return result;
  }

  /** The output of the last good compile with `removed` and `added` EndpointSlices and Pods applied (endpoint-update.ts); undefined: the change needs every stage. */
  private endpointsOnly(removed: readonly Resource[], added: readonly Resource[]): CompileResult | undefined {
    const update = endpointUpdate(this.base!, removed, added, {
      endpoints: this.resolveMemo.endpoints,
      translate: this.translateMemo,
      verify: this.verifyMemo,
    });
    this.base = update?.base;
    if (update) this.lastPath = 'endpoints';
    return update?.result;
  }

  /**
   * The file's entry. A file whose size, times and inode are those of the
   * last read is not read again, unless it was modified so close to that read
   * that an edit in the same clock tick would not show in its times (git's
   * "racily clean" rule): then its bytes are compared. Of a changed file, only
   * the changed document chunks are parsed and validated again.
   */
  private async file(file: string): Promise<FileEntry> {
    const known = this.files.get(file);
    const stat = await fs.stat(file).catch(() => undefined);
    if (known?.stat && stat && !known.racy && sameStat(known.stat, stat)) return known;
    const readAt = Date.now();
    const read = await readResourceFile(file);
    if (!('bytes' in read)) return failedEntry(Buffer.alloc(0), read);
    const checked = { stat, racy: !stat || stat.mtimeMs >= readAt - RACY_MS };
    if (known && known.bytes.equals(read.bytes)) return { ...known, ...checked };
    const binary = binaryFile(file, read.bytes);
    if (binary) return failedEntry(read.bytes, binary);
    const previous = new Map(known?.chunks.map((c) => [c.chunk.text, c]));
    const chunks = parseChunks(
      file,
      read.bytes.toString('utf8'),
      this.incremental ? (text) => previous.get(text)?.chunk : undefined,
    ).map((chunk): FileChunk => {
      const kept = previous.get(chunk.text);
      return kept?.chunk === chunk ? kept : { chunk, validated: validateDocuments(chunk.loaded.documents) };
    });
    const joined = emptyValidated();
    const loadDiagnostics: Diagnostic[] = [];
    for (const { chunk, validated } of chunks) {
      append(loadDiagnostics, chunk.loaded.diagnostics);
      appendValidated(joined, validated);
    }
    // The bytes only tell the next run whether the file changed.
    return { bytes: this.incremental ? read.bytes : NO_BYTES, chunks, loadDiagnostics, validated: joined, ...checked };
  }

  private fromResources(loadDiagnostics: Diagnostic[], validated: Validated): CompileResult {
    const { options } = this;
    this.base = undefined;
    this.lastPath = 'full';
    const resolved = resolve(validated.resources, options, this.resolveMemo);
    const unsorted = explainRefusedReferences([
      ...loadDiagnostics,
      ...validated.diagnostics,
      ...resolved.diagnostics,
      ...referenceErrorsOfInvalid(validated, options),
    ]);
    const diagnostics = sortDiagnostics(unsorted);
    if (diagnostics.some(isError)) return { diagnostics };
    const good = (result: CompileResult & { ir: Model }) => this.remember(result, unsorted, resolved.endpointBasis);
    const model = resolved.model;
    const proxies = proxyNames(model);
    if (options.mesh) {
      // The team's Envoy owns the listeners: a Gateway, which declares one, has no place here.
      const gatewayErrors = model.gateways.map((g) =>
        fieldError(
          'resolve',
          g.origin,
          ['kind'],
          'mesh mode (serve --mesh) serves routes, clusters and HTTP filters into listeners your Envoy owns; a Gateway declares a listener',
          'remove the Gateway from the inputs, or serve without --mesh',
        ),
      );
      const unserved = filtersMeshLacks(model).map(({ vh, filterName }) =>
        fieldError(
          'resolve',
          vh.origin,
          ['spec', 'virtualHost'],
          `mesh mode (serve --mesh) serves the HTTP filters that can wait idle in your Envoy's list (docs/mesh.md); this virtual host needs ${filterName}, which has no idle form, so its settings would do nothing there`,
          'serve this VirtualService from a Sluice gateway (serve without --mesh), or remove what needs the filter',
        ),
      );
      const meshErrors = [...gatewayErrors, ...tunnelsInMesh(model.upstreams), ...unserved];
      if (meshErrors.length > 0) return { diagnostics: sortDiagnostics([...diagnostics, ...meshErrors]) };
    }
    if (proxies.length === 0) {
      const translated = translate(model, options, this.translateMemo);
      const xds = options.mesh ? meshSet(translated, options, options.mesh, this.meshMemo) : translated;
      // Mesh mode's config sources name the cluster to serve that `sluice bootstrap --mesh` puts in the team's bootstrap.
      const verifyErrors = verifySet(
        xds,
        this.verifyMemo,
        options.mesh ? new Set([meshXdsCluster(options.mesh)]) : undefined,
      );
      if (verifyErrors.length > 0) return { diagnostics: verifyErrors };
      // Only warnings are left: the output is good, and they are shown with it.
      return good({ ir: model, xds: this.served(xds), diagnostics });
    }
    const sets = new Map<string, XdsSet>();
    const memos = new Map<string, TranslateMemo>();
    for (const proxy of proxies) {
      const memo = this.proxyMemos.get(proxy) ?? new TranslateMemo();
      memos.set(proxy, memo);
      const set = withoutUnused(translate(proxyModel(model, proxy), options, memo));
      const verifyErrors = verifySet(set, this.verifyMemo);
      if (verifyErrors.length > 0) return { diagnostics: verifyErrors };
      sets.set(proxy, this.served(set));
    }
    this.proxyMemos = memos;
    if (options.proxy !== undefined && !sets.has(options.proxy)) {
      return {
        diagnostics: [
          ...diagnostics,
          {
            stage: 'resolve',
            message: `no Gateway names proxy ${JSON.stringify(options.proxy)}: the Gateways name ${proxies.map((p) => JSON.stringify(p)).join(', ')}`,
            hint: "give --proxy one of those names, or add it to a Gateway's proxyNames",
          },
        ],
      };
    }
    const xds =
      options.proxy !== undefined ? sets.get(options.proxy) : sets.size === 1 ? sets.values().next().value : undefined;
    return good({ ir: model, xds, proxies: sets, diagnostics });
  }

  /** A good compile's result, kept as the base of the next endpoint change (not in mesh mode, whose names it would have to rename). */
  private remember(result: CompileResult & { ir: Model }, unsorted: Diagnostic[], basis: EndpointBasis): CompileResult {
    if (this.incremental && !this.options.mesh) {
      const warnings = new Set(basis.warnings);
      this.base = { result, others: unsorted.filter((d) => !warnings.has(d)), basis };
    }
    return result;
  }

  /** The verified set in the shape it is served: with VHDS, virtual hosts split from their route configurations (after verify, which checks them together). */
  private served(set: XdsSet): XdsSet {
    return this.options.vhds ? vhdsSet(set, this.vhdsMemo) : set;
  }
}

const NO_BYTES = Buffer.alloc(0);

function sameObject(a: ClusterObject, b: ClusterObject): boolean {
  const version = a.metadata?.resourceVersion;
  return a === b || (version !== undefined && version === b.metadata?.resourceVersion);
}

/** A cluster object as a document: no file or line; diagnostics name it (`Kind namespace/name`) and the field. */
function clusterDocument(object: ClusterObject): LoadedDocument {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  return {
    file: '',
    index: 0,
    value: object,
    origin: { file: '', resource: describeResource(object), lineOf: () => 0, cluster: { apiVersion } },
  };
}

/** A file that cannot be read or parsed at all: its diagnostics only. */
function failedEntry(bytes: Buffer, failed: LoadResult): FileEntry {
  return { bytes, chunks: [], loadDiagnostics: failed.diagnostics, validated: emptyValidated() };
}

function namedResources(validated: Validated): Resource[] {
  return [...validated.resources, ...validated.invalid.map((i) => i.resource)];
}

function emptyValidated(): Validated {
  return { resources: [], invalid: [], diagnostics: [] };
}

function appendValidated(target: Validated, source: Validated): void {
  append(target.resources, source.resources);
  append(target.invalid, source.invalid);
  append(target.diagnostics, source.diagnostics);
}

/** Whether two lists hold the same objects in the same order. */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** `target.push(...items)` without spreading a large array into arguments. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** One full compile of `paths`. */
export function compileFiles(paths: string[], options: CompileOptions): Promise<CompileResult> {
  return new Compiler(options, { incremental: false }).compile(paths);
}
