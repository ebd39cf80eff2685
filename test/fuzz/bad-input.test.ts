/**
 * Hostile input through the real `sluice` binary: output stays bounded and on
 * one line per error, whatever the size or characters of the values.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPORT_LIMIT, renderDiagnostics, type Diagnostic } from '../../compiler/diagnostics.js';
import { tempDir } from '../../harness/temp-dir.js';

const run = promisify(execFile);

async function validate(dir: string): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, ['bin/sluice.js', 'validate', '-f', dir], {
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stderr };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

const MB = 1 << 20;

test('a 1 MB value (as a domain, a field name, a kind and a resource name) is quoted cut with its length: a few kB of output', async () => {
  const dir = tempDir('bad');
  const big = 'a'.repeat(MB);
  const docs = [
    {
      apiVersion: 'gateway.gateway.example/v1',
      kind: 'VirtualService',
      metadata: { name: 'vs' },
      spec: { virtualHost: { domains: [`${big}\n`], [big]: 1 } },
    },
    { apiVersion: 'v1', kind: big, metadata: { name: big } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: big }, spec: {} },
  ];
  writeFileSync(path.join(dir, 'big.json'), docs.map((d) => JSON.stringify(d)).join('\n---\n'));
  const { code, stderr } = await validate(dir);
  expect(code).toBe(1);
  expect(stderr.length).toBeLessThan(8 * 1024);
  const lines = stderr.trim().split('\n');
  // One error per field: the domain is too long and holds a newline, said once.
  expect(lines.filter((l) => l.includes('domains[0]'))).toHaveLength(1);
  expect(lines.find((l) => l.includes('domains[0]'))).toContain(
    `"${'a'.repeat(80)}…" (${MB + 1} characters) contains the control character U+000A`,
  );
  expect(lines.find((l) => l.includes('unknown field'))).toContain(
    `unknown field "${'a'.repeat(80)}…" (${MB} characters)`,
  );
  expect(lines.find((l) => l.includes('unknown kind'))).toContain(
    `unknown kind "${'a'.repeat(80)}…" (${MB} characters)`,
  );
  for (const line of lines.slice(0, -1)) expect(line.startsWith(path.join(dir, 'big.json'))).toBe(true);
});

test('thousands of errors: the first 200 are printed, then a count of the rest, then the total', async () => {
  const dir = tempDir('bad');
  const doc = (i: number) => `apiVersion: v1\nkind: Service\nmetadata: {name: Bad_${i}}\nspec: {ports: [{port: 0}]}\n`;
  writeFileSync(path.join(dir, 'many.yaml'), Array.from({ length: 3000 }, (_, i) => doc(i)).join('---\n'));
  const { code, stderr } = await validate(dir);
  expect(code).toBe(1);
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(REPORT_LIMIT + 2);
  expect(lines.slice(0, REPORT_LIMIT).every((l) => l.startsWith(`${path.join(dir, 'many.yaml')}:`))).toBe(true);
  expect(lines[REPORT_LIMIT]).toBe(
    '… and 5800 more not shown (5800 errors, 0 warnings); fix the ones above and run again',
  );
  expect(lines[REPORT_LIMIT + 1]).toBe('6000 errors; nothing was written');
});

test('a file name with a newline, a bidi override and an escape sequence is printed escaped, on one line', async () => {
  const dir = tempDir('bad');
  writeFileSync(path.join(dir, 'odd\n\u202e\u001b[31m.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: x}\n');
  const { stderr } = await validate(dir);
  expect(stderr.trim().split('\n')).toEqual([
    `${dir}/odd\\u000A\\u202E\\u001B[31m.yaml:1: error[validate]: Service default/x: missing required field "spec" — add spec`,
    '1 error; nothing was written',
  ]);
});

test('a report cut short shows errors before warnings', () => {
  const warning: Diagnostic = { stage: 'resolve', file: 'a.yaml', message: 'w', severity: 'warning' };
  const error: Diagnostic = { stage: 'resolve', file: 'b.yaml', message: 'e' };
  const lines = renderDiagnostics([...Array<Diagnostic>(REPORT_LIMIT).fill(warning), error]);
  expect(lines[0]).toBe('b.yaml: error[resolve]: e');
  expect(lines.at(-1)).toBe('… and 1 more not shown (0 errors, 1 warning); fix the ones above and run again');
  expect(renderDiagnostics([warning, error])).toEqual(['a.yaml: warning[resolve]: w', 'b.yaml: error[resolve]: e']);
});
