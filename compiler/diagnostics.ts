/**
 * Every problem a user sees is a Diagnostic: where (file:line), which resource
 * (`Kind namespace/name`), which field, what is wrong and what to do.
 */
export type Stage = 'load' | 'validate' | 'resolve' | 'verify';

export type FieldPath = ReadonlyArray<string | number>;

export interface Diagnostic {
  stage: Stage;
  file?: string;
  line?: number;
  /** `Kind namespace/name`, when the problem belongs to one resource. */
  resource?: string;
  /** Dotted field path inside the resource, e.g. `spec.virtualHost.routes[0].matchers[0].prefix`. */
  field?: string;
  message: string;
  /** What the user should do about it. */
  hint?: string;
  /** A warning is shown but does not fail the compile; absent: an error. */
  severity?: 'warning';
  /**
   * Set on "not found" by resolve: the resource the reference names
   * (`Kind namespace/name`), so the compile can say when that resource exists
   * but was refused. Never printed; the pipeline removes it.
   */
  reference?: string;
}

/**
 * Where a resource came from, so later stages can point back at file:line of
 * any field. An object read from a Kubernetes cluster has no file (`file` is
 * ''): its diagnostics name the object and the field only, and other messages
 * place it by its apiVersion (placeOf).
 */
export interface Origin {
  file: string;
  /** An object from a cluster: its apiVersion as stored (Sluice's group or Gloo's). */
  cluster?: { apiVersion: string };
  /** `Kind namespace/name` */
  resource: string;
  /** 1-based line of the node at `path` (or of its nearest existing parent). */
  lineOf(path: FieldPath): number;
  /** The path as the user wrote it, where a name was read in another spelling (proto3 JSON's snake_case); absent: as given. */
  written?(path: FieldPath): FieldPath;
}

export function formatPath(path: FieldPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part) && part.length <= QUOTE_LIMIT) out += out ? `.${part}` : part;
    else out += `[${quote(part)}]`;
  }
  return out;
}

/** Longest part of a user's value a diagnostic shows. */
export const QUOTE_LIMIT = 80;

/**
 * Characters a terminal would act on or hide: controls (NUL, newline, ESC),
 * format characters (bidi overrides, zero-width, BOM), line separators,
 * surrogates, private use and unassigned code points.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu;

/** `text` with every unprintable character written as an escape (\u0000, \u{E0001}), so it reads as written and stays on one line. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const cp = c.codePointAt(0)!;
    return cp > 0xffff ? `\\u{${hex(cp)}}` : `\\u${hex(cp)}`;
  });
}

/** A character as messages name it: U+202E. */
export function codePoint(c: string): string {
  return `U+${hex(c.codePointAt(0)!)}`;
}

function hex(cp: number): string {
  return cp.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * A user's value for a message: JSON-quoted, unprintable characters escaped,
 * cut to QUOTE_LIMIT characters with the full length, so one huge value
 * cannot flood the output: `"aaaa…" (1048576 characters)`.
 */
export function quote(value: string): string {
  const escaped = (s: string) => printable(JSON.stringify(s).slice(1, -1));
  if (value.length <= QUOTE_LIMIT) return `"${escaped(value)}"`;
  return `"${escaped(value.slice(0, QUOTE_LIMIT))}…" (${value.length} characters)`;
}

/** `text` printable and at most `max` characters, its head and tail kept (a file path's tail names the file). */
function clip(text: string, max: number): string {
  const safe = printable(text);
  if (safe.length <= max) return safe;
  const keep = Math.floor((max - 30) / 2);
  return `${safe.slice(0, keep)}…(${safe.length} characters)…${safe.slice(-keep)}`;
}

/**
 * Bounds on each part of a printed diagnostic: a guard for text that reached
 * a message without quote(), far above any message sluice writes itself.
 */
const PART_LIMIT = { file: 300, resource: 200, field: 300, message: 600, hint: 600 } as const;

/** Most diagnostics one run prints; the rest are counted. A user fixes the first ones first. */
export const REPORT_LIMIT = 200;

/** Printed lines for a list of diagnostics: at most REPORT_LIMIT, then how many more there are. */
export function renderDiagnostics(diagnostics: Diagnostic[]): string[] {
  if (diagnostics.length <= REPORT_LIMIT) return diagnostics.map(formatDiagnostic);
  // Cut short: errors first, since they are what stops the compile.
  const ordered = [...diagnostics.filter(isError), ...diagnostics.filter((d) => !isError(d))];
  const lines = ordered.slice(0, REPORT_LIMIT).map(formatDiagnostic);
  const hidden = ordered.slice(REPORT_LIMIT);
  const errors = hidden.filter(isError).length;
  const warnings = hidden.length - errors;
  lines.push(
    `… and ${hidden.length} more not shown (${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}); fix the ones above and run again`,
  );
  return lines;
}

/** A diagnostic about the field at `path` of the resource described by `origin`. */
export function fieldError(stage: Stage, origin: Origin, path: FieldPath, message: string, hint?: string): Diagnostic {
  return {
    stage,
    file: origin.file || undefined,
    line: origin.file ? origin.lineOf(path) : undefined,
    resource: origin.resource,
    field: fieldName(origin, path),
    message,
    hint,
  };
}

/** Where `origin`'s field at `path` is, for a message that points at another resource: `file:line`, or a cluster object's apiVersion. */
export function placeOf(origin: Origin, path: FieldPath): string {
  return origin.file ? `${origin.file}:${origin.lineOf(path)}` : `${origin.cluster?.apiVersion ?? 'the cluster'}`;
}

/** A field of the resource described by `origin`, named as its file writes it. */
export function fieldName(origin: Origin, path: FieldPath): string {
  return formatPath(origin.written?.(path) ?? path);
}

/** `d`, an error that a reference finds nothing, with the resource it names (`Kind namespace/name`). */
export function notFound(d: Diagnostic, reference: string): Diagnostic {
  return { ...d, reference };
}

/** The same diagnostic as a warning: shown, but the compile still succeeds. */
export function asWarning(d: Diagnostic): Diagnostic {
  return { ...d, severity: 'warning' };
}

export function isError(d: Diagnostic): boolean {
  return d.severity !== 'warning';
}

/** `file:line: error[stage]: Kind ns/name: field: message — hint` (or `warning[stage]`) — one line per diagnostic, stable for golden files. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.file ? `${clip(d.file, PART_LIMIT.file)}${d.line ? `:${d.line}` : ''}: ` : '';
  const what = d.resource ? `${clip(d.resource, PART_LIMIT.resource)}: ` : '';
  const field = d.field ? `${clip(d.field, PART_LIMIT.field)}: ` : '';
  const hint = d.hint ? ` — ${clip(d.hint, PART_LIMIT.hint)}` : '';
  return `${where}${d.severity ?? 'error'}[${d.stage}]: ${what}${field}${clip(d.message, PART_LIMIT.message)}${hint}`;
}

export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.field ?? '').localeCompare(b.field ?? '') ||
      a.message.localeCompare(b.message),
  );
}
