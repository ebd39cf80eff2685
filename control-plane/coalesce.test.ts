/**
 * The coalescer's runs counted under Jest's fake clock (timers,
 * setImmediate and performance.now): how many runs a pattern of calls makes,
 * never how long anything took.
 */
import { jest } from '@jest/globals';
import { coalesce } from './coalesce.js';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

function counted(timing: Parameters<typeof coalesce>[1]) {
  const runs = { count: 0 };
  const burst = coalesce(() => runs.count++, timing);
  return { runs, burst };
}

describe('trailing (files)', () => {
  test('a burst of calls is one run, after the quiet period', () => {
    const { runs, burst } = counted({ quietMs: 15 });
    for (let i = 0; i < 5; i++) {
      burst.fire();
      jest.advanceTimersByTime(5);
    }
    expect(runs.count).toBe(0);
    jest.advanceTimersByTime(15);
    expect(runs.count).toBe(1);
    burst.close();
  });

  test('a steady stream runs once per maxMs', () => {
    const { runs, burst } = counted({ quietMs: 15, maxMs: 100 });
    for (let i = 0; i < 50; i++) {
      burst.fire();
      jest.advanceTimersByTime(10);
    }
    // 500 ms of calls 10 ms apart: never quiet, so the longest wait makes the runs.
    expect(runs.count).toBe(5);
    burst.close();
  });
});

describe('leading (a cluster watch)', () => {
  test('a lone change runs at once, with no quiet period', () => {
    const { runs, burst } = counted({ quietMs: 15, maxMs: 100, leading: true });
    burst.fire();
    // Not within fire(): the calls of the same turn are gathered first.
    expect(runs.count).toBe(0);
    jest.advanceTimersByTime(0);
    expect(runs.count).toBe(1);
    expect(jest.getTimerCount()).toBe(0);
    burst.close();
  });

  test('the calls of one turn (a watch read with a burst of events) are one run', () => {
    const { runs, burst } = counted({ quietMs: 15, maxMs: 100, leading: true });
    for (let i = 0; i < 100; i++) burst.fire();
    jest.runAllTimers();
    expect(runs.count).toBe(1);
    burst.close();
  });

  test('calls following a run within the quiet period are one run more, after their burst', () => {
    const { runs, burst } = counted({ quietMs: 15, maxMs: 100, leading: true });
    burst.fire();
    jest.runOnlyPendingTimers();
    expect(runs.count).toBe(1);
    for (let i = 0; i < 5; i++) {
      jest.advanceTimersByTime(5);
      burst.fire();
    }
    expect(runs.count).toBe(1);
    jest.advanceTimersByTime(15);
    expect(runs.count).toBe(2);
    // Quiet again: the next change runs at once.
    jest.advanceTimersByTime(15);
    burst.fire();
    jest.runOnlyPendingTimers();
    expect(runs.count).toBe(3);
    burst.close();
  });

  test('nothing runs after close', () => {
    const { runs, burst } = counted({ quietMs: 15, leading: true });
    burst.fire();
    burst.close();
    jest.runAllTimers();
    expect(runs.count).toBe(0);
  });
});
