/**
 * `npm run bench -- extauth`: Check calls per second and p50/p99 latency over
 * gRPC at concurrency 1, 16 and 64 against a real slapd, next to a raw ldapts
 * bind + base search loop doing the same LDAP work at the same concurrency
 * (the floor). Both sides get the same number of LDAP connections (the
 * sidecar's pool max is set to the concurrency), so the ratio is the cost of
 * the sidecar itself: gRPC, parsing, pooling. A last row shows the default
 * pool (max 5) at concurrency 64. Target: >= 80% of the floor's throughput,
 * p99 added latency < 2 ms. A third peer, a Check server in its own process
 * that answers OK without LDAP, shows what gRPC alone costs with the same
 * client on the same machine (the load generator shares the CPUs). CPU per
 * operation is the measured side's own: this process for the raw loop, the
 * server process for the two Check servers. A last peer runs the sidecar's
 * decision path (Authorizer.check) in this process without gRPC.
 * Flags: --duration-ms=N (per measurement, default 3000).
 */
import * as grpc from '@grpc/grpc-js';
import http2 from 'node:http2';
import { Client } from 'ldapts';
import pino from 'pino';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { authorizationService, messageType } from '../extauth-server/protos.js';
import { Authorizer } from '../extauth-server/authorizer.js';
import { DEFAULT_POOL } from '../extauth-server/config.js';
import { startSlapd, groupDn, userDn, USER_DN_TEMPLATE, type Slapd } from '../test/fixtures/slapd.js';
import { basic, envoyCheckRequest, writeConfig } from '../test/extauth/helpers.js';

const CONCURRENCY = [1, 16, 64];

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time per operation of the measured side (the sidecar process, or this process for the raw loop), in µs. */
  cpuPerOp: number;
}

/** CPU time (user + system) of process `pid` in µs, from /proc (Linux; clock ticks of 10 ms). */
function processCpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function ownCpu(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** Runs `op` from `concurrency` workers for `ms` (after a short warm-up); latencies in ms. */
async function measure(concurrency: number, ms: number, cpu: () => number, op: (worker: number) => Promise<boolean>): Promise<Figures> {
  const warmUntil = performance.now() + Math.min(500, ms / 4);
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    while (performance.now() < warmUntil) await op(w);
  }));
  const latencies: number[] = [];
  let errors = 0;
  const cpuStart = cpu();
  const start = performance.now();
  const end = start + ms;
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    while (performance.now() < end) {
      const t = performance.now();
      const ok = await op(w);
      latencies.push(performance.now() - t);
      if (!ok) errors++;
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  const cpuPerOp = (cpu() - cpuStart) / latencies.length;
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, cpuPerOp };
}

async function rawLoop(slapd: Slapd, concurrency: number, ms: number): Promise<Figures> {
  const clients = Array.from({ length: concurrency }, () => new Client({ url: slapd.url, timeout: 5000, connectTimeout: 2000 }));
  const dn = userDn('alice');
  const allowed = groupDn('developers').toLowerCase();
  try {
    return await measure(concurrency, ms, ownCpu, async (w) => {
      const c = clients[w]!;
      await c.bind(dn, 'alice-pw');
      const { searchEntries } = await c.search(dn, { scope: 'base', filter: '(uid=*)', attributes: ['memberOf'], sizeLimit: 1 });
      const groups = searchEntries[0]?.memberOf;
      return (Array.isArray(groups) ? groups : [groups]).some((g) => String(g).toLowerCase() === allowed);
    });
  } finally {
    await Promise.all(clients.map((c) => c.unbind().catch(() => undefined)));
  }
}

const NOOP_ENV = 'SLUICE_BENCH_NOOP_CHECK';

/** The no-op peer: this module run as a child process with NOOP_ENV set. */
if (process.env[NOOP_ENV] === '1') {
  const server = new grpc.Server();
  server.addService(authorizationService(), { Check: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { status: { code: 0 } }) });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    console.log(JSON.stringify({ port }));
  });
  process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
}

/** A Check server in its own process, as the sidecar runs next to Envoy; it prints `"port":N` when listening. */
async function startProcess(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const exited = once(child, 'exit');
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      out += d;
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then(() => reject(new Error(`${script} exited before listening:\n${out}`)));
  });
  return {
    port,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      const [code] = await exited;
      if (code !== 0) throw new Error(`${script} exited with ${code} on SIGTERM`);
    },
  };
}

/**
 * Check calls over one HTTP/2 connection with gRPC framing done by hand: the
 * request is encoded once, as Envoy's C++ client is far cheaper per call than
 * a grpc-js client would be on the CPUs this process shares with the server.
 */
async function checkLoop(port: number, pid: number, concurrency: number, ms: number): Promise<Figures> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  await once(session, 'connect');
  const message = messageType('envoy.service.auth.v3.CheckRequest').serialize(envoyCheckRequest('bench.users', { authorization: basic('alice', 'alice-pw') }));
  const body = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), message]);
  body.writeUInt32BE(message.length, 1);
  const responseType = messageType('envoy.service.auth.v3.CheckResponse');
  const call = () =>
    new Promise<boolean>((resolve) => {
      const req = session.request({ ':method': 'POST', ':path': '/envoy.service.auth.v3.Authorization/Check', 'content-type': 'application/grpc', te: 'trailers' });
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
    return await measure(concurrency, ms, () => processCpu(pid), call);
  } finally {
    session.close();
  }
}

async function sidecar(slapd: Slapd, concurrency: number, poolMax: number, ms: number): Promise<Figures> {
  const file = await writeConfig([
    {
      name: 'bench.users',
      configs: [{ ldap: { address: slapd.url, user_dn_template: USER_DN_TEMPLATE, allowed_groups: [groupDn('developers')], pool: { initial_size: poolMax, max_size: poolMax } } }],
    },
  ]);
  const main = fileURLToPath(new URL('../extauth-server/main.js', import.meta.url));
  const server = await startProcess(main, ['--config', file, '--port', '0', '--admin-port', '0', '--host', '127.0.0.1']);
  try {
    return await checkLoop(server.port, server.pid, concurrency, ms);
  } finally {
    await server.stop();
  }
}

/** The sidecar's decision path without gRPC: Authorizer.check in this process, same pool size. */
async function inProcess(slapd: Slapd, concurrency: number, poolMax: number, ms: number): Promise<Figures> {
  const authorizer = new Authorizer({ logger: pino({ level: 'silent' }) });
  authorizer.setConfigs([
    {
      name: 'bench.users',
      ldap: [{ address: slapd.url, userDnTemplate: USER_DN_TEMPLATE, allowedGroups: [groupDn('developers')], searchFilter: '(uid=*)', membershipAttributeName: 'memberOf', pool: { ...DEFAULT_POOL, initialSize: poolMax, maxSize: poolMax } }],
    },
  ]);
  const header = basic('alice', 'alice-pw');
  try {
    return await measure(concurrency, ms, ownCpu, async () => (await authorizer.check('bench.users', header)).kind === 'ok');
  } finally {
    await authorizer.close();
  }
}

async function noopCheck(concurrency: number, ms: number): Promise<Figures> {
  const server = await startProcess(fileURLToPath(import.meta.url), [], { [NOOP_ENV]: '1' });
  try {
    return await checkLoop(server.port, server.pid, concurrency, ms);
  } finally {
    await server.stop();
  }
}

function fmt(f: Figures): string {
  return `${f.perSecond.toFixed(0).padStart(7)}/s  p50 ${f.p50.toFixed(2).padStart(6)} ms  p99 ${f.p99.toFixed(2).padStart(6)} ms  CPU ${f.cpuPerOp.toFixed(0).padStart(4)} µs/op${f.errors ? `  (${f.errors} failed)` : ''}`;
}

export async function run(args: string[]): Promise<void> {
  const flag = args.find((a) => a.startsWith('--duration-ms='));
  const ms = flag ? Number(flag.split('=')[1]) : 3000;
  const slapd = await startSlapd({ statsLog: false });
  try {
    console.log(`slapd ${slapd.url}; ${ms} ms per measurement; Check over gRPC vs raw ldapts bind+search, same LDAP connection count`);
    const rows: [string, number, number][] = CONCURRENCY.map((c) => [`c=${c}`, c, c]);
    rows.push([`c=64, default pool (max ${DEFAULT_POOL.maxSize})`, 64, DEFAULT_POOL.maxSize]);
    for (const [label, c, poolMax] of rows) {
      const raw = await rawLoop(slapd, Math.min(c, poolMax), ms);
      const ours = await sidecar(slapd, c, poolMax, ms);
      const noop = await noopCheck(c, ms);
      const core = await inProcess(slapd, c, poolMax, ms);
      const rawNote = poolMax < c ? ` (raw with ${poolMax} workers)` : '';
      console.log(`${label}${rawNote}`);
      console.log(`  raw ldapts     ${fmt(raw)}`);
      console.log(`  extauth        ${fmt(ours)}`);
      console.log(`  no-op Check    ${fmt(noop)}   (gRPC alone, no LDAP)`);
      console.log(`  in-process     ${fmt(core)}   (Authorizer.check, no gRPC)`);
      console.log(
        `  ratio ${((100 * ours.perSecond) / raw.perSecond).toFixed(1)}% of raw throughput; added p50 ${(ours.p50 - raw.p50).toFixed(2)} ms, p99 ${(ours.p99 - raw.p99).toFixed(2)} ms`,
      );
    }
  } finally {
    await slapd.close();
  }
}
