/**
 * Every problem a user sees is a Diagnostic: where (file:line), which resource
 * (`Kind namespace/name`), which field, what is wrong and what to do.
 */
export type Stage = 'load' | 'validate' | 'resolve' | 'translate' | 'verify';

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
}

/** Where a resource came from, so later stages can point back at file:line of any field. */
export interface Origin {
  file: string;
  /** `Kind namespace/name` */
  resource: string;
  /** 1-based line of the node at `path` (or of its nearest existing parent). */
  lineOf(path: FieldPath): number;
}

export function formatPath(path: FieldPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** A diagnostic about the field at `path` of the resource described by `origin`. */
export function fieldError(stage: Stage, origin: Origin, path: FieldPath, message: string, hint?: string): Diagnostic {
  return { stage, file: origin.file, line: origin.lineOf(path), resource: origin.resource, field: formatPath(path), message, hint };
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
  const where = d.file ? `${d.file}${d.line ? `:${d.line}` : ''}: ` : '';
  const what = d.resource ? `${d.resource}: ` : '';
  const field = d.field ? `${d.field}: ` : '';
  const hint = d.hint ? ` — ${d.hint}` : '';
  return `${where}${d.severity ?? 'error'}[${d.stage}]: ${what}${field}${d.message}${hint}`;
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
