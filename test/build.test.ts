/**
 * scripts/build.mjs: tsc runs only when dist/ is out of date, and out of date
 * is every case that changes what tsc would write: a compiled source changed
 * (a test fixture a product file imports too), a tsconfig or the lock file
 * changed, an emitted file removed, a new source in an included folder.
 * On a small project of its own, so the repository's dist/ is left alone.
 */
import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error a plain ES module of the repository's scripts, without types
import { build, staleReason } from '../scripts/build.mjs';
import { tempDir } from '../harness/temp-dir.js';

let root: string;
const quiet = () => undefined;
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};
/** Sets `file`'s modification time `minutes` from now. */
const saved = (file: string, minutes: number) => {
  const when = Date.now() / 1000 + minutes * 60;
  utimesSync(path.join(root, file), when, when);
};

beforeAll(() => {
  root = tempDir('build');
  symlinkSync(path.resolve('node_modules'), path.join(root, 'node_modules'));
  write('package.json', '{"type": "module"}\n');
  write('package-lock.json', '{}\n');
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        outDir: 'dist',
        rootDir: '.',
        types: [],
      },
      include: ['src', 'test'],
    }),
  );
  write(
    'tsconfig.build.json',
    JSON.stringify({ extends: './tsconfig.json', include: ['src'], exclude: ['**/*.test.ts', 'test'] }),
  );
  write('src/main.ts', "import { fixture } from '../test/fixture.js';\nexport const main = fixture + 1;\n");
  write('src/main.test.ts', 'export {};\n');
  write('test/fixture.ts', 'export const fixture = 1;\n');
});

test('a first build, then up to date; each change is named as the reason to build again', () => {
  expect(staleReason(root)).toBe('dist/ has not been built here');
  expect(build('the first build', root, quiet)).toBe(0);
  expect(staleReason(root)).toBeUndefined();

  // Each change, then its undoing (so the next one is seen alone, without building in between).
  const emitted = path.join(root, 'dist/src/main.js');
  for (const [change, reason, undo] of [
    ...['src/main.ts', 'test/fixture.ts', 'tsconfig.build.json', 'package-lock.json'].map(
      (f) => [() => saved(f, 1), `${f} changed`, () => saved(f, -10)] as const,
    ),
    [() => rmSync(emitted), 'dist/src/main.js is missing', () => writeFileSync(emitted, '')],
    [
      () => write('src/more.ts', 'export const more = 2;\n'),
      'src/more.ts is new',
      () => rmSync(path.join(root, 'src/more.ts')),
    ],
  ] as const) {
    change();
    expect(staleReason(root)).toBe(reason);
    undo();
    expect(staleReason(root)).toBeUndefined();
  }
});

test('a build with type errors writes dist/ but no record: the next run builds (and reports them) again', () => {
  write('src/bad.ts', 'export const bad: number = "text";\n');
  expect(build('a type error', root, quiet)).toBe(2);
  expect(staleReason(root)).toBe('dist/ has not been built here');
  rmSync(path.join(root, 'src/bad.ts'));
  expect(build('fixed', root, quiet)).toBe(0);
  expect(staleReason(root)).toBeUndefined();
});
