import { TokenBucket } from './status-rate.js';

/** A clock that moves only when the bucket sleeps. */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
    get at() {
      return now;
    },
  };
}

describe('the token bucket of status writes', () => {
  test('a burst of 1,000 takes `burst` at once, then one per 1/perSecond', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket({ perSecond: 10, burst: 20, now: clock.now, sleep: clock.sleep });
    const takenAt: number[] = [];
    for (let i = 0; i < 1000; i++) {
      await bucket.take();
      takenAt.push(clock.at);
    }
    expect(takenAt.slice(0, 20)).toEqual(Array(20).fill(0));
    expect(takenAt[20]).toBeCloseTo(100);
    // 980 after the burst at 10 per second: 98 s of (fake) time.
    expect(takenAt[999]).toBeCloseTo(98_000);
    for (let i = 21; i < 1000; i++) expect(takenAt[i]! - takenAt[i - 1]!).toBeCloseTo(100);
  });

  test('tokens come back while idle, up to the burst', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket({ perSecond: 2, burst: 3, now: clock.now, sleep: clock.sleep });
    for (let i = 0; i < 3; i++) await bucket.take();
    expect(clock.sleeps).toEqual([]);
    await clock.sleep(60_000); // idle for a minute: refills to 3, not 120
    clock.sleeps.length = 0;
    for (let i = 0; i < 4; i++) await bucket.take();
    expect(clock.sleeps.length).toBe(1);
    expect(clock.sleeps[0]).toBeCloseTo(500);
  });
});
