/**
 * Writes `DIR/envoy.yaml` (or .json), `DIR/extauth.json` and `DIR/graphql.json`.
 * Each file is written to a temporary name and renamed, so a reader never sees half a file.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { CompileOptions, XdsSet } from '../translate/output.js';
import { staticBootstrap } from './bootstrap.js';
import { rateLimitFiles } from './ratelimit.js';
import { yamlPieces } from './yaml.js';

export type OutputFormat = 'yaml' | 'json';

export function serialize(value: unknown, format: OutputFormat): string {
  return textOf(serializePieces(value, format));
}

/**
 * A file's text as pieces to write in order, made anew each time it is
 * iterated: a 30 MiB YAML bootstrap is never joined into one string, and
 * its pieces are made as the file is written, so they are never all in
 * memory at once either (they were the compile's peak memory). JSON is one
 * piece (`JSON.stringify`).
 */
export interface FileText extends Iterable<string> {
  /** Written owner-only: it holds the LDAP service-account passwords or TLS private keys. */
  readonly secret?: boolean;
}

function serializePieces(value: unknown, format: OutputFormat, secret = false): FileText {
  return {
    secret,
    [Symbol.iterator]: () =>
      format === 'json' ? [`${JSON.stringify(value, null, 2)}\n`][Symbol.iterator]() : yamlPieces(value),
  };
}

/** The whole text of a file (small files, tests, stdout). */
export function textOf(text: FileText): string {
  return [...text].join('');
}

export interface EmittedFiles {
  /** file name -> contents */
  [file: string]: FileText;
}

export function renderOutput(set: XdsSet, options: CompileOptions, format: OutputFormat): EmittedFiles {
  return {
    // Its Secrets are static ones, private keys and all.
    [`envoy.${format}`]: serializePieces(
      staticBootstrap(set, options),
      format,
      [...set.secrets.values()].some((s) => s.tls_certificate),
    ),
    'extauth.json': serializePieces({ resources: [...set.authConfigs.values()] }, 'json', true),
    'graphql.json': serializePieces({ resources: [...set.graphqlApis.values()] }, 'json'),
    ...rateLimitFiles(set, (value) => serializePieces(value, 'json')),
  };
}

/** The Envoy resources as `serve` serves them, one `xds.<kind>.yaml` per kind that has any (listeners, routes, clusters, endpoints, secrets with their private keys shown as "<redacted>", extensionConfigs: mesh mode's HTTP filters, virtualHosts: VHDS's). */
export function renderXds(set: XdsSet): EmittedFiles {
  const files: EmittedFiles = {};
  for (const kind of [
    'listeners',
    'routes',
    'virtualHosts',
    'clusters',
    'endpoints',
    'secrets',
    'extensionConfigs',
  ] as const) {
    const values = kind === 'secrets' ? [...set.secrets.values()].map(redactKey) : [...set[kind].values()];
    if (values.length > 0) files[`xds.${kind}.yaml`] = serializePieces(values, 'yaml');
  }
  return files;
}

function redactKey(secret: Record<string, unknown>): Record<string, unknown> {
  const cert = secret.tls_certificate as Record<string, unknown> | undefined;
  return cert ? { ...secret, tls_certificate: { ...cert, private_key: { inline_string: '<redacted>' } } } : secret;
}

/**
 * The pieces joined about 32 Ki characters at a time (a batch ends at the
 * first piece that reaches that size): one write per batch, never the whole
 * file as one string. Such batches mostly stay under V8's regular object
 * size (128 KiB, a two-byte string of 64 Ki characters): larger strings are
 * allocated in the large-object space, where each one lives until a full
 * collection. Mebibyte batches made a 31 MiB bootstrap grow the heap by
 * about 90 MiB while it was written.
 */
const BATCH_CHARACTERS = 32 * 1024;

function* batches(text: FileText): Generator<string> {
  let batch: string[] = [];
  let size = 0;
  for (const piece of text) {
    batch.push(piece);
    size += piece.length;
    if (size < BATCH_CHARACTERS) continue;
    yield batch.join('');
    batch = [];
    size = 0;
  }
  if (batch.length > 0) yield batch.join('');
}

/** Writes `files` into `dir`, and removes the files named in `stale` when present. */
export async function writeFiles(dir: string, files: EmittedFiles, stale: string[] = []): Promise<string[]> {
  await fs.mkdir(dir, { recursive: true });
  for (const name of stale) await fs.rm(path.join(dir, name), { force: true });
  const written: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const target = path.join(dir, name);
    const tmp = `${target}.tmp-${process.pid}`;
    try {
      // The text is made as it is written: a failure there leaves no temporary file behind.
      await fs.writeFile(tmp, batches(text), { mode: text.secret ? 0o600 : 0o644 });
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
    await fs.rename(tmp, target);
    written.push(target);
  }
  return written;
}
