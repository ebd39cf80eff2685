/**
 * Load: files and directories -> documents, each able to tell the file and
 * line of every node. YAML and JSON go through the same parser (JSON is YAML 1.2).
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import { CORE_SCHEMA, loadAll, type YAMLException } from 'js-yaml';
import { LineCounter, parseAllDocuments, isMap, isSeq, isScalar, type Document, type Node } from 'yaml';
import type { Diagnostic, FieldPath, Origin } from '../diagnostics.js';
import { fileKind, fsError, listInputFiles } from './files.js';

/** One YAML/JSON document that holds a resource (not yet validated). */
export interface LoadedDocument {
  file: string;
  /** 0-based index of the document inside its file (the items of a `kind: List` share their List's). */
  index: number;
  value: Record<string, unknown>;
  origin: Origin;
}

export interface LoadResult {
  documents: LoadedDocument[];
  diagnostics: Diagnostic[];
}

export const MAX_FILE_BYTES = 16 * 1024 * 1024;
export async function loadPaths(paths: string[]): Promise<LoadResult> {
  const listed = await listInputFiles(paths);
  const result: LoadResult = { documents: [], diagnostics: listed.diagnostics };
  for (const file of listed.files) {
    const { documents, diagnostics } = await loadFile(file);
    result.documents.push(...documents);
    result.diagnostics.push(...diagnostics);
  }
  return result;
}

export async function loadFile(file: string): Promise<LoadResult> {
  const read = await readResourceFile(file);
  return 'bytes' in read ? parseBytes(file, read.bytes) : read;
}

/** A resource file's bytes, or why it cannot be read. */
export async function readResourceFile(file: string): Promise<{ bytes: Buffer } | LoadResult> {
  const fail = (message: string, hint: string): LoadResult => ({
    documents: [],
    diagnostics: [{ stage: 'load', file, message, hint }],
  });
  let bytes: Buffer;
  let handle;
  try {
    // Non-blocking, then checked on the open descriptor: a named pipe put in a file's place never blocks the load.
    handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const stat = await handle.stat();
    if (!stat.isFile()) return fail(`${fileKind(stat)}, not a regular file`, 'resource files are regular files');
    if (stat.size > MAX_FILE_BYTES)
      return fail(
        `file is ${stat.size} bytes, larger than the ${MAX_FILE_BYTES}-byte limit`,
        'split the resources over several files',
      );
    bytes = await handle.readFile();
  } catch (err) {
    return { documents: [], diagnostics: [fsError(file, err, 'cannot read file')] };
  } finally {
    await handle?.close();
  }
  return { bytes };
}

export function parseBytes(file: string, bytes: Buffer): LoadResult {
  return binaryFile(file, bytes) ?? parseText(file, bytes.toString('utf8'));
}

/** The error for a file that is no text, if it is one. */
export function binaryFile(file: string, bytes: Buffer): LoadResult | undefined {
  if (!bytes.subarray(0, 8192).includes(0)) return undefined;
  return {
    documents: [],
    diagnostics: [
      {
        stage: 'load',
        file,
        message: 'binary file, not YAML or JSON',
        hint: 'remove it from the input or pass only resource files',
      },
    ],
  };
}

/** Parses multi-document YAML/JSON text; pure, so tests and the watcher can use it on strings. */
export function parseText(file: string, text: string): LoadResult {
  const result: LoadResult = { documents: [], diagnostics: [] };
  for (const chunk of parseChunks(file, text)) {
    result.documents.push(...chunk.loaded.documents);
    result.diagnostics.push(...chunk.loaded.diagnostics);
  }
  return result;
}

/** What one document chunk of a file parsed to. */
export interface ParsedChunk {
  /** Its text, first line and first document index: the same three parse to the same documents. */
  text: string;
  firstLine: number;
  firstIndex: number;
  loaded: LoadResult;
  /** Index of the next chunk's first document. */
  next: number;
}

/**
 * A file's text, chunk by chunk (see splitDocuments). A chunk that
 * `previous` finds by its text, at the same line and document index, is
 * taken from there, not parsed again: an edit to one resource of a large file
 * re-parses that resource only. The text alone is the lookup key: a key built
 * by concatenation would be flattened into a copy of the text when hashed.
 */
export function parseChunks(
  file: string,
  text: string,
  previous?: (text: string) => ParsedChunk | undefined,
): ParsedChunk[] {
  const chunks: ParsedChunk[] = [];
  let index = 0;
  for (const chunk of splitDocuments(text)) {
    let parsed = previous?.(chunk.text);
    if (!parsed || parsed.firstLine !== chunk.firstLine || parsed.firstIndex !== index) {
      const loaded: LoadResult = { documents: [], diagnostics: [] };
      // Only a chunk that may be kept for a next run (there is a `previous`) needs its own copy.
      const own = previous ? detached(chunk.text) : chunk.text;
      parsed = {
        text: own,
        firstLine: chunk.firstLine,
        firstIndex: index,
        loaded,
        next: parseChunk(file, own, chunk.firstLine - 1, index, loaded, previous !== undefined),
      };
    }
    chunks.push(parsed);
    index = parsed.next;
  }
  return chunks;
}

/**
 * A copy of `text` that keeps nothing else alive. A slice of a string may
 * hold the whole string it was cut from (V8 makes it a view), and a kept chunk
 * outlives its file's text: without the copy, each edit would leave the whole
 * previous text of the file alive for as long as any of its chunks is kept
 * (300 edits of different documents of one 0.6 MiB file kept 190 MiB).
 * Concatenating makes a new string, which the slice then copies out of.
 */
function detached(text: string): string {
  return ` ${text}`.slice(1);
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
function parseChunk(
  file: string,
  text: string,
  lineOffset: number,
  firstIndex: number,
  out: LoadResult,
  kept: boolean,
): number {
  let values: unknown[];
  try {
    values = loadAll(text, undefined, { schema: CORE_SCHEMA, filename: file });
    if (kept) values = compacted(values, new Map());
  } catch (err) {
    const e = err as YAMLException;
    // js-yaml recurses per nesting level; the engine's stack limit is its only bound.
    if (err instanceof RangeError) {
      out.diagnostics.push({
        stage: 'load',
        file,
        line: lineOffset + 1,
        message: 'document is nested too deeply to read',
        hint: 'no resource nests more than a few dozen levels; check for runaway brackets or indentation',
      });
      return firstIndex;
    }
    out.diagnostics.push({
      stage: 'load',
      file,
      line: lineOffset + (e.mark?.line ?? 0) + 1,
      message: `malformed YAML: ${e.reason ?? e.message}`,
      hint: 'fix the syntax; every document must be a mapping',
    });
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
      out.diagnostics.push({
        stage: 'load',
        file,
        line: lineOf([]),
        message: `document ${docIndex + 1} is not a mapping`,
        hint: 'a resource is a mapping with apiVersion, kind, metadata and spec',
      });
      return;
    }
    const record = value as Record<string, unknown>;
    if (isList(record)) {
      pushListItems(file, docIndex, record.items, lineOf, out);
      return;
    }
    out.documents.push({
      file,
      index: docIndex,
      value: record,
      origin: { file, resource: describeResource(record), lineOf },
    });
  });
  return index;
}

/**
 * `value` with every array copied to its exact length. js-yaml builds arrays
 * by pushing, and V8 gives an array room for 17 elements at its first push: a
 * document kept from one compile to the next (serve) would keep that room,
 * 13 MiB over 10,000 VirtualServices. Each array is copied once however often
 * YAML aliases repeat it (`copies`): the work stays that of the distinct nodes.
 */
function compacted<T>(value: T, copies: Map<unknown, unknown>): T {
  if (typeof value !== 'object' || value === null) return value;
  const done = copies.get(value);
  if (done) return done as T;
  if (Array.isArray(value)) {
    const copy = value.slice();
    copies.set(value, copy);
    copies.set(copy, copy);
    for (let i = 0; i < copy.length; i++) copy[i] = compacted(copy[i], copies);
    return copy as T;
  }
  copies.set(value, value);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const child = compacted(record[key], copies);
    if (child === record[key]) continue;
    // A key named `__proto__` is an own property (js-yaml defines it so); assigning would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(record, key, { value: child, writable: true, enumerable: true, configurable: true });
    else record[key] = child;
  }
  return value;
}

/** `kind: List`, as `kubectl get -o yaml` writes several resources. */
function isList(record: Record<string, unknown>): record is Record<string, unknown> & { items: unknown[] } {
  return record.apiVersion === 'v1' && record.kind === 'List' && Array.isArray(record.items);
}

/** Each item of a List is a document of its own; its lines are those of `items[i]`. */
function pushListItems(
  file: string,
  docIndex: number,
  items: unknown[],
  lineOf: (path: FieldPath) => number,
  out: LoadResult,
): void {
  items.forEach((item, i) => {
    const itemLine = (path: FieldPath) => lineOf(['items', i, ...path]);
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      out.diagnostics.push({
        stage: 'load',
        file,
        line: itemLine([]),
        message: `items[${i}] of the List in document ${docIndex + 1} is not a mapping`,
        hint: 'a resource is a mapping with apiVersion, kind, metadata and spec',
      });
      return;
    }
    const record = item as Record<string, unknown>;
    out.documents.push({
      file,
      index: docIndex,
      value: record,
      origin: { file, resource: describeResource(record), lineOf: itemLine },
    });
  });
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
