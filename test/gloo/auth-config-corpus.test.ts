/**
 * Gloo's own documented AuthConfig examples, each compiled as the guide
 * writes it (with the Secrets the guides create) and held to the status
 * ./auth-config-corpus.ts gives it: supported compiles without an error,
 * refused is the error naming the field, and a placeholder (a value the
 * guide leaves for the reader) is an error naming its field.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { tempDir } from '../../harness/temp-dir.js';
import { CORPUS, CORPUS_SECRETS, corpusExamples } from './auth-config-corpus.js';

const examples = corpusExamples();

test('the list names every example of the file, in its order', () => {
  expect(examples.map(([id]) => id)).toEqual(Object.keys(CORPUS));
});

test.each(examples)('%s', async (id, doc) => {
  const dir = tempDir('corpus');
  await writeFile(path.join(dir, 'secrets.yaml'), readFileSync(CORPUS_SECRETS, 'utf8'));
  await writeFile(path.join(dir, 'example.yaml'), doc);
  const result = await compileFiles([dir], DEFAULT_OPTIONS);
  const errors = result.diagnostics.filter((d) => d.severity !== 'warning').map(formatDiagnostic);
  const expected = CORPUS[id]!;
  const refusedField = (field: string) => errors.some((e) => e.includes(`"${field}" is not supported`));
  switch (expected.status) {
    case 'supported':
      expect(errors).toEqual([]);
      expect(result.xds!.authConfigs.size).toBe(1);
      break;
    case 'refused':
      expect(refusedField(expected.field)).toBe(true);
      break;
    case 'placeholder':
      expect(errors.length).toBe(1);
      expect(errors[0]).toContain(`.${expected.field}: `);
      break;
  }
});
