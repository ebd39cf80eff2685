/**
 * What the GraphQL benchmarks (graphql.ts, stitch.ts) share: servers in their
 * own processes (roles of a bench module, or sluice-graphql), autocannon
 * rounds against peers whose first answer was checked, CPU per request read
 * from /proc, interleaved rounds with the median shown.
 */
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';

export const CONNECTIONS = 32;

export interface Child {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU time per request of the measured server, and of its upstreams together, in µs. */
  cpu: number;
  subgraphCpu: number;
  /** Connection errors, non-2xx answers and answers that differ from the checked one. */
  failed: number;
}

export interface Peer {
  label: string;
  note: string;
  url: string;
  pid: number;
  headers: Record<string, string>;
  query: string;
  /** The answer's body, checked before the rounds; autocannon counts any other as a mismatch. */
  body: string;
}

export interface BenchFlags {
  /** Per round. */
  ms: number;
  rounds: number;
  /** Each server writes `<dir>/<role>.cpuprofile` (node --cpu-prof). */
  profileDir: string | undefined;
}

/** --duration-ms=N (default 5000), --rounds=N (default 3), --profile=DIR. */
export function benchFlags(args: string[]): BenchFlags {
  const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  return { ms: Number(value('duration-ms') ?? 5000), rounds: Number(value('rounds') ?? 3), profileDir: value('profile') };
}

/**
 * When this process was started as a role of `module` (its env variable set),
 * runs that role; a clean exit on SIGTERM lets `--cpu-prof` write the profile.
 */
export async function runRole(envName: string, roles: Record<string, (args: string[]) => Promise<void>>): Promise<void> {
  const role = process.env[envName];
  if (!role) return;
  process.on('SIGTERM', () => process.exit(0));
  await roles[role]!(process.argv.slice(2));
}

/** Prints `{"port":N}` once `server` listens on 127.0.0.1 (what startChild waits for). */
export async function announce(server: http.Server): Promise<void> {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
}

/**
 * A server in its own process (profiled into `profileDir` if given):
 * `script` with `args`; resolves when it prints `"port":N` (a role prints it,
 * sluice-graphql logs it).
 */
export async function startChild(script: string, args: string[], env: NodeJS.ProcessEnv, profileDir: string | undefined, name: string): Promise<Child> {
  const node = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...node, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  // 'close', not 'exit': the output shown on an early exit is read whole.
  const exited = once(child, 'close');
  let out = '';
  child.stdout!.setEncoding('utf8');
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: string) => {
      out += d;
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then(() => reject(new Error(`bench: ${name} exited before listening:\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A role of the bench module at `moduleUrl` in its own process. */
export function startRole(moduleUrl: string, envName: string, role: string, args: string[], profileDir: string | undefined): Promise<Child> {
  return startChild(fileURLToPath(moduleUrl), args, { [envName]: role }, profileDir, role);
}

/** sluice-graphql on a GraphQLApiSet file, as `sluice compile` writes it. */
export function startSluiceGraphql(configFile: string, profileDir: string | undefined): Promise<Child> {
  const main = fileURLToPath(new URL('../graphql-server/main.js', import.meta.url));
  return startChild(main, ['--config', configFile, '--port', '0', '--admin-port', '0'], {}, profileDir, 'sluice');
}

async function post(url: string, headers: Record<string, string>, query: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
  return res.text();
}

/** A peer whose answer to `query` was fetched once; `want` (when given) must equal its data. */
export async function checkedPeer(peer: Omit<Peer, 'body'>, want: unknown): Promise<Peer> {
  const body = await post(peer.url, peer.headers, peer.query);
  if (want !== undefined && !isDeepStrictEqual((JSON.parse(body) as { data?: unknown }).data, want)) throw new Error(`bench: ${peer.label} answered ${body}, not the expected data`);
  return { ...peer, body };
}

/** CPU time (user + system) of process `pid` in µs, from /proc (Linux; clock ticks of 10 ms). */
export function processCpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** One autocannon round against `peer`; `upstreams` are the pids whose CPU counts as the upstreams'. */
export async function load(peer: Peer, ms: number, upstreams: number[]): Promise<Figures> {
  const upstreamCpu = () => upstreams.reduce((n, pid) => n + processCpu(pid), 0);
  const [cpu0, up0] = [processCpu(peer.pid), upstreamCpu()];
  const r = await autocannon({
    url: peer.url,
    connections: CONNECTIONS,
    duration: ms / 1000,
    method: 'POST',
    headers: peer.headers,
    body: JSON.stringify({ query: peer.query }),
    expectBody: peer.body,
  });
  const n = r.requests.total;
  return {
    perSecond: n / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpu: (processCpu(peer.pid) - cpu0) / n,
    subgraphCpu: (upstreamCpu() - up0) / n,
    failed: r.errors + r.non2xx + r.mismatches,
  };
}

/**
 * A warm-up, then `flags.rounds` interleaved rounds of every peer and every
 * extra measurement; the median round of each, by label.
 */
export async function interleavedRounds(peers: Peer[], flags: BenchFlags, upstreams: number[], extras: Record<string, (ms: number) => Promise<Figures>> = {}): Promise<Map<string, Figures>> {
  const warmUp = Math.min(2000, flags.ms);
  for (const p of peers) await load(p, warmUp, upstreams);
  for (const measure of Object.values(extras)) await measure(warmUp);
  const results = new Map<string, Figures[]>([...peers.map((p) => p.label), ...Object.keys(extras)].map((label) => [label, []]));
  for (let r = 0; r < flags.rounds; r++) {
    for (const p of peers) results.get(p.label)!.push(await load(p, flags.ms, upstreams));
    for (const [label, measure] of Object.entries(extras)) results.get(label)!.push(await measure(flags.ms));
  }
  return new Map([...results].map(([label, rounds]) => [label, median(rounds)]));
}

function median(rounds: Figures[]): Figures {
  return [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)]!;
}

/** One table row: requests/s, latency, CPU per request of the server and of its upstreams (`upstreamLabel`). */
export function formatFigures(f: Figures, upstreamLabel: string): string {
  return `${f.perSecond.toFixed(0).padStart(6)}/s  p50 ${f.p50.toFixed(1).padStart(6)} ms  p99 ${f.p99.toFixed(1).padStart(6)} ms  CPU ${f.cpu.toFixed(0).padStart(5)} µs/req, ${upstreamLabel} ${f.subgraphCpu.toFixed(0).padStart(5)} µs/req${f.failed ? `  (${f.failed} failed)` : ''}`;
}
