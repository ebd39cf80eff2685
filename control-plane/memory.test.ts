import { jest } from '@jest/globals';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { ControlPlane } from './control.js';
import { collectWhenQuiet, fullCollection, IdleCollector } from './memory.js';
import { XdsServer } from './server/server.js';
import { testLogger } from '../harness/log-check.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// The collector's clock (Date, performance, timers) is jest's in the tests of its timing: no real waiting, nothing that load can shift.
afterEach(() => jest.useRealTimers());

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

test('collections run once quiet, twice more spaced out, and every activity puts them off', () => {
  jest.useFakeTimers();
  const at: number[] = [];
  const collector = new IdleCollector(() => at.push(Date.now()), 600);
  const start = Date.now();
  collector.activity();
  expect(collector.pending).toBe(true);
  jest.advanceTimersByTime(300);
  collector.activity();
  jest.advanceTimersByTime(300);
  // Quiet for 300 ms of the 600 needed since the last activity: nothing yet.
  expect(at).toEqual([]);
  jest.advanceTimersByTime(600);
  expect(at).toHaveLength(1);
  expect(at[0]! - start).toBe(900);
  jest.advanceTimersByTime(2800);
  expect(at).toHaveLength(3);
  expect([at[1]! - at[0]!, at[2]! - at[1]!]).toEqual([1000, 1000]);
  // Then nothing until the next activity.
  jest.advanceTimersByTime(300);
  expect(collector.collections).toBe(3);
  expect(collector.pending).toBe(false);
  collector.close();
});

test('a collection that takes long holds the next one back: at most 5% of the time in pauses', () => {
  jest.useFakeTimers();
  const at: number[] = [];
  const start = Date.now();
  const collector = new IdleCollector(() => {
    at.push(Date.now());
    // Takes 100 ms.
    jest.advanceTimersByTime(100);
  }, 10);
  collector.activity();
  jest.advanceTimersByTime(1500);
  // The first ran after 10 ms and took 100 ms: the next waits 2 s (20 times the pause) after it ended, not the usual 1 s.
  expect(at).toEqual([start + 10]);
  jest.advanceTimersByTime(1200);
  expect(at).toEqual([start + 10, start + 10 + 100 + 2000]);
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
