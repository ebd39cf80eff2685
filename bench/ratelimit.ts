/**
 * `npm run bench -- ratelimit`: ShouldRateLimit calls per second, p50/p99
 * and CPU per call of sluice-ratelimit at 16 concurrent streams on one
 * HTTP/2 connection (h2load, as Envoy calls it), next to a bare grpc-js
 * handler doing the same Redis work in the same run: it decodes the request
 * with the same protobufjs type, increments the same two counters with the
 * same Lua script over the same ioredis client (ratelimit-server/redis.ts)
 * and answers a fixed OK. Both in their own process, against one Debian
 * redis-server. Rounds are interleaved; the ratio is the median of the
 * rounds' ratios. Targets: at least 90% of the bare handler's throughput,
 * p99 under 5 ms.
 */
import * as grpc from '@grpc/grpc-js';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { lookupType } from '../contract/envoy.js';
import { startRedis } from '../harness/redis.js';
import { rateLimitService, SHOULD_RATE_LIMIT_PATH } from '../ratelimit-server/grpc.js';
import { RedisCounter } from '../ratelimit-server/redis.js';
import {
  fmt,
  grpcFrame,
  h2load,
  median,
  medianOf,
  startProcess,
  type Figures,
  type LoadGenerator,
} from './check-load.js';

const CONCURRENCY = 16;
const PEER_ENV = 'SLUICE_BENCH_RATELIMIT_PEER';
/** What Envoy sends for a route with two actions: a generic key and the client's address. */
const REQUEST = {
  domain: 'bench',
  descriptors: [
    { entries: [{ key: 'generic_key', value: 'api' }] },
    { entries: [{ key: 'remote_address', value: '10.1.2.3' }] },
  ],
};
/** Limits no round reaches, so every answer is OK on both sides. */
const DOMAIN = {
  domain: 'bench',
  descriptors: [
    { key: 'generic_key', value: 'api', rate_limit: { unit: 'YEAR', requests_per_unit: 4_000_000_000 } },
    { key: 'remote_address', rate_limit: { unit: 'YEAR', requests_per_unit: 4_000_000_000 } },
  ],
};
const YEAR = 31_536_000;

/** The bare handler (argv[2]: Redis' address). */
function runPeer(redisAddress: string): void {
  const redis = new RedisCounter({ address: redisAddress, timeoutMs: 1000, logger: pino({ level: 'silent' }) });
  let failed = 0;
  const status = (remaining: number) => ({
    code: 1,
    current_limit: { requests_per_unit: 4_000_000_000, unit: 6 },
    limit_remaining: remaining,
    duration_until_reset: { seconds: 1 },
  });
  const server = new grpc.Server();
  server.addService(rateLimitService(), {
    ShouldRateLimit: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      const req = call.request as typeof REQUEST;
      const window = Math.floor(Date.now() / 1000 / YEAR) * YEAR;
      const keys = req.descriptors.map(
        (d) => `bare_${req.domain}_${d.entries[0]!.key}_${d.entries[0]!.value}_${window}`,
      );
      redis.count(keys, [YEAR, YEAR], 1).then(
        (counts) => cb(null, { overall_code: 1, statuses: counts.map((c) => status(4_000_000_000 - c)) }),
        () => {
          failed++;
          cb(null, { overall_code: 1, statuses: [] });
        },
      );
    },
  });
  process.on('SIGTERM', () => {
    console.log(JSON.stringify({ failed }));
    process.exit(0);
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    console.log(JSON.stringify({ port }));
  });
}

if (process.env[PEER_ENV]) runPeer(process.env[PEER_ENV]!);

/** Calls the sidecar did not answer OK (refused, or decided without Redis), from its /metrics. */
async function notOk(adminPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  const lines =
    /^sluice_ratelimit_(?:calls_total\{result="(?:over_limit|invalid)"\}|redis_failures_total\{[^}]*\}) (\d+)$/gm;
  return [...text.matchAll(lines)].reduce((n, [, count]) => n + Number(count), 0);
}

export async function run(args: string[]): Promise<void> {
  const flag = (name: string, fallback: number) =>
    Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const ms = flag('duration-ms', 2000);
  const rounds = flag('rounds', 7);
  if (!existsSync('/usr/bin/redis-server')) {
    console.log("ratelimit: skipped: needs Debian's redis-server (apt-get install -y redis-server)");
    return;
  }
  const Request = lookupType('envoy.service.ratelimit.v3.RateLimitRequest');
  const frame = grpcFrame(Buffer.from(Request.encode(Request.fromObject(REQUEST)).finish()));
  const load: LoadGenerator | undefined = await h2load(frame, SHOULD_RATE_LIMIT_PATH);
  if (!load) {
    console.log('ratelimit: skipped: needs h2load (apt-get install -y nghttp2-client)');
    return;
  }
  const redis = await startRedis();
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-bench-ratelimit-'));
  const config = path.join(dir, 'ratelimit.json');
  writeFileSync(config, JSON.stringify({ domains: [DOMAIN] }));
  const main = fileURLToPath(new URL('../ratelimit-server/main.js', import.meta.url));
  const sidecar = await startProcess(main, [
    '--config',
    config,
    '--redis',
    redis.address,
    '--port',
    '0',
    '--admin-port',
    '0',
  ]);
  const adminPort = Number(/"adminPort":(\d+)/.exec(sidecar.banner)![1]);
  const bare = await startProcess(fileURLToPath(import.meta.url), [], { [PEER_ENV]: redis.address });
  const ours: Figures[] = [];
  const theirs: Figures[] = [];
  try {
    console.log(`${rounds} interleaved rounds of ${ms} ms at ${CONCURRENCY} streams, median round shown; ${load.name}`);
    const sidecarRound = async (r: number) => {
      const before = await notOk(adminPort);
      const f = await load.run(sidecar.port, sidecar.pid, CONCURRENCY, ms, r === 0);
      ours.push({ ...f, errors: f.errors + (await notOk(adminPort)) - before });
    };
    const bareRound = async (r: number) => theirs.push(await load.run(bare.port, bare.pid, CONCURRENCY, ms, r === 0));
    // Each goes first in every other round: neither always follows the other's load.
    for (let r = 0; r < rounds; r++)
      for (const round of r % 2 ? [bareRound, sidecarRound] : [sidecarRound, bareRound]) await round(r);
  } finally {
    await sidecar.stop();
    const failed = Number(/"failed":(\d+)/.exec(await bare.stop())?.[1] ?? 0);
    await redis.close();
    if (failed) console.log(`bare handler: ${failed} calls Redis did not answer`);
  }
  const sidecarMedian = median(ours);
  console.log(`  sluice-ratelimit  ${fmt(sidecarMedian)}`);
  console.log(`  bare grpc-js      ${fmt(median(theirs))}`);
  const throughput = 100 * medianOf(ours.map((f, r) => f.perSecond / theirs[r]!.perSecond));
  const p99 = medianOf(ours.map((f) => f.p99));
  console.log(
    `  sluice-ratelimit vs bare grpc-js handler: throughput ${throughput.toFixed(1)}% (target >= 90%: ${throughput >= 90 ? 'met' : 'NOT met'}), p99 ${p99.toFixed(2)} ms (target < 5 ms: ${p99 < 5 ? 'met' : 'NOT met'}); median of ${rounds} paired rounds`,
  );
}
