#!/usr/bin/env node
// `npm run build`: dist/ from `tsc -p tsconfig.build.json`, unless dist/ is
// already up to date (then it takes a few milliseconds and prints nothing).
// `npm ci` builds through `prepare`, and `npm start`, `npm run compile`,
// `npm run bench` and the test setup build first: only the first of them pays
// for tsc (about 30 s on two cores). `--force` builds whatever the state.
//
// Up to date means: the last build succeeded and, since it started, no file
// it compiled (the sources it emitted, including the test fixtures they
// import), no tsconfig, package.json nor package-lock.json has changed, no
// source has appeared under the included folders, and every file it emitted
// is still there. The list of what it emitted is dist/.build-inputs.json,
// whose modification time is the start of that build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = 'tsconfig.build.json';
const OUT = 'dist';
const RECORD = path.join(OUT, '.build-inputs.json');
const SETTINGS = ['tsconfig.json', CONFIG, 'package.json', 'package-lock.json'];

const mtime = (root, f) => {
  try {
    return statSync(path.join(root, f)).mtimeMs;
  } catch {
    return undefined;
  }
};

/** The sources tsc compiles as roots: `include` folders less `exclude` (the two forms tsconfig.build.json uses). */
function includedSources(root) {
  const abs = (f) => path.join(root, f);
  const { include = [], exclude = [] } = JSON.parse(readFileSync(abs(CONFIG), 'utf8'));
  const excludedNames = exclude
    .filter((e) => e.startsWith('**/'))
    .map((e) => new RegExp(`^${e.slice(3).replace(/\./g, '\\.').replace(/\*/g, '.*')}$`));
  const excludedDirs = new Set(exclude.filter((e) => !e.includes('*')));
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(abs(dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (excludedDirs.has(rel) || entry.name === 'node_modules' || excludedNames.some((r) => r.test(entry.name)))
        continue;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const dir of include) if (existsSync(abs(dir)) && !excludedDirs.has(dir)) walk(dir);
  return out;
}

/** Why dist/ must be built, or undefined when it is up to date. */
export function staleReason(root = ROOT) {
  let record;
  try {
    record = JSON.parse(readFileSync(path.join(root, RECORD), 'utf8'));
  } catch {
    return `${OUT}/ has not been built here`;
  }
  const built = mtime(root, RECORD);
  for (const f of [...SETTINGS, ...record.inputs]) {
    const m = mtime(root, f);
    if (m === undefined) return `${f} is gone`;
    if (m > built) return `${f} changed`;
  }
  for (const f of record.outputs) if (mtime(root, f) === undefined) return `${f} is missing`;
  const inputs = new Set(record.inputs);
  for (const f of includedSources(root)) if (!inputs.has(f)) return `${f} is new`;
  return undefined;
}

/** The source of an emitted file: dist/a/b.js <- a/b.ts, dist/a/b.json <- a/b.json (rootDir is the repository). */
function sourceOf(output) {
  const rel = path.relative(OUT, output);
  return rel.endsWith('.js') ? rel.replace(/\.js$/, '.ts') : rel;
}

/** Runs tsc; records what it emitted when it succeeded. Returns tsc's exit code (2: emitted, with type errors). `say` gets the progress lines and tsc's output. */
export function build(why, root = ROOT, say = (text) => process.stderr.write(text)) {
  const abs = (f) => path.join(root, f);
  const started = Date.now();
  say(`build: ${why}; compiling ${OUT}/ with tsc -p ${CONFIG} (about 30 s on two busy cores)...\n`);
  rmSync(abs(RECORD), { force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', CONFIG, '--listEmittedFiles'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  const emitted = [];
  for (const line of run.stdout.split('\n')) {
    if (line.startsWith('TSFILE: ')) emitted.push(path.relative(root, line.slice('TSFILE: '.length)));
    else if (line) say(`${line}\n`);
  }
  say(run.stderr);
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  if (run.status !== 0) {
    say(
      `build: tsc exited with ${run.status} after ${seconds()} s${run.status === 2 ? ` (${OUT}/ written, with the type errors above)` : ''}\n`,
    );
    return run.status ?? 1;
  }
  // Worked out once here rather than by every process (scripts/precompute.ts; a project without it has nothing to precompute).
  const precompute = path.join(OUT, 'scripts', 'precompute.js');
  if (existsSync(abs(precompute))) {
    const precomputed = spawnSync(process.execPath, [precompute], { cwd: root, encoding: 'utf8' });
    say(precomputed.stderr);
    if (precomputed.status !== 0) return precomputed.status ?? 1;
  }
  const outputs = emitted.filter((f) => !f.endsWith('.map'));
  writeFileSync(
    abs(RECORD),
    `${JSON.stringify({ inputs: [...new Set(outputs.map(sourceOf))].sort(), outputs: outputs.sort() }, null, 1)}\n`,
  );
  // The record dates from the start: a file saved during the build makes the next one build again.
  utimesSync(abs(RECORD), started / 1000, started / 1000);
  say(`build: done in ${seconds()} s\n`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const why = process.argv.includes('--force') ? 'asked (--force)' : staleReason();
  process.exitCode = why ? build(why) : 0;
}
