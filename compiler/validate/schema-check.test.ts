/** The build's generated schema checks against ajv compiling the same schemas here. */
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { accepted } from '../kinds/accepted.js';
import { KINDS } from '../kinds/index.js';
import { checkName, schemaCheck } from './schema-check.js';

const BUILT = path.resolve('dist/compiler/validate/checks');

/** Every golden input document: valid ones and the broken ones of the error cases. */
function goldenDocuments(): Record<string, unknown>[] {
  const docs: Record<string, unknown>[] = [];
  for (const golden of fs.readdirSync('golden')) {
    const input = path.join('golden', golden, 'input');
    if (!fs.existsSync(input)) continue;
    for (const file of fs.readdirSync(input).filter((f) => /\.ya?ml$/.test(f)))
      for (const doc of parseAllDocuments(fs.readFileSync(path.join(input, file), 'utf8'))) {
        const value = doc.toJS() as unknown;
        if (value && typeof value === 'object' && !Array.isArray(value)) docs.push(value as Record<string, unknown>);
      }
  }
  return docs;
}

test("the build wrote every kind's check, named by its schema", () => {
  for (const definition of KINDS)
    expect({
      kind: definition.kind,
      built: fs.existsSync(path.join(BUILT, `${checkName(accepted(definition.document))}.cjs`)),
    }).toEqual({
      kind: definition.kind,
      built: true,
    });
});

test('a generated check answers as ajv compiling the schema here, errors and all', () => {
  const docs = goldenDocuments();
  let compared = 0;
  let failing = 0;
  for (const definition of KINDS) {
    const schema = accepted(definition.document);
    const generated = schemaCheck(schema);
    // Another schema's name has no generated check: this one is compiled here.
    const compiled = schemaCheck({ ...schema, $comment: 'compiled here' });
    expect(compiled).not.toBe(generated);
    for (const doc of docs.filter((d) => d.kind === definition.kind)) {
      const value = { ...doc, apiVersion: definition.apiVersion };
      const ok = generated(value);
      expect(compiled(value)).toBe(ok);
      expect(generated.errors ?? null).toEqual(compiled.errors ?? null);
      compared++;
      if (!ok) failing++;
    }
  }
  expect(compared).toBeGreaterThan(100);
  expect(failing).toBeGreaterThan(10);
});
