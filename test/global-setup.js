// Builds dist/ once before the suite, so tests that run the real binaries
// (bin/sluice.js, bin/sluice-extauth.js, ...) never run stale code.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

export default function globalSetup() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
