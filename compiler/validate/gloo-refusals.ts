/**
 * The Gloo fields a document uses that Sluice does not implement, each an
 * error that names the field, says why and what to use instead. Validate
 * reports these before any schema error of the same document: a schema hint
 * ("add prefix") would send a user with an `exact` matcher the wrong way.
 */
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { LoadedDocument } from '../load/load.js';
import type { FieldTable, GlooKind } from './gloo-fields.js';

/** The error for a kind Sluice refuses as a whole (a GlooKind with `refused`). */
export function kindRefusal(doc: LoadedDocument, kind: string, refused: NonNullable<GlooKind['refused']>): Diagnostic {
  return fieldError('validate', doc.origin, ['kind'], `kind ${kind} is not supported: ${refused.reason}`, refused.instead ?? `remove the ${kind}`);
}

/** One error per refused field present in the document's spec, in document order. */
export function glooRefusals(doc: LoadedDocument, kind: GlooKind): Diagnostic[] {
  const out: Diagnostic[] = [];
  walk(doc.value.spec, kind.spec, ['spec'], (path, key, reason, instead) => {
    out.push(fieldError('validate', doc.origin, path, `${JSON.stringify(key)} is not supported: ${reason}`, instead ?? `remove ${key}`));
  });
  return out;
}

type Report = (path: FieldPath, key: string, reason: string, instead: string | undefined) => void;

/** Data of the wrong shape is left alone here: the schema reports it once nothing is refused. */
function walk(value: unknown, table: FieldTable, path: FieldPath, report: Report): void {
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const entry = Object.hasOwn(table, key) ? table[key] : undefined;
    if (!entry) continue;
    const at = [...path, key];
    if (entry.support === 'refused') {
      report(at, key, entry.note!, entry.instead);
      continue;
    }
    if (!entry.fields) continue;
    if (entry.shape === 'list') {
      if (Array.isArray(child)) child.forEach((item, i) => walk(item, entry.fields!, [...at, i], report));
    } else if (entry.shape === 'map') {
      if (isRecord(child)) for (const [name, item] of Object.entries(child)) walk(item, entry.fields, [...at, name], report);
    } else {
      walk(child, entry.fields, at, report);
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
