import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadPaths, MAX_FILE_BYTES, parseText } from './load.js';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'sluice-load-'));
}

test('multi-document YAML keeps the line of every field', () => {
  const text = ['# comment', 'apiVersion: v1', 'kind: Service', 'metadata:', '  name: a', '---', '', 'apiVersion: v1', 'kind: Service', 'metadata:', '  name: b', '  namespace: x', 'spec:', '  ports:', '    - port: 80', '    - port: 81', '---', ''].join('\n');
  const { documents, diagnostics } = parseText('f.yaml', text);
  expect(diagnostics).toEqual([]);
  expect(documents.map((d) => d.origin.resource)).toEqual(['Service default/a', 'Service x/b']);
  expect(documents[0].origin.lineOf(['metadata', 'name'])).toBe(5);
  expect(documents[1].origin.lineOf(['spec', 'ports', 1, 'port'])).toBe(16);
  // A path that does not exist points at its deepest existing parent.
  expect(documents[1].origin.lineOf(['spec', 'ports', 7])).toBe(14);
});

test('JSON is read like YAML', () => {
  const { documents } = parseText('f.json', '{\n  "apiVersion": "v1",\n  "kind": "Secret",\n  "metadata": {"name": "s"}\n}\n');
  expect(documents[0].value.kind).toBe('Secret');
  expect(documents[0].origin.lineOf(['metadata'])).toBe(4);
});

test('malformed YAML and non-mapping documents are errors with a line', () => {
  const { diagnostics } = parseText('bad.yaml', 'a: [1, 2\nb: c\n---\n- x\n');
  expect(diagnostics.length).toBeGreaterThanOrEqual(2);
  expect(diagnostics.every((d) => d.file === 'bad.yaml' && typeof d.line === 'number')).toBe(true);
  expect(diagnostics.some((d) => d.message.includes('not a mapping'))).toBe(true);
});

test('duplicate keys are an error, not a silent override', () => {
  const { diagnostics } = parseText('dup.yaml', 'kind: A\nkind: B\n');
  expect(diagnostics[0].message).toMatch(/malformed YAML/);
  expect(diagnostics[0].line).toBe(2);
});

test('directories are walked in sorted order; empty ones, missing paths, binary and huge files are clear errors', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'empty'));
  mkdirSync(path.join(dir, 'res', 'sub'), { recursive: true });
  writeFileSync(path.join(dir, 'res', 'b.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: b}\n');
  writeFileSync(path.join(dir, 'res', 'sub', 'a.yml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: a}\n');
  writeFileSync(path.join(dir, 'res', 'notes.txt'), 'ignored');
  writeFileSync(path.join(dir, 'bin.yaml'), Buffer.from([0x61, 0x00, 0x62]));
  writeFileSync(path.join(dir, 'huge.yaml'), Buffer.alloc(MAX_FILE_BYTES + 1, 0x20));

  const ok = await loadPaths([path.join(dir, 'res')]);
  expect(ok.diagnostics).toEqual([]);
  expect(ok.documents.map((d) => d.origin.resource)).toEqual(['Service default/b', 'Service default/a']);

  const bad = await loadPaths([path.join(dir, 'empty'), path.join(dir, 'missing'), path.join(dir, 'bin.yaml'), path.join(dir, 'huge.yaml')]);
  expect(bad.documents).toEqual([]);
  expect(bad.diagnostics.map((d) => d.message)).toEqual([
    'directory holds no resource files',
    'no such file or directory',
    'binary file, not YAML or JSON',
    `file is ${MAX_FILE_BYTES + 1} bytes, larger than the ${MAX_FILE_BYTES}-byte limit`,
  ]);
});

test('symbolic links are followed (a ConfigMap volume), a link loop is read once, a dangling link is skipped', async () => {
  const dir = tempDir();
  // The layout the kubelet writes: visible names link through the hidden ..data to a timestamped directory.
  mkdirSync(path.join(dir, 'cm', '..2026_11_22'), { recursive: true });
  writeFileSync(path.join(dir, 'cm', '..2026_11_22', 'svc.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: linked}\n');
  symlinkSync('..2026_11_22', path.join(dir, 'cm', '..data'));
  symlinkSync(path.join('..data', 'svc.yaml'), path.join(dir, 'cm', 'svc.yaml'));
  symlinkSync('..', path.join(dir, 'cm', 'loop'));
  symlinkSync('nowhere.yaml', path.join(dir, 'cm', 'dangling.yaml'));

  const { documents, diagnostics } = await loadPaths([path.join(dir, 'cm')]);
  expect(diagnostics).toEqual([]);
  expect(documents.map((d) => d.origin.resource)).toEqual(['Service default/linked']);
});

test('a document nested deeper than the parser can go is a clear error, not a stack trace', () => {
  const { documents, diagnostics } = parseText('deep.yaml', `apiVersion: v1\nkind: Service\n---\nspec: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
  expect(documents).toHaveLength(1);
  expect(diagnostics.map((d) => [d.line, d.message])).toEqual([[3, 'document is nested too deeply to read']]);
});

test('no input at all is an error', async () => {
  expect((await loadPaths([])).diagnostics[0].message).toBe('no input given');
});
