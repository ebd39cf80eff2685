/**
 * `npm run bench -- stopped-client [--minutes=N] [--virtual-services=N]`:
 * `serve`'s memory while one delta ADS client is stopped (SIGSTOP: it
 * neither reads nor ACKs; HTTP/2 keepalive drops it after about 40 s) and
 * another reads and answers pings but never ACKs (it stays connected), and
 * the configuration is edited once a second, for N minutes (default 10). A live delta client, in its own process too, gets
 * every edit: the time from the save to its route configuration is its
 * latency. The control loop and xDS server run in this process; every 30 s
 * the V8 heap + buffers after a full GC and the RSS are sampled.
 *
 * Peer, in the same run: the first minute's samples. The target: retained
 * memory flat (the least-squares slope over the run's second half under
 * 1 MiB a minute, the last sample within 16 MiB of the first after the
 * warm-up) and the live client's latency unchanged from the first minute to
 * the last.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { TYPE_URL } from '../contract/names.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { ControlPlane } from '../control-plane/control.js';
import { XdsServer } from '../control-plane/server/server.js';
import { generate } from './compile.js';
import { settledMemory } from '../harness/memory.js';
import { mib, percentile } from './xds.js';

const SAMPLE_EVERY_MS = 30_000;
const EDIT_EVERY_MS = 1000;
const DELTA_CLIENT = fileURLToPath(new URL('../../harness/delta-client.mjs', import.meta.url));

interface Sample {
  minute: number;
  rss: number;
  retained: number;
  edits: number;
  /** The stopped client's bytes the server holds unflushed; undefined once its stream is gone. */
  unflushed?: number;
  /** Whether the never-ACKing client's stream is still open. */
  silentConnected: boolean;
}

interface DeltaClientProcess {
  child: ChildProcess;
  /** Resolves once the client has its first CDS, LDS and RDS responses (the generated input has no EDS clusters); CDS only for one that never ACKs. */
  synced: Promise<void>;
  /** Resolves when the client receives route configuration `version`. */
  route(version: string): Promise<void>;
}

/** A delta client in its own process (harness/delta-client.mjs), so it can be stopped. */
function deltaClient(port: number, node: string, edsNames: string[], ack = true): DeltaClientProcess {
  const child = spawn(process.execPath, [DELTA_CLIENT, String(port), node, ...edsNames], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SLUICE_NO_ACK: ack ? '0' : '1' },
  });
  const types = new Set<string>();
  let synced!: () => void;
  const syncedP = new Promise<void>((r) => (synced = r));
  const seen = new Set<string>();
  let waiting: { version: string; resolve: () => void } | undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const r = JSON.parse(line) as { type: string; version: string };
    types.add(r.type);
    // A client that never ACKs holds clusters it has not ACKed, so it is sent no routes (make before break): its first CDS is all it gets.
    if ((ack ? [TYPE_URL.cluster, TYPE_URL.listener, TYPE_URL.route] : [TYPE_URL.cluster]).every((t) => types.has(t)))
      synced();
    if (r.type !== TYPE_URL.route) return;
    if (waiting?.version === r.version) waiting.resolve();
    else seen.add(r.version);
  });
  return {
    child,
    synced: syncedP,
    route: (version) =>
      new Promise<void>((resolve) => {
        if (seen.delete(version)) resolve();
        else waiting = { version, resolve };
        seen.clear();
      }),
  };
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

export async function run(args: string[]): Promise<void> {
  const flag = (name: string, fallback: number) =>
    Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const minutes = flag('minutes', 10);
  const virtualServices = flag('virtual-services', 1500);
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-bench-stopped-'));
  const control = new ControlPlane({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    logger: pino({ level: 'silent' }),
  });
  const server = new XdsServer(control.cache);
  const children: ChildProcess[] = [];
  try {
    generate(dir, virtualServices);
    const first = await control.start();
    if (!first.ok) throw new Error(`bench input did not compile: ${first.diagnostics[0]?.message}`);
    const port = await server.listen('127.0.0.1', 0);
    const edsNames = [...(control.snapshot!.type(TYPE_URL.endpoint)?.resources.keys() ?? [])];
    const stopped = deltaClient(port, 'stopped', edsNames);
    // Reads and answers pings (so keepalive never drops it) but never ACKs.
    const silent = deltaClient(port, 'silent', edsNames, false);
    const live = deltaClient(port, 'live', edsNames);
    children.push(stopped.child, silent.child, live.child);
    await Promise.all([stopped.synced, silent.synced, live.synced]);
    stopped.child.kill('SIGSTOP');

    const file = path.join(dir, 'resources-0.yaml');
    const original = readFileSync(file, 'utf8');
    let edits = 0;
    const latencies: Array<{ minute: number; ms: number }> = [];
    const samples: Sample[] = [];
    const start = performance.now();
    const minute = () => (performance.now() - start) / 60_000;
    const sample = async () => {
      const m = await settledMemory();
      const streams = server.status();
      const stoppedStatus = streams.find((s) => s.node?.id === 'stopped');
      samples.push({
        minute: minute(),
        rss: m.rss,
        retained: m.retained,
        edits,
        unflushed: stoppedStatus?.unflushedBytes,
        silentConnected: streams.some((s) => s.node?.id === 'silent'),
      });
    };
    await sample();
    let nextSample = SAMPLE_EVERY_MS;
    while (performance.now() - start < minutes * 60_000) {
      const t0 = performance.now();
      const expected = new Promise<void>((resolve) => {
        const unwatch = control.cache.watch(() => {
          unwatch();
          void live.route(control.snapshot!.type(TYPE_URL.route)!.version).then(resolve);
        });
      });
      // A saved file, as editors do: a temporary file renamed over it.
      writeFileSync(`${file}.swp`, original.replace('prefix: /r0}', `prefix: /r0-edit${edits}}`));
      renameSync(`${file}.swp`, file);
      edits++;
      await expected;
      latencies.push({ minute: minute(), ms: performance.now() - t0 });
      if (performance.now() - start >= nextSample) {
        await sample();
        nextSample += SAMPLE_EVERY_MS;
      }
      const wait = EDIT_EVERY_MS - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await sample();

    console.log(
      `${virtualServices} VirtualServices; delta clients: one stopped (SIGSTOP), one that reads but never ACKs, one live; an edit every ${EDIT_EVERY_MS} ms for ${minutes} min (${edits} edits)`,
    );
    console.log('  minute  edits   RSS MiB  heap+buffers MiB  stopped: unflushed KiB  never-ACKing: connected');
    for (const s of samples) {
      const unflushed = s.unflushed === undefined ? 'dropped' : (s.unflushed / 1024).toFixed(0);
      console.log(
        `  ${s.minute.toFixed(1).padStart(6)} ${String(s.edits).padStart(6)} ${mib(s.rss).padStart(9)} ${mib(s.retained).padStart(17)} ${unflushed.padStart(23)} ${String(s.silentConnected).padStart(24)}`,
      );
    }
    const half = samples.filter((s) => s.minute >= minutes / 2);
    const perMinute = slope(half.map((s) => [s.minute, s.retained / 1048576]));
    const warm = samples.find((s) => s.minute >= 1) ?? samples[0]!;
    const growth = (samples.at(-1)!.retained - warm.retained) / 1048576;
    const ms = (from: number, to: number) =>
      latencies
        .filter((l) => l.minute >= from && l.minute < to)
        .map((l) => l.ms)
        .sort((a, b) => a - b);
    const [early, late] = [ms(0, 1), ms(minutes - 1, minutes)];
    console.log(
      `  live client save-to-route: first minute p50 ${percentile(early, 50).toFixed(0)} ms, max ${early.at(-1)!.toFixed(0)} ms; last minute p50 ${percentile(late, 50).toFixed(0)} ms, max ${late.at(-1)!.toFixed(0)} ms`,
    );
    const flat = perMinute < 1 && growth < 16;
    console.log(
      `  heap+buffers slope over the second half: ${perMinute.toFixed(2)} MiB/min (target < 1); after the first minute ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB (target < 16): ${flat ? 'flat' : 'NOT flat'}`,
    );
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await server.close();
    await control.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
