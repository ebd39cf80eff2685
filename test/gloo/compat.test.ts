/**
 * The Gloo compatibility table, its page and the schemas agree: the page is
 * the table rendered, every field the table supports is in the schema, every
 * field it refuses is not accepted by the schema, and the schema accepts
 * nothing the table does not list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { GLOO_KINDS, type FieldTable } from '../../compiler/validate/gloo-fields.js';
import { SCHEMAS } from '../../compiler/validate/schemas/kinds.js';
import { renderCompatibility } from './compat-doc.js';

const DOC = 'docs/gloo-compatibility.md';

test('docs/gloo-compatibility.md is the table rendered', () => {
  const rendered = renderCompatibility();
  if (process.env.UPDATE_GLOO_DOC === '1') writeFileSync(DOC, rendered);
  expect(readFileSync(DOC, 'utf8')).toBe(rendered);
});

type Schema = { properties?: Record<string, Schema>; items?: Schema; additionalProperties?: Schema | boolean };

/** Disagreements between a table and the schema of the same message, as `path: what`. */
function disagreements(table: FieldTable, schema: Schema, path: string): string[] {
  const properties = schema.properties ?? {};
  const out: string[] = [];
  for (const [name, entry] of Object.entries(table)) {
    const field = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const at = `${path}.${name}`;
    if (entry.support === 'refused') {
      // GraphQLApi types a few refused fields loosely (`{}`); they must carry no schema of their own.
      if (field && Object.keys(field).length > 0) out.push(`${at}: refused by the table but typed by the schema`);
      continue;
    }
    if (!field) {
      out.push(`${at}: ${entry.support} by the table but not in the schema`);
      continue;
    }
    if (!entry.fields) continue;
    const inner = entry.shape === 'list' ? field.items : entry.shape === 'map' ? (field.additionalProperties as Schema) : field;
    if (!inner) out.push(`${at}: the schema has no ${entry.shape} here`);
    else out.push(...disagreements(entry.fields, inner, entry.shape === 'list' ? `${at}[]` : at));
  }
  for (const name of Object.keys(properties)) {
    if (!Object.hasOwn(table, name)) out.push(`${path}.${name}: accepted by the schema but not in the table`);
  }
  return out;
}

test('the table and the schemas agree on every field', () => {
  const problems: string[] = [];
  let kinds = 0;
  for (const [kind, k] of Object.entries(GLOO_KINDS)) {
    const schema = SCHEMAS[k.apiVersion]?.[kind] as Schema | undefined;
    // A kind refused as a whole has no schema; one with a schema is not refused.
    expect(schema === undefined).toBe(k.refused !== undefined);
    if (!schema) continue;
    kinds++;
    problems.push(...disagreements(k.spec, schema.properties!.spec, 'spec'));
  }
  expect(kinds).toBe(7);
  expect(problems).toEqual([]);
});
