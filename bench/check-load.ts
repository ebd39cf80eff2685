/**
 * What the extauth benchmarks share: a Check server in its own process
 * (the sidecar, or a bare peer), the load generators that call it over one
 * HTTP/2 connection as Envoy does (h2load, or node:http2 without it), the
 * figures of a round (calls per second, p50/p99, CPU per call of the
 * measured side) and the median of interleaved rounds.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { messageType } from '../extauth-server/protos.js';
import { writeConfig } from '../harness/extauth-check.js';

const execFileP = promisify(execFile);
export const CHECK_PATH = '/envoy.service.auth.v3.Authorization/Check';

export interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time per operation of the measured side, in µs. */
  cpuPerOp: number;
}

/** CPU time (user + system) of process `pid` in µs, from /proc (Linux; clock ticks of 10 ms). */
export function processCpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

export function figures(latencies: number[], seconds: number, errors: number, cpuMicros: number): Figures {
  latencies.sort((a, b) => a - b);
  const n = latencies.length;
  return {
    perSecond: n / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    cpuPerOp: cpuMicros / n,
  };
}

/**
 * Runs `op` from `concurrency` workers for `ms` after a short warm-up (a
 * closed loop, as the raw peer and the node:http2 client both are).
 * `cpu` reads the measured side's CPU time in µs; latencies in ms.
 */
export async function closedLoop(
  concurrency: number,
  ms: number,
  cpu: () => number,
  op: (worker: number) => Promise<boolean>,
): Promise<Figures> {
  const loop = async (until: number, latencies: number[]): Promise<number> => {
    let errors = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        while (performance.now() < until) {
          const t = performance.now();
          if (!(await op(w))) errors++;
          latencies.push(performance.now() - t);
        }
      }),
    );
    return errors;
  };
  await loop(performance.now() + Math.min(500, ms / 4), []);
  const latencies: number[] = [];
  const cpuStart = cpu();
  const start = performance.now();
  const errors = await loop(start + ms, latencies);
  return figures(latencies, (performance.now() - start) / 1000, errors, cpu() - cpuStart);
}

export function ownCpu(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

export interface ServerProcess {
  port: number;
  pid: number;
  /** The rest of what it printed on stdout when listening (the sidecar's log line carries adminPort). */
  banner: string;
  /** Stops it with SIGTERM; resolves to what it printed after listening. */
  stop(): Promise<string>;
}

/** A Check server in its own process, as the sidecar runs next to Envoy; it prints `"port":N` when listening. */
export async function startProcess(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  // 'close', not 'exit': `stop` returns the output read whole.
  const exited = once(child, 'close');
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then(() => reject(new Error(`${script} exited before listening:\n${out}`)));
  });
  const banner = out;
  return {
    port,
    pid: child.pid!,
    banner,
    async stop() {
      child.kill('SIGTERM');
      const [code] = await exited;
      if (code !== 0) throw new Error(`${script} exited with ${code} on SIGTERM`);
      return out.slice(banner.length);
    },
  };
}

/** A gRPC length-prefixed message: flag 0 (not compressed), 4-byte length, the bytes. */
export function grpcFrame(message: Buffer): Buffer {
  const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), message]);
  frame.writeUInt32BE(message.length, 1);
  return frame;
}

export interface LoadGenerator {
  name: string;
  /**
   * `concurrency` Check calls in flight on one HTTP/2 connection for `ms`; `errors` counts what the client itself saw fail.
   * `warmUp`: the first call against this server (later rounds find it warm).
   */
  run(port: number, pid: number, concurrency: number, ms: number, warmUp: boolean): Promise<Figures>;
}

/** h2load calling `grpcPath` (a Check by default) with `frame` as every request's body; undefined when h2load is not installed. */
export async function h2load(frame: Buffer, grpcPath = CHECK_PATH): Promise<LoadGenerator | undefined> {
  try {
    await execFileP('h2load', ['--version']);
  } catch {
    return undefined;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-'));
  const body = path.join(dir, 'check.bin');
  const log = path.join(dir, 'requests.log');
  await writeFile(body, frame);
  const args = (port: number, concurrency: number): string[] => [
    '-c1',
    `-m${concurrency}`,
    `--data=${body}`,
    '--header=content-type: application/grpc',
    '--header=te: trailers',
    `http://127.0.0.1:${port}${grpcPath}`,
  ];
  return {
    name: 'h2load (nghttp2: one HTTP/2 connection, N streams, as Envoy)',
    async run(port, pid, concurrency, ms, warmUp) {
      // Enough calls for V8 to optimise the hot paths of either side.
      if (warmUp) await execFileP('h2load', [...args(port, concurrency), `-n${Math.max(2000, concurrency * 50)}`]);
      await rm(log, { force: true }); // h2load appends
      const cpu = processCpu(pid);
      const { stdout } = await execFileP('h2load', [
        ...args(port, concurrency),
        `--duration=${ms}ms`,
        `--log-file=${log}`,
      ]);
      const used = processCpu(pid) - cpu;
      // "finished in 2.00s", or in ms for a run under a second.
      const [, amount, unit] = /finished in ([\d.]+)(m?s)/.exec(stdout)!;
      const seconds = Number(amount) / (unit === 'ms' ? 1000 : 1);
      const notOk = /(\d+) failed, (\d+) errored, (\d+) timeout/
        .exec(stdout)!
        .slice(1)
        .reduce((n, x) => n + Number(x), 0);
      // Tab-separated: start (µs since epoch), HTTP status, µs until the end of the response.
      const latencies = (await readFile(log, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => Number(line.split('\t')[2]) / 1000);
      return figures(latencies, seconds, notOk, used);
    },
  };
}

/** Without h2load: Check calls over one node:http2 connection with gRPC framing done by hand (request encoded once). */
export function nodeClient(frame: Buffer): LoadGenerator {
  const body = frame;
  const responseType = messageType('envoy.service.auth.v3.CheckResponse');
  return {
    name: 'node:http2 (install nghttp2-client for h2load, far cheaper per call)',
    async run(port, pid, concurrency, ms) {
      const session = http2.connect(`http://127.0.0.1:${port}`);
      await once(session, 'connect');
      const call = () =>
        new Promise<boolean>((resolve) => {
          const req = session.request({
            ':method': 'POST',
            ':path': CHECK_PATH,
            'content-type': 'application/grpc',
            te: 'trailers',
          });
          const chunks: Buffer[] = [];
          let grpcStatus: string | undefined;
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('trailers', (t) => (grpcStatus = String(t['grpc-status'])));
          req.on('error', () => resolve(false));
          req.on('end', () => {
            const data = Buffer.concat(chunks);
            if (grpcStatus !== '0' || data.length < 5) return resolve(false);
            const res = responseType.deserialize(data.subarray(5)) as { status?: { code?: number } };
            resolve((res.status?.code ?? 0) === 0);
          });
          req.end(body);
        });
      try {
        return await closedLoop(concurrency, ms, () => processCpu(pid), call);
      } finally {
        session.close();
      }
    },
  };
}

/** The sidecar's count of decisions other than OK, from its /metrics. */
export async function deniedChecks(adminPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  return [...text.matchAll(/^sluice_extauth_checks_total\{result="(\w+)"\} (\d+)$/gm)].reduce(
    (n, [, result, count]) => (result === 'ok' ? n : n + Number(count)),
    0,
  );
}

export interface Peer {
  label: string;
  /** One measurement round. */
  round(ms: number, first: boolean): Promise<Figures>;
  stop(): Promise<void>;
}

export function median(rounds: Figures[]): Figures {
  return [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)]!;
}

export function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function fmt(f: Figures): string {
  return `${f.perSecond.toFixed(0).padStart(7)}/s  p50 ${f.p50.toFixed(2).padStart(6)} ms  p99 ${f.p99.toFixed(2).padStart(6)} ms  CPU ${f.cpuPerOp.toFixed(0).padStart(4)} µs/op${f.errors ? `  (${f.errors} failed)` : ''}`;
}

/** sluice-extauth in its own process with `resources` as its configuration; every check it does not allow counts as failed. */
export async function sidecarPeer(resources: unknown[], load: LoadGenerator, concurrency: number): Promise<Peer> {
  const file = await writeConfig(resources);
  const main = fileURLToPath(new URL('../extauth-server/main.js', import.meta.url));
  const server = await startProcess(main, [
    '--config',
    file,
    '--port',
    '0',
    '--admin-port',
    '0',
    '--bind',
    '127.0.0.1',
  ]);
  const adminPort = Number(/"adminPort":(\d+)/.exec(server.banner)![1]);
  return {
    label: 'extauth',
    async round(ms, first) {
      const before = await deniedChecks(adminPort);
      const f = await load.run(server.port, server.pid, concurrency, ms, first);
      // What the client saw fail, and every check the sidecar did not allow.
      return { ...f, errors: f.errors + (await deniedChecks(adminPort)) - before };
    },
    async stop() {
      await server.stop();
    },
  };
}
