// Builds dist/ once before the suite, so tests that run the real binaries
// (bin/sluice.js, bin/sluice-extauth.js, ...) never run stale code. Type
// errors do not stop the tests: tsc still emits, and type-checking is its own
// step (`npm run typecheck`, run by scripts/test-all.sh before the tests).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

export default function globalSetup() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { encoding: 'utf8' });
  if (run.error) throw run.error;
  // Exit 2 is "emitted with type errors"; anything else means nothing usable was built.
  if (run.status !== 0 && run.status !== 2) throw new Error(`building dist/ failed:\n${run.stdout}${run.stderr}`);
  if (run.status === 2) console.warn('\n(dist/ built with type errors; `npm run typecheck` lists them)');
}
