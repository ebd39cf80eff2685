/**
 * The Gloo fields a document uses that Sluice does not implement, each an
 * error that names the field, says why and what to use instead. Validate
 * reports these before any schema error of the same document: a schema hint
 * ("add prefix") would send a user with an `exact` matcher the wrong way.
 */
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import { glooFields } from '../kinds/gloo.js';
import type { KindDefinition, RefusedKind } from '../kinds/index.js';
import type { LoadedDocument } from '../load/load.js';

/** The error for a kind Sluice refuses as a whole. */
export function kindRefusal(doc: LoadedDocument, refused: RefusedKind): Diagnostic {
  return fieldError(
    'validate',
    doc.origin,
    ['kind'],
    `kind ${refused.kind} is not supported: ${refused.refused.reason}`,
    refused.refused.instead ?? `remove the ${refused.kind}`,
  );
}

/** One error per refused field present in the document's spec, in document order. */
export function glooRefusals(doc: LoadedDocument, kind: KindDefinition): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!kind.spec) return out;
  walk(doc.value.spec, kind.spec, ['spec'], (path, key, reason, instead) => {
    // Named as written (`rate_limit_configs` stays so), not as the canonical spelling walked.
    const written = String((doc.origin.written?.(path) ?? path).at(-1) ?? key);
    out.push(
      fieldError(
        'validate',
        doc.origin,
        path,
        `${JSON.stringify(written)} is not supported: ${reason}`,
        instead ?? `remove ${written}`,
      ),
    );
  });
  return out;
}

type Report = (path: FieldPath, key: string, reason: string, instead: string | undefined) => void;

/** Data of the wrong shape is left alone here: the schema reports it once nothing is refused. */
function walk(value: unknown, schema: object, path: FieldPath, report: Report): void {
  if (!isRecord(value)) return;
  const fields = glooFields(schema);
  for (const [key, child] of Object.entries(value)) {
    const field = fields.get(key);
    if (!field) continue;
    const at = [...path, key];
    if (field.gloo.support === 'refused') {
      report(at, key, field.gloo.note!, field.gloo.instead);
      continue;
    }
    if (!field.message) continue;
    if (field.shape === 'list') {
      if (Array.isArray(child)) child.forEach((item, i) => walk(item, field.message!, [...at, i], report));
    } else if (field.shape === 'map') {
      if (isRecord(child))
        for (const [name, item] of Object.entries(child)) walk(item, field.message, [...at, name], report);
    } else {
      walk(child, field.message, at, report);
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
