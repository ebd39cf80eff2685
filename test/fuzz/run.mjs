#!/usr/bin/env node
// `npm run fuzz -- --cases 10000 [--seed 7] [--case 123]`: the fuzz test with more cases.
// Replays one case with --case (its directory is kept and printed).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    case: { type: 'string' },
  },
});
for (const [name, value] of Object.entries(values)) {
  if (value !== undefined && !/^\d+$/.test(value)) {
    console.error(`fuzz: --${name} takes a whole number, got "${value}"`);
    process.exit(2);
  }
}
const env = {
  ...process.env,
  FUZZ_CASES: values.cases,
  FUZZ_SEED: values.seed,
  ...(values.case !== undefined ? { FUZZ_CASE: values.case } : {}),
};
const jest = [
  '--disable-warning=ExperimentalWarning',
  '--experimental-vm-modules',
  'node_modules/jest/bin/jest.js',
  'test/fuzz/fuzz.test.ts',
];
const run = spawnSync(process.execPath, jest, { stdio: 'inherit', env });
process.exit(run.status ?? 1);
