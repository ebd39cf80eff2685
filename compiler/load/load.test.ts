import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { loadFile, loadPaths, MAX_FILE_BYTES, parseChunks, parseText } from './load.js';
import { tempDir } from '../../harness/temp-dir.js';

test('multi-document YAML keeps the line of every field', () => {
  const text = [
    '# comment',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: a',
    '---',
    '',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: b',
    '  namespace: x',
    'spec:',
    '  ports:',
    '    - port: 80',
    '    - port: 81',
    '---',
    '',
  ].join('\n');
  const { documents, diagnostics } = parseText('f.yaml', text);
  expect(diagnostics).toEqual([]);
  expect(documents.map((d) => d.origin.resource)).toEqual(['Service default/a', 'Service x/b']);
  expect(documents[0].origin.lineOf(['metadata', 'name'])).toBe(5);
  expect(documents[1].origin.lineOf(['spec', 'ports', 1, 'port'])).toBe(16);
  // A path that does not exist points at its deepest existing parent.
  expect(documents[1].origin.lineOf(['spec', 'ports', 7])).toBe(14);
});

test('JSON is read like YAML', () => {
  const { documents } = parseText(
    'f.json',
    '{\n  "apiVersion": "v1",\n  "kind": "Secret",\n  "metadata": {"name": "s"}\n}\n',
  );
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
  const dir = tempDir('load');
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

  const bad = await loadPaths([
    path.join(dir, 'empty'),
    path.join(dir, 'missing'),
    path.join(dir, 'bin.yaml'),
    path.join(dir, 'huge.yaml'),
  ]);
  expect(bad.documents).toEqual([]);
  expect(bad.diagnostics.map((d) => d.message)).toEqual([
    'directory holds no resource files',
    'no such file or directory',
    'binary file, not YAML or JSON',
    `file is ${MAX_FILE_BYTES + 1} bytes, larger than the ${MAX_FILE_BYTES}-byte limit`,
  ]);
});

test('symbolic links are followed (a ConfigMap volume), a link loop is read once', async () => {
  const dir = tempDir('load');
  // The layout the kubelet writes: visible names link through the hidden ..data to a timestamped directory.
  mkdirSync(path.join(dir, 'cm', '..2026_11_22'), { recursive: true });
  writeFileSync(
    path.join(dir, 'cm', '..2026_11_22', 'svc.yaml'),
    'apiVersion: v1\nkind: Service\nmetadata: {name: linked}\n',
  );
  symlinkSync('..2026_11_22', path.join(dir, 'cm', '..data'));
  symlinkSync(path.join('..data', 'svc.yaml'), path.join(dir, 'cm', 'svc.yaml'));
  symlinkSync('..', path.join(dir, 'cm', 'loop'));
  // A hidden dangling link (an editor's lock file) is skipped with the other hidden entries.
  symlinkSync('nowhere', path.join(dir, 'cm', '.#svc.yaml'));

  const { documents, diagnostics } = await loadPaths([path.join(dir, 'cm')]);
  expect(diagnostics).toEqual([]);
  expect(documents.map((d) => d.origin.resource)).toEqual(['Service default/linked']);
});

/** A valid file and a broken one next to whatever the test adds: the others still load and report. */
function treeWithNeighbours(): string {
  const dir = tempDir('load');
  writeFileSync(path.join(dir, 'a-good.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: good}\nspec: {}\n');
  writeFileSync(path.join(dir, 'z-bad.yaml'), 'a: [1\n');
  return dir;
}

function summary(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.file} ${d.message}`);
}

test('unreadable entries (dangling link, link loop, a path past PATH_MAX, a named pipe, a socket) are errors naming them; the other files still load', async () => {
  const dir = treeWithNeighbours();
  symlinkSync('nowhere.yaml', path.join(dir, 'dangling.yaml'));
  symlinkSync('self', path.join(dir, 'self'));
  // Directories d0..d19, each holding a 255-byte link to the next: the path through them passes 4096 bytes.
  const long = 'l'.repeat(255);
  for (let i = 0; i < 20; i++) {
    mkdirSync(path.join(dir, `d${i}`));
    if (i < 19) symlinkSync(path.join('..', `d${i + 1}`), path.join(dir, `d${i}`, long));
  }
  execFileSync('mkfifo', [path.join(dir, 'pipe.yaml')]);
  const server = net.createServer().listen(path.join(dir, 'sock.json'));
  await once(server, 'listening');
  try {
    const { documents, diagnostics } = await loadPaths([dir]);
    expect(documents.map((d) => d.origin.resource)).toEqual(['Service default/good']);
    const lines = summary(diagnostics);
    expect(lines).toContain(`${dir}/dangling.yaml cannot follow link: no such file or directory`);
    expect(lines).toContain(`${dir}/self cannot follow link: too many levels of symbolic links (a link loop)`);
    expect(lines).toContain(`${dir}/pipe.yaml a named pipe, not a regular file`);
    expect(lines).toContain(`${dir}/sock.json a socket, not a regular file`);
    expect(
      lines.some(
        (l) => l.startsWith(`${dir}/d0/${long}/${long}/`) && l.endsWith(': path is longer than the file system allows'),
      ),
    ).toBe(true);
    expect(lines).toContain(`${dir}/z-bad.yaml malformed YAML: unexpected end of the stream within a flow collection`);
    expect(diagnostics.every((d) => d.file && d.hint)).toBe(true);
  } finally {
    server.close();
  }
});

test('a named pipe given as a file, or swapped in for one, never blocks the load', async () => {
  const dir = tempDir('load');
  const pipe = path.join(dir, 'pipe.yaml');
  execFileSync('mkfifo', [pipe]);
  expect(summary((await loadPaths([pipe])).diagnostics)).toEqual([
    `${pipe} a named pipe, not a regular file or directory`,
  ]);
  // loadFile is what reads a file the walk listed: the pipe may have taken its place since.
  expect(summary((await loadFile(pipe)).diagnostics)).toEqual([`${pipe} a named pipe, not a regular file`]);
  expect(summary((await loadFile(path.join(dir, 'gone.yaml'))).diagnostics)).toEqual([
    `${dir}/gone.yaml cannot read file: no such file or directory`,
  ]);
});

test('permission denied on a directory and on a file is an error naming each (run as an unprivileged user, since root reads anything)', async () => {
  const dir = treeWithNeighbours();
  mkdirSync(path.join(dir, 'locked'));
  writeFileSync(path.join(dir, 'locked', 'x.yaml'), 'kind: X\n');
  writeFileSync(path.join(dir, 'secret.yaml'), 'kind: X\n');
  chmodSync(path.join(dir, 'locked'), 0o000);
  chmodSync(path.join(dir, 'secret.yaml'), 0o000);
  chmodSync(dir, 0o755);
  // The real binary as a user without privileges; root itself bypasses permission bits.
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const run = spawnSync(process.execPath, ['bin/sluice.js', 'validate', '-f', dir], { encoding: 'utf8', ...asUser });
  expect(run.status).toBe(1);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toEqual([
    `${dir}/locked: error[load]: cannot read directory: permission denied — make it readable by this user, or leave it out of -f`,
    `${dir}/secret.yaml: error[load]: cannot read file: permission denied — make it readable by this user, or leave it out of -f`,
    `${dir}/z-bad.yaml:2: error[load]: malformed YAML: unexpected end of the stream within a flow collection — fix the syntax; every document must be a mapping`,
    '3 errors; nothing was written',
  ]);
});

test('a document nested deeper than the parser can go is a clear error, not a stack trace', () => {
  const { documents, diagnostics } = parseText(
    'deep.yaml',
    `apiVersion: v1\nkind: Service\n---\nspec: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
  );
  expect(documents).toHaveLength(1);
  expect(diagnostics.map((d) => [d.line, d.message])).toEqual([[3, 'document is nested too deeply to read']]);
});

test('no input at all is an error', async () => {
  expect((await loadPaths([])).diagnostics[0].message).toBe('no input given');
});

test('a `kind: List` (kubectl get -o yaml of several) loads as its items, each with its own lines', () => {
  const text = [
    'apiVersion: v1',
    'items:',
    '- apiVersion: v1',
    '  kind: Service',
    '  metadata:',
    '    name: a',
    '- apiVersion: gloo.solo.io/v1',
    '  kind: Upstream',
    '  metadata:',
    '    name: b',
    '  spec:',
    '    kube: {serviceName: a, servicePort: 80}',
    '- just a string',
    'kind: List',
    'metadata:',
    '  resourceVersion: ""',
  ].join('\n');
  const { documents, diagnostics } = parseText('list.yaml', text);
  expect(documents.map((d) => d.origin.resource)).toEqual(['Service default/a', 'Upstream default/b']);
  expect(documents[1].origin.lineOf(['spec', 'kube'])).toBe(12);
  expect(diagnostics.map((d) => `${d.line}: ${d.message}`)).toEqual([
    '13: items[2] of the List in document 1 is not a mapping',
  ]);
});

test('documents kept for the next compile (compacted) are the same values: YAML aliases stay one node, a `__proto__` key stays a key', () => {
  const text = 'a: &x [1, 2]\nb: *x\n__proto__: [3]\nc: {d: [&y [4], *y]}\n';
  const kept = parseChunks('f.yaml', text, () => undefined)[0]!.loaded.documents[0]!.value;
  const once = parseChunks('f.yaml', text)[0]!.loaded.documents[0]!.value;
  expect(kept).toEqual(once);
  expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
  expect(Object.keys(kept)).toEqual(['a', 'b', '__proto__', 'c']);
  expect(kept.a).toBe(kept.b);
});

test('compacting a document of nested aliases costs its distinct nodes, not their expansion (2^40 here)', () => {
  const levels = Array.from({ length: 40 }, (_, i) => `l${i + 1}: &n${i + 1} [*n${i}, *n${i}]`);
  const text = `l0: &n0 [x, x]\n${levels.join('\n')}\n`;
  const [chunk] = parseChunks('bomb.yaml', text, () => undefined);
  expect(chunk!.loaded.diagnostics).toEqual([]);
  const doc = chunk!.loaded.documents[0]!.value as Record<string, unknown[]>;
  expect(doc.l40![0]).toBe(doc.l39);
});
