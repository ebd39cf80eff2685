/**
 * Envoy's API protos (from the `deps/` folder of @grpc/grpc-js-xds) and this
 * project's sidecar protos, loaded once per process into one protobufjs Root
 * with snake_case field names and protoc-gen-validate options kept.
 * Shared by the compiler's verifier, the xDS server and both sidecars.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { readRootJson, type LazyRoot } from './root-cache.js';

const require = createRequire(import.meta.url);
const XDS_DEPS = path.join(path.dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
const ENVOY_API = path.join(XDS_DEPS, 'envoy-api');
const HERE = path.dirname(fileURLToPath(import.meta.url));
/** This project's .proto files (contract/proto) are not copied by tsc: from dist/contract look in ../../contract/proto. */
const SLUICE_PROTOS = [path.join(HERE, 'proto'), path.resolve(HERE, '../../contract/proto')].find((p) =>
  fs.existsSync(path.join(p, 'sluice')),
);

/** Where `import "..."` lines are looked up, in order. */
export const INCLUDE_DIRS: readonly string[] = [
  ENVOY_API,
  path.join(XDS_DEPS, 'xds'),
  path.join(XDS_DEPS, 'googleapis'),
  path.join(XDS_DEPS, 'protoc-gen-validate'),
  // google/protobuf/descriptor.proto (custom option extensions extend it).
  path.dirname(require.resolve('protobufjs/package.json')),
  ...(SLUICE_PROTOS ? [SLUICE_PROTOS] : []),
];

/** protobufjs bundles these; they are not on disk. */
const BUNDLED = new Set(
  ['any', 'duration', 'empty', 'field_mask', 'struct', 'timestamp', 'wrappers'].map(
    (n) => `google/protobuf/${n}.proto`,
  ),
);

function findFile(target: string): string | undefined {
  for (const dir of INCLUDE_DIRS) {
    const candidate = path.join(dir, target);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

function walkProtos(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walkProtos(p, out);
    else if (entry.name.endsWith('.proto')) out.push(p);
  }
  return out;
}

const IMPORT_RE = /^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"/gm;

/**
 * Whether `file` and everything it imports exist. A handful of Envoy protos
 * import third-party trees (opencensus, prometheus) that the npm package does
 * not ship; those files are left out instead of failing. OpenTelemetry's
 * common.proto is in contract/proto.
 */
function loadable(file: string, memo: Map<string, boolean>, visiting: Set<string>): boolean {
  if (BUNDLED.has(file)) return true;
  const known = memo.get(file);
  if (known !== undefined) return known;
  if (visiting.has(file)) return true;
  visiting.add(file);
  const found = findFile(file);
  let ok = found !== undefined;
  if (found) {
    for (const m of fs.readFileSync(found, 'utf8').matchAll(IMPORT_RE)) {
      if (!loadable(m[1], memo, visiting)) ok = false;
    }
  }
  visiting.delete(file);
  memo.set(file, ok);
  return ok;
}

/**
 * Every v3 proto under envoy/ (config, extensions, service, type, admin,
 * data): loading all of them costs about the same as loading only
 * envoy/config + envoy/extensions + the two services (~0.5 s either way: the
 * shared imports dominate), and then every type URL Envoy knows resolves.
 * v2/v2alpha files import envoy/api/v2, which the package does not ship.
 */
function rootFiles(): { files: string[]; skipped: string[] } {
  const memo = new Map<string, boolean>();
  const files: string[] = [];
  const skipped: string[] = [];
  const candidates = walkProtos(path.join(ENVOY_API, 'envoy'))
    .map((f) => path.relative(ENVOY_API, f).split(path.sep).join('/'))
    .filter((f) => /\/v3(alpha)?\//.test(f))
    .sort();
  // xds/udpa types also appear in typed_config (TypedStruct, matcher inputs).
  const xdsDir = path.join(XDS_DEPS, 'xds');
  for (const sub of ['xds/type', 'xds/core', 'udpa/type']) {
    for (const f of walkProtos(path.join(xdsDir, sub)).sort())
      candidates.push(path.relative(xdsDir, f).split(path.sep).join('/'));
  }
  for (const f of candidates) (loadable(f, memo, new Set()) ? files : skipped).push(f);
  if (SLUICE_PROTOS) {
    for (const f of walkProtos(path.join(SLUICE_PROTOS, 'sluice')).sort()) {
      files.push(path.relative(SLUICE_PROTOS, f).split(path.sep).join('/'));
    }
  }
  return { files, skipped };
}

let cached: { root: protobuf.Root; lazy?: LazyRoot; loadMs: number; skipped: string[] } | undefined;

/** Parses the .proto files. */
export function parseRoot(): { root: protobuf.Root; skipped: string[] } {
  const { files, skipped } = rootFiles();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : (findFile(target) ?? target));
  // keepCase: field names stay snake_case, as in the proto files and in our JSON.
  root.loadSync(files, { keepCase: true });
  root.resolveAll();
  return { root, skipped };
}

/** Where the build writes the protos as JSON (root-cache.ts); the sources (tests) read dist/'s. */
const ROOT_JSON = [path.join(HERE, 'envoy-root.json'), path.resolve(HERE, '../dist/contract/envoy-root.json')];
export const BUILD_ROOT_JSON = ROOT_JSON[0];

/**
 * What the Root is made of: Envoy's protos are those of the installed
 * @grpc/grpc-js-xds, read by the installed protobufjs; this project's are
 * read here, since they change with the sources.
 */
export function rootKey(): string {
  const hash = createHash('sha256');
  for (const pkg of ['@grpc/grpc-js-xds', 'protobufjs'])
    hash.update(`${pkg}@${(require(`${pkg}/package.json`) as { version: string }).version}\n`);
  if (SLUICE_PROTOS)
    for (const file of walkProtos(SLUICE_PROTOS).sort())
      hash.update(`${path.relative(SLUICE_PROTOS, file)}\n`).update(fs.readFileSync(file));
  return hash.digest('hex');
}

/** The build's JSON when it is of these protos (types are then added as they are asked for), else the parsed files. */
function load() {
  if (cached) return cached;
  const started = performance.now();
  const key = rootKey();
  const lazy = ROOT_JSON.map((file) => readRootJson(file, key)).find(Boolean);
  const { root, skipped } = lazy ? { root: lazy.root, skipped: lazy.skipped } : parseRoot();
  cached = { root, lazy, loadMs: performance.now() - started, skipped };
  return cached;
}

/** The shared Root with every type in it; the first call loads it (about a second). */
export function loadRoot(): protobuf.Root {
  const { root, lazy } = load();
  lazy?.requireAll();
  return root;
}

/** How long loading took, and which Envoy files were left out for missing imports. */
export function loadStats(): { loadMs: number; skipped: readonly string[] } {
  const c = load();
  return { loadMs: c.loadMs, skipped: c.skipped };
}

const typeCache = new Map<string, protobuf.Type | null>();

/** A message type by full name (a leading `.` or a `type.googleapis.com/` prefix is allowed); undefined if unknown. */
export function findType(name: string): protobuf.Type | undefined {
  let t = typeCache.get(name);
  if (t === undefined) {
    const full = name.slice(name.lastIndexOf('/') + 1).replace(/^\./, '');
    const { root, lazy } = load();
    const found = !lazy || lazy.require(full) ? root.lookup(full) : null;
    t = found instanceof protobuf.Type ? found : null;
    typeCache.set(name, t);
  }
  return t ?? undefined;
}

/** A message type by full name; throws if the protos do not define it. */
export function lookupType(fullName: string): protobuf.Type {
  const t = findType(fullName);
  if (!t) throw new Error(`no message type ${fullName} in the loaded protos`);
  return t;
}
