// Before the suite: builds dist/ (when out of date), so tests that run the
// real binaries (bin/sluice.js, bin/sluice-extauth.js, ...) never run stale
// code, and gives the run a temporary directory of its own. Type errors do
// not stop the tests: tsc still emits, and type-checking is its own step
// (`npm run typecheck`, run by scripts/test-all.sh before the tests).
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, staleReason } from '../scripts/build.mjs';

export default function globalSetup() {
  const why = staleReason();
  if (why) {
    process.stderr.write('\n');
    // Exit 2 is "emitted with type errors"; anything else means nothing usable was built.
    const status = build(why);
    if (status !== 0 && status !== 2)
      throw new Error(`building dist/ failed (tsc exited with ${status}; its errors are above)`);
    if (status === 2) console.warn('\n(dist/ built with type errors; `npm run typecheck` lists them)');
  }

  // Every test file, and every process it starts, makes its temporary files under
  // a directory of this run's own (TMPDIR is read by os.tmpdir() and mktemp), so
  // test/global-teardown.js can tell this run's leftovers from anything else's.
  const root = mkdtempSync(path.join(tmpdir(), 'sluice-test-run-'));
  // Open to every user, with the sticky bit, as the system temporary directory is: a test runs a binary as an unprivileged user on files in it.
  chmodSync(root, 0o1777);
  process.env.SLUICE_TEST_TMPDIR = root;
  process.env.TMPDIR = root;
}
