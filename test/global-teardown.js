// After the suite: every test removes what it made in the temporary directory,
// also when it fails (afterAll, finally). What is left in the run's own
// directory (test/global-setup.js) is listed and fails the run; the directory
// itself is removed either way.
import { readdirSync, rmSync } from 'node:fs';

export default function globalTeardown() {
  const root = process.env.SLUICE_TEST_TMPDIR;
  if (!root) return;
  const left = readdirSync(root);
  rmSync(root, { recursive: true, force: true });
  if (left.length) {
    throw new Error(
      `the tests left ${left.length} ${left.length === 1 ? 'entry' : 'entries'} in the temporary directory (a test must remove what it makes, also on failure): ${left.sort().join(', ')}`,
    );
  }
}
