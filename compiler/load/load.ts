/**
 * Load: files and directories -> documents, each able to tell the file and
 * line of every node. YAML and JSON go through the same parser (JSON is YAML 1.2).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CORE_SCHEMA, loadAll, type YAMLException } from 'js-yaml';
import { LineCounter, parseAllDocuments, isMap, isSeq, isScalar, type Document, type Node } from 'yaml';
import type { Diagnostic, FieldPath, Origin } from '../diagnostics.js';

/** One YAML/JSON document that holds a resource (not yet validated). */
export interface LoadedDocument {
  file: string;
  /** 0-based index of the document inside its file. */
  index: number;
  value: Record<string, unknown>;
  origin: Origin;
}

export interface LoadResult {
  documents: LoadedDocument[];
  diagnostics: Diagnostic[];
}

export const MAX_FILE_BYTES = 16 * 1024 * 1024;
const RESOURCE_FILE = /\.(ya?ml|json)$/i;

export async function loadPaths(paths: string[]): Promise<LoadResult> {
  const result: LoadResult = { documents: [], diagnostics: [] };
  if (paths.length === 0) {
    result.diagnostics.push({ stage: 'load', message: 'no input given', hint: 'pass resource files or directories with -f PATH' });
    return result;
  }
  const files: string[] = [];
  for (const p of paths) files.push(...(await listResourceFiles(p, result.diagnostics)));
  const seen = new Set<string>();
  for (const file of files) {
    const key = path.resolve(file);
    if (seen.has(key)) continue;
    seen.add(key);
    const { documents, diagnostics } = await loadFile(file);
    result.documents.push(...documents);
    result.diagnostics.push(...diagnostics);
  }
  return result;
}

async function listResourceFiles(p: string, diagnostics: Diagnostic[]): Promise<string[]> {
  let stat;
  try {
    stat = await fs.stat(p);
  } catch {
    diagnostics.push({ stage: 'load', file: p, message: 'no such file or directory', hint: 'check the path given with -f' });
    return [];
  }
  if (stat.isFile()) return [p];
  if (!stat.isDirectory()) {
    diagnostics.push({ stage: 'load', file: p, message: 'not a regular file or directory', hint: 'pass resource files or directories with -f PATH' });
    return [];
  }
  const found = await walk(p);
  if (found.length === 0) {
    diagnostics.push({ stage: 'load', file: p, message: 'directory holds no resource files', hint: 'resources are read from *.yaml, *.yml and *.json files' });
  }
  return found;
}

/**
 * Files under `dir`, sorted. Symbolic links are followed: a Kubernetes
 * ConfigMap volume is made of them (`resources.yaml -> ..data/resources.yaml`).
 * A directory reached twice (a link loop) is read once.
 */
async function walk(dir: string, visited = new Set<string>()): Promise<string[]> {
  const real = await fs.realpath(dir);
  if (visited.has(real)) return [];
  visited.add(real);
  const entries = await fs.readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    // A dangling link is skipped like any other non-file.
    const target = entry.isSymbolicLink() ? await fs.stat(full).catch(() => undefined) : entry;
    if (target?.isDirectory()) out.push(...(await walk(full, visited)));
    else if (target?.isFile() && RESOURCE_FILE.test(entry.name)) out.push(full);
  }
  return out;
}

export async function loadFile(file: string): Promise<LoadResult> {
  const diagnostics: Diagnostic[] = [];
  let bytes: Buffer;
  try {
    const stat = await fs.stat(file);
    if (stat.size > MAX_FILE_BYTES) {
      return { documents: [], diagnostics: [{ stage: 'load', file, message: `file is ${stat.size} bytes, larger than the ${MAX_FILE_BYTES}-byte limit`, hint: 'split the resources over several files' }] };
    }
    bytes = await fs.readFile(file);
  } catch (err) {
    return { documents: [], diagnostics: [{ stage: 'load', file, message: `cannot read file: ${(err as Error).message}`, hint: 'make it readable by this user, or leave it out of -f' }] };
  }
  if (bytes.subarray(0, 8192).includes(0)) {
    return { documents: [], diagnostics: [{ stage: 'load', file, message: 'binary file, not YAML or JSON', hint: 'remove it from the input or pass only resource files' }] };
  }
  return parseText(file, bytes.toString('utf8'));
}

/** Parses multi-document YAML/JSON text; pure, so tests and the watcher can use it on strings. */
export function parseText(file: string, text: string): LoadResult {
  const result: LoadResult = { documents: [], diagnostics: [] };
  let index = 0;
  for (const chunk of splitDocuments(text)) {
    index = parseChunk(file, chunk.text, chunk.firstLine - 1, index, result);
  }
  return result;
}

/**
 * Splits a stream at document markers. The yaml parser's cost grows faster than
 * linearly with the number of documents in one string; each document on its own
 * is linear. YAML forbids a `---` or `...` line at column 0 inside any content,
 * so such a line always starts a new document.
 */
function splitDocuments(text: string): { text: string; firstLine: number }[] {
  const chunks: { text: string; firstLine: number }[] = [];
  const marker = /^---(?=[ \t\r\n]|$)/gm;
  let start = 0;
  let line = 1;
  for (const m of text.matchAll(marker)) {
    if (m.index === 0) continue;
    chunks.push({ text: text.slice(start, m.index), firstLine: line });
    line += countLines(text, start, m.index);
    start = m.index;
  }
  chunks.push({ text: text.slice(start), firstLine: line });
  return chunks;
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Parses one chunk; returns the next document index. Values come from js-yaml
 * (fast); the positions of nodes, needed only to report an error, come from
 * the `yaml` parser on first use. Both use the YAML 1.2 core schema.
 */
function parseChunk(file: string, text: string, lineOffset: number, firstIndex: number, out: LoadResult): number {
  let values: unknown[];
  try {
    values = loadAll(text, undefined, { schema: CORE_SCHEMA, filename: file });
  } catch (err) {
    const e = err as YAMLException;
    // js-yaml recurses per nesting level; the engine's stack limit is its only bound.
    if (err instanceof RangeError) {
      out.diagnostics.push({ stage: 'load', file, line: lineOffset + 1, message: 'document is nested too deeply to read', hint: 'no resource nests more than a few dozen levels; check for runaway brackets or indentation' });
      return firstIndex;
    }
    out.diagnostics.push({ stage: 'load', file, line: lineOffset + (e.mark?.line ?? 0) + 1, message: `malformed YAML: ${e.reason ?? e.message}`, hint: 'fix the syntax; every document must be a mapping' });
    return firstIndex;
  }
  const positions = lazyPositions(text, lineOffset);
  let index = firstIndex;
  values.forEach((value, inChunk) => {
    // An empty document (e.g. a trailing `---`) is not counted.
    if (value === null || value === undefined) return;
    const docIndex = index++;
    const lineOf = (path: FieldPath) => positions(inChunk, path);
    if (typeof value !== 'object' || Array.isArray(value)) {
      out.diagnostics.push({ stage: 'load', file, line: lineOf([]), message: `document ${docIndex + 1} is not a mapping`, hint: 'a resource is a mapping with apiVersion, kind, metadata and spec' });
      return;
    }
    const record = value as Record<string, unknown>;
    out.documents.push({ file, index: docIndex, value: record, origin: { file, resource: describeResource(record), lineOf } });
  });
  return index;
}

/** Line lookup for the documents of one chunk, parsed with positions only when first asked. */
function lazyPositions(text: string, lineOffset: number): (docInChunk: number, path: FieldPath) => number {
  let parsed: { docs: Document[]; lineCounter: LineCounter } | undefined;
  return (docInChunk, path) => {
    if (!parsed) {
      const lineCounter = new LineCounter();
      parsed = { docs: parseAllDocuments(text, { lineCounter }) as Document[], lineCounter };
    }
    const { docs, lineCounter } = parsed;
    const lineAt = (offset: number) => lineOffset + lineCounter.linePos(offset).line;
    const doc = docs[docInChunk];
    if (!doc) return lineOffset + 1;
    return lineOfPath(doc, path, lineAt, lineAt(doc.contents?.range?.[0] ?? 0));
  };
}

/** `Kind namespace/name`, best effort before validation. */
export function describeResource(value: Record<string, unknown>): string {
  const kind = typeof value.kind === 'string' ? value.kind : '<no kind>';
  const meta = (value.metadata ?? {}) as Record<string, unknown>;
  const ns = typeof meta.namespace === 'string' ? meta.namespace : DEFAULT_NAMESPACE;
  const name = typeof meta.name === 'string' ? meta.name : '<no name>';
  return `${kind} ${ns}/${name}`;
}

export const DEFAULT_NAMESPACE = 'default';

/** Line of the deepest existing node along `path`; keys point at the key's line. */
function lineOfPath(doc: Document, path: FieldPath, lineAt: (offset: number) => number, fallback: number): number {
  let node: Node | null | undefined = doc.contents as Node | null;
  let line = fallback;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
      if (!pair) break;
      const key = pair.key as Node;
      if (key.range) line = lineAt(key.range[0]);
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof part === 'number') {
      const item = node.items[part] as Node | undefined;
      if (!item) break;
      if (item.range) line = lineAt(item.range[0]);
      node = item;
    } else {
      break;
    }
  }
  return line;
}
