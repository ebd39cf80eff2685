/**
 * Redis killed and restarted under load, and Redis frozen: two replicas,
 * one denying on failure and one allowing, keep answering (no call waits
 * past the Redis timeout), each by its failure mode (no OK from the denying
 * one while Redis is away), count what they could not count in a metric,
 * and count again once Redis is back (the time it took is printed; the
 * reconnect attempts are at most a second apart).
 */
import { startRedis, type RedisServer } from '../../harness/redis.js';
import { metricsOf, sample, startSidecar, writeDomains, type Sidecar } from './helpers.js';

const DOMAIN = {
  domain: 'api',
  descriptors: [{ key: 'generic_key', value: 'load', rate_limit: { unit: 'YEAR', requests_per_unit: 1_000_000_000 } }],
};

let redis: RedisServer;
let deny: Sidecar;
let allow: Sidecar;

beforeAll(async () => {
  redis = await startRedis();
  const file = writeDomains([DOMAIN]);
  deny = await startSidecar(redis.address, { config: file }, { denyOnFail: true, redisTimeoutMs: 200 });
  allow = await startSidecar(redis.address, { config: file }, { denyOnFail: false, redisTimeoutMs: 200 });
});

afterAll(async () => {
  await deny?.close();
  await allow?.close();
  await redis?.close();
});

interface Answered {
  sidecar: 'deny' | 'allow';
  start: number;
  end: number;
  code: string;
}

/** Calls from 4 workers per sidecar until stopped; every call has a 3 s deadline, and one that fails it fails the test. */
function load() {
  const answers: Answered[] = [];
  let running = true;
  const worker = async (sidecar: 'deny' | 'allow') => {
    const s = sidecar === 'deny' ? deny : allow;
    while (running) {
      const start = performance.now();
      const r = await s.call('api', [{ generic_key: 'load' }], { deadlineMs: 3000 });
      answers.push({ sidecar, start, end: performance.now(), code: r.overall_code });
    }
  };
  const workers = Promise.all((['deny', 'allow'] as const).flatMap((s) => Array.from({ length: 4 }, () => worker(s))));
  return {
    answers,
    count: (f: (a: Answered) => boolean) => answers.filter(f).length,
    async stop() {
      running = false;
      await workers;
    },
  };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
};

test('Redis killed and restarted under load: the failure mode answers meanwhile; counting resumes once it is back', async () => {
  const l = load();
  try {
    await until(() => l.count((a) => a.sidecar === 'deny' && a.code === 'OK') > 20);
    await redis.stop();
    const down = performance.now();
    await until(() => ['deny', 'allow'].every((s) => l.count((a) => a.sidecar === s && a.start > down) > 50));
    const up = performance.now();
    await redis.start();
    const started = performance.now();
    await until(() => l.answers.some((a) => a.sidecar === 'deny' && a.start > started && a.code === 'OK'));
    const recovered = l.answers.find((a) => a.sidecar === 'deny' && a.start > started && a.code === 'OK')!.end;
    // Reported, not judged (a busy machine is slow): the reconnect attempts are at most MAX_RECONNECT_MS apart.
    console.log(`counting again ${Math.round(recovered - started)} ms after Redis started`);

    const whileDown = (s: string) => l.answers.filter((a) => a.sidecar === s && a.start > down && a.end < up);
    expect(whileDown('deny').length).toBeGreaterThan(50);
    expect(whileDown('deny').filter((a) => a.code !== 'OVER_LIMIT')).toEqual([]);
    expect(whileDown('allow').filter((a) => a.code !== 'OK')).toEqual([]);
  } finally {
    await l.stop();
  }
  expect(sample(await metricsOf(deny), 'sluice_ratelimit_redis_failures_total{decision="denied"}')).toBeGreaterThan(50);
  expect(sample(await metricsOf(allow), 'sluice_ratelimit_redis_failures_total{decision="allowed"}')).toBeGreaterThan(
    50,
  );
  expect(sample(await metricsOf(deny), 'sluice_ratelimit_redis_up')).toBe(1);
});

test('Redis frozen (no replies): calls are answered by the failure mode after the Redis timeout, none hangs', async () => {
  const l = load();
  try {
    await until(() => l.count((a) => a.sidecar === 'allow' && a.code === 'OK') > 10);
    redis.freeze();
    const frozen = performance.now();
    await until(() => ['deny', 'allow'].every((s) => l.count((a) => a.sidecar === s && a.start > frozen) > 8));
    const thawed = performance.now();
    redis.thaw();
    const whileFrozen = (s: string) => l.answers.filter((a) => a.sidecar === s && a.start > frozen && a.end < thawed);
    expect(whileFrozen('deny').filter((a) => a.code !== 'OVER_LIMIT')).toEqual([]);
    expect(whileFrozen('allow').filter((a) => a.code !== 'OK')).toEqual([]);
    await until(() => l.answers.some((a) => a.sidecar === 'deny' && a.start > thawed && a.code === 'OK'));
  } finally {
    redis.thaw();
    await l.stop();
  }
});
