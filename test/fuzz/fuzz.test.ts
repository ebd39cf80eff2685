/**
 * Seeded mutation fuzzing of `sluice compile`: every case must compile to an
 * output the verifier accepts, or fail with a bounded list of errors that each
 * name a file; never a thrown exception, never an internal compiler error.
 *
 * FUZZ_CASES (default 300) and FUZZ_SEED (default 1) set the run; FUZZ_CASE
 * replays one case and keeps its directory. `npm run fuzz -- --cases 10000`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkInput, type Finding } from './oracle.js';
import { caseSeed, readGoldenInputs, writeCase } from './mutate.js';

const CASES = Number(process.env.FUZZ_CASES ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
const CHUNK = 100;

const inputs = readGoldenInputs();
const root = mkdtempSync(path.join(tmpdir(), 'sluice-fuzz-'));
const tally = { cases: 0, compiled: 0, failed: 0 };
const findings: (Finding & { index: number; mutations: string[] })[] = [];

async function runCase(index: number, keep: boolean): Promise<void> {
  const dir = path.join(root, `case-${index}`);
  mkdirSync(dir);
  const written = writeCase(caseSeed(SEED, index), inputs, dir);
  const { ok, findings: found } = await checkInput(dir);
  tally.cases++;
  if (ok) tally.compiled++;
  else tally.failed++;
  for (const f of found) findings.push({ ...f, index, mutations: [`from ${written.golden}`, ...written.mutations] });
  if (keep)
    process.stderr.write(
      `case ${index} kept in ${dir}: ${[`from ${written.golden}`, ...written.mutations].join('; ')}\n`,
    );
  else rmSync(dir, { recursive: true, force: true });
}

afterAll(() => {
  if (ONLY === undefined) rmSync(root, { recursive: true, force: true });
  const count = (p: Finding['problem']) => findings.filter((f) => f.problem === p).length;
  process.stderr.write(
    `fuzz seed ${SEED}: ${tally.cases} cases (${tally.compiled} compiled, ${tally.failed} refused with errors); ` +
      `${count('crash')} crashes, ${count('error without a file')} errors without a file, ${count('verifier refusal')} verifier refusals, ` +
      `${count('unbounded report')} unbounded reports, ${count('failed without an error')} failures without an error\n`,
  );
});

function report(list: typeof findings): string[] {
  // One line per kind of problem, with the first case that shows it (replay: FUZZ_SEED=<seed> FUZZ_CASE=<index>).
  const groups = new Map<string, typeof findings>();
  for (const f of list)
    groups.set(`${f.problem}: ${f.detail}`, [...(groups.get(`${f.problem}: ${f.detail}`) ?? []), f]);
  return [...groups].map(([key, fs]) => `${key} (${fs.length}x; case ${fs[0].index}: ${fs[0].mutations.join('; ')})`);
}

if (ONLY !== undefined) {
  test(`case ${ONLY} of seed ${SEED}`, async () => {
    await runCase(ONLY, true);
    expect(report(findings)).toEqual([]);
  });
} else {
  for (let start = 0; start < CASES; start += CHUNK) {
    const end = Math.min(CASES, start + CHUNK);
    test(`cases ${start}..${end - 1} of seed ${SEED}: no crash, every error names a file, every output verifies`, async () => {
      const before = findings.length;
      for (let i = start; i < end; i++) await runCase(i, false);
      expect(report(findings.slice(before))).toEqual([]);
    }, 600_000);
  }
}
