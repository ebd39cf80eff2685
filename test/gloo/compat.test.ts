/**
 * The Gloo compatibility the kind definitions carry: the page is the
 * definitions rendered, what ajv checks holds no refused field, and every
 * refused field of every Gloo kind is reported by validate, with its reason,
 * where it is written.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { accepted } from '../../compiler/kinds/accepted.js';
import { glooFields, GLOO } from '../../compiler/kinds/gloo.js';
import { KINDS } from '../../compiler/kinds/index.js';
import { parseText } from '../../compiler/load/load.js';
import { validateDocuments } from '../../compiler/validate/validate.js';
import { renderCompatibility } from './compat-doc.js';

const DOC = 'docs/gloo-compatibility.md';

test('docs/gloo-compatibility.md is the definitions rendered', () => {
  const rendered = renderCompatibility();
  if (process.env.UPDATE_GLOO_DOC === '1') writeFileSync(DOC, rendered);
  expect(readFileSync(DOC, 'utf8')).toBe(rendered);
});

const GLOO_KINDS = KINDS.filter((k) => k.glooApiVersion && k.spec);

type Json = Record<string, unknown>;

/**
 * A spec holding every refused field of `message` (each set to `{}`), the
 * path to each, and the Gloo remarks it carries: lists get one item, maps one
 * entry, so each refused field sits where a user would write it.
 */
function withEveryRefusal(message: object, path: (string | number)[]): { value: Json; refused: string[] } {
  const value: Json = {};
  const refused: string[] = [];
  for (const field of glooFields(message).values()) {
    const at = [...path, field.name];
    if (field.gloo.support === 'refused') {
      value[field.name] = {};
      refused.push(at.join('.'));
      continue;
    }
    if (!field.message) continue;
    const inner = withEveryRefusal(
      field.message,
      field.shape === 'list' ? [...at, 0] : field.shape === 'map' ? [...at, 'x'] : at,
    );
    if (inner.refused.length === 0) continue;
    value[field.name] =
      field.shape === 'list' ? [inner.value] : field.shape === 'map' ? { x: inner.value } : inner.value;
    refused.push(...inner.refused);
  }
  return { value, refused };
}

test.each(GLOO_KINDS.map((k) => [k.kind, k] as const))(
  '%s: every refused field is reported where it is written, with the reason',
  (_, kind) => {
    const { value, refused } = withEveryRefusal(kind.spec!, ['spec']);
    expect(refused.length).toBeGreaterThan(0);
    const text = JSON.stringify({
      apiVersion: kind.glooApiVersion,
      kind: kind.kind,
      metadata: { name: 'x' },
      spec: value,
    });
    const { diagnostics, resources } = validateDocuments(parseText('in.yaml', text).documents);
    expect(resources).toEqual([]);
    const reported = diagnostics
      .filter((d) => / is not supported: /.test(d.message))
      .map((d) => d.field!.replace(/\[(\d+)\]/g, '.$1'));
    expect(new Set(reported)).toEqual(new Set(refused));
    expect(diagnostics.length).toBe(reported.length);
  },
);

test('what ajv checks holds no refused field and no Gloo remark', () => {
  const leftovers: string[] = [];
  const visit = (schema: unknown, path: string) => {
    if (typeof schema !== 'object' || schema === null) return;
    for (const [key, child] of Object.entries(schema)) {
      if (key === GLOO) leftovers.push(path);
      visit(child, `${path}/${key}`);
    }
  };
  for (const k of KINDS) visit(accepted(k.document), k.kind);
  expect(leftovers).toEqual([]);
  // The remarks are there to be stripped: the definitions carry them.
  expect(JSON.stringify(Object.values(KINDS[0]!.document))).toContain(GLOO);
});
