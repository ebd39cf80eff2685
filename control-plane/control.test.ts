import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { ControlPlane, type CompileOutcome } from './control.js';
import { testLogger } from '../harness/log-check.js';

const logger = testLogger();

test('recompile requests that arrive during a compile coalesce into one more run', async () => {
  const control = new ControlPlane({ paths: ['golden/single-route/input'], compileOptions: DEFAULT_OPTIONS, logger });
  const outcomes: CompileOutcome[] = [];
  control.on('compiled', (o: CompileOutcome) => outcomes.push(o));
  const runs = [control.recompile(), control.recompile(), control.recompile(), control.recompile()];
  await Promise.all(runs);
  expect(outcomes.map((o) => o.ok && o.changed)).toEqual([true, false]);
  expect(control.generation).toBe(1);
  control.close();
});

test('a failed compile keeps the last good snapshot and reports its errors; success clears them', async () => {
  const paths = ['golden/single-route/input'];
  const control = new ControlPlane({ paths, compileOptions: DEFAULT_OPTIONS, logger });
  await control.recompile();
  const good = control.snapshot!;
  paths[0] = 'golden/error-references/input';
  await control.recompile();
  expect(control.snapshot).toBe(good);
  expect(control.errors.length).toBeGreaterThan(0);
  expect(control.errors[0].file).toMatch(/error-references/);
  paths[0] = 'golden/single-route/input';
  await control.recompile();
  expect(control.errors).toEqual([]);
  expect(control.snapshot!.version).toBe(good.version);
  control.close();
});
