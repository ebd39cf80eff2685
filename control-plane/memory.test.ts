import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { ControlPlane } from './control.js';
import { collectWhenQuiet, fullCollection, IdleCollector } from './memory.js';
import { XdsServer } from './server/server.js';
import { testLogger } from '../harness/log-check.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the full collection frees what nothing refers to any more', async () => {
  const collect = fullCollection();
  let garbage: object | undefined = { payload: 'x'.repeat(1000) };
  const ref = new WeakRef(garbage);
  garbage = undefined;
  // A WeakRef's target is kept until the end of the current job.
  await sleep(0);
  collect();
  expect(ref.deref()).toBeUndefined();
});

test('collections run once quiet, twice more spaced out, and every activity puts them off', async () => {
  const at: number[] = [];
  const collector = new IdleCollector(() => at.push(Date.now()), 600);
  const start = Date.now();
  collector.activity();
  expect(collector.pending).toBe(true);
  await sleep(300);
  collector.activity();
  await sleep(300);
  // Quiet for 300 ms of the 600 needed since the last activity: nothing yet.
  expect(at).toEqual([]);
  await sleep(600);
  expect(at).toHaveLength(1);
  expect(at[0]! - start).toBeGreaterThanOrEqual(900);
  await sleep(2800);
  expect(at).toHaveLength(3);
  expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(990);
  // Then nothing until the next activity.
  await sleep(300);
  expect(collector.collections).toBe(3);
  expect(collector.pending).toBe(false);
  collector.close();
});

test('a collection that takes long holds the next one back: at most 5% of the time in pauses', async () => {
  const at: number[] = [];
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  const collector = new IdleCollector(() => {
    at.push(Date.now());
    busy(100);
  }, 10);
  collector.activity();
  await sleep(1500);
  // The first ran after 10 ms and took 100 ms: the next waits 2 s (20 times the pause), not the usual 1 s.
  expect(at).toHaveLength(1);
  await sleep(1200);
  expect(at).toHaveLength(2);
  expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(2000);
  collector.close();
});

test('serve collects after a compile; close stops what is pending', async () => {
  const control = new ControlPlane({
    paths: ['golden/single-route/input'],
    compileOptions: DEFAULT_OPTIONS,
    logger: testLogger(),
  });
  const xds = new XdsServer(control.cache);
  let collections = 0;
  const collector = collectWhenQuiet(control, xds, new IdleCollector(() => collections++, 50));
  await control.recompile();
  await sleep(150);
  expect(collections).toBe(1);
  collector.close();
  // Activity after close (streams closing on shutdown) starts nothing either.
  await control.recompile();
  await sleep(1200);
  expect(collections).toBe(1);
  control.close();
});
