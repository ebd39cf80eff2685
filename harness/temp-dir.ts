/**
 * Temporary directories for a test file, removed after its last test, also
 * when tests fail: importing this module registers the removal (jest gives
 * each test file its own copy of the module, so each file removes its own).
 * Outside jest (a benchmark importing a test helper) there is no afterAll:
 * pass such helpers a directory of your own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];

// jest's global, looked up so that a benchmark (built without jest's types) can import this too.
(globalThis as { afterAll?: (fn: () => void) => void }).afterAll?.(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory `<tmp>/sluice-<what>-XXXXXX`, removed after the file's tests. */
export function tempDir(what: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `sluice-${what}-`));
  made.push(dir);
  return dir;
}
