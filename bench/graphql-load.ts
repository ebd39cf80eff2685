/**
 * What the GraphQL benchmarks (graphql.ts, stitch.ts) share: servers in their
 * own processes (roles of a bench module, or sluice-graphql), upstreams that
 * answer from memory, autocannon rounds against peers whose first answer was
 * checked, CPU per request read from /proc, interleaved rounds with the
 * median shown and ratios taken round by round.
 */
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { print, type DocumentNode } from 'graphql';
import type { Executor } from '@graphql-tools/utils';
import { Pool } from 'undici';

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
  /** The regimes to run (all when not given). */
  regimes: string[] | undefined;
}

/**
 * --duration-ms=N (default 2000), --rounds=N (default 7: the machine's speed
 * drifts, and the median of many short rounds is steadier than of a few long
 * ones), --profile=DIR, --regimes=a,b.
 */
export function benchFlags(args: string[]): BenchFlags {
  const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  return {
    ms: Number(value('duration-ms') ?? 2000),
    rounds: Number(value('rounds') ?? 7),
    profileDir: value('profile'),
    regimes: value('regimes')?.split(','),
  };
}

/** Whether the regime `name` runs with these flags. */
export function runsRegime(flags: BenchFlags, name: string): boolean {
  return !flags.regimes || flags.regimes.includes(name);
}

/**
 * When this process was started as a role of `module` (its env variable set),
 * runs that role; a clean exit on SIGTERM lets `--cpu-prof` write the profile.
 */
export async function runRole(
  envName: string,
  roles: Record<string, (args: string[]) => Promise<void>>,
): Promise<void> {
  const role = process.env[envName];
  if (!role) return;
  process.on('SIGTERM', () => process.exit(0));
  await roles[role]!(process.argv.slice(2));
}

/** The request body as text. */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

/** Writes a JSON answer. */
export function sendJson(res: http.ServerResponse, body: string | Buffer): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * An upstream that answers a request body it has already seen from memory:
 * `answer` runs once per distinct body and its JSON is kept as bytes, so the
 * upstream costs almost nothing and a gateway's own cost shows.
 */
export async function serveFromMemory(answer: (body: string) => Promise<unknown>): Promise<void> {
  const known = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    void readBody(req).then(async (body) => {
      let bytes = known.get(body);
      if (!bytes) known.set(body, (bytes = Buffer.from(JSON.stringify(await answer(body)))));
      sendJson(res, bytes);
    });
  });
  await announce(server);
}

/** An undici keep-alive pool to the GraphQL endpoint at `url`, POSTing JSON bodies and reading JSON answers. */
export function jsonPoster(url: string): (body: string) => Promise<unknown> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 64 });
  return async (body) => {
    const res = await pool.request({
      path: target.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return res.body.json();
  };
}

/** A @graphql-tools executor over a jsonPoster (documents printed once), as the yoga peers use. */
export function undiciExecutor(url: string): Executor {
  const post = jsonPoster(url);
  const printed = new WeakMap<DocumentNode, string>();
  return async ({ document, variables, operationName }) => {
    let query = printed.get(document);
    if (query === undefined) printed.set(document, (query = print(document)));
    return (await post(JSON.stringify({ query, variables, operationName }))) as never;
  };
}

/** A remote executable API of a GraphQLApiSet, as `sluice compile` writes it, for the upstream at `url`. */
export function remoteApiResource(name: string, sdl: string, url: string): unknown {
  const u = new URL(url);
  return {
    name,
    executable: {
      schema_definition: sdl,
      remote: {
        target: { cluster: name, hosts: [{ address: u.hostname, port: Number(u.port) }] },
        headers: { ':path': u.pathname },
      },
    },
  };
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
export async function startChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  profileDir: string | undefined,
  name: string,
): Promise<Child> {
  const node = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...node, script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
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

/** A role of the bench module at `moduleUrl` in its own process; its profile is `<profileName>.cpuprofile` (default: the role). */
export function startRole(
  moduleUrl: string,
  envName: string,
  role: string,
  args: string[],
  profileDir: string | undefined,
  profileName = role,
): Promise<Child> {
  return startChild(fileURLToPath(moduleUrl), args, { [envName]: role }, profileDir, profileName);
}

/** sluice-graphql on a GraphQLApiSet file, as `sluice compile` writes it. */
export function startSluiceGraphql(
  configFile: string,
  profileDir: string | undefined,
  profileName = 'sluice',
): Promise<Child> {
  const main = fileURLToPath(new URL('../graphql-server/main.js', import.meta.url));
  return startChild(main, ['--config', configFile, '--port', '0', '--admin-port', '0'], {}, profileDir, profileName);
}

async function post(url: string, headers: Record<string, string>, query: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
  return res.text();
}

/** A peer whose answer to `query` was fetched once; `want` (when given) must equal its data. */
export async function checkedPeer(peer: Omit<Peer, 'body'>, want: unknown): Promise<Peer> {
  const body = await post(peer.url, peer.headers, peer.query);
  if (want !== undefined && !isDeepStrictEqual((JSON.parse(body) as { data?: unknown }).data, want))
    throw new Error(`bench: ${peer.label} answered ${body}, not the expected data`);
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

/** Every round of every peer, by label. */
export type Rounds = Map<string, Figures[]>;

/**
 * A warm-up, then `flags.rounds` interleaved rounds of every peer and every
 * extra measurement: round r of each peer ran next to round r of the others,
 * on the same machine state.
 */
export async function interleavedRounds(
  peers: Peer[],
  flags: BenchFlags,
  upstreams: number[],
  extras: Record<string, (ms: number) => Promise<Figures>> = {},
): Promise<Rounds> {
  const warmUp = Math.min(2000, flags.ms);
  for (const p of peers) await load(p, warmUp, upstreams);
  for (const measure of Object.values(extras)) await measure(warmUp);
  const results: Rounds = new Map([...peers.map((p) => p.label), ...Object.keys(extras)].map((label) => [label, []]));
  for (let r = 0; r < flags.rounds; r++) {
    for (const p of peers) results.get(p.label)!.push(await load(p, flags.ms, upstreams));
    for (const [label, measure] of Object.entries(extras)) results.get(label)!.push(await measure(flags.ms));
  }
  return results;
}

/** The median round (by requests/s). */
function median(rounds: Figures[]): Figures {
  return [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)]!;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `pick(a) / pick(b)` round by round (each pair saw the same machine). */
function pairRatios(rounds: Rounds, a: string, b: string, pick: (f: Figures) => number): number[] {
  const theirs = rounds.get(b)!;
  return rounds.get(a)!.map((f, r) => pick(f) / pick(theirs[r]!));
}

/** The table of a regime: one row per label, the median round. */
export function printTable(rounds: Rounds, notes: Record<string, string>, upstreamLabel: string): void {
  const width = Math.max(...[...rounds.keys()].map((l) => l.length)) + 2;
  for (const [label, figures] of rounds)
    console.log(`  ${label.padEnd(width)}${formatFigures(median(figures), upstreamLabel)}   ${notes[label] ?? ''}`);
}

/** A throughput and p99 target against a peer, from paired rounds; true when met (and nothing failed). */
export function printTarget(
  rounds: Rounds,
  ours: string,
  floor: string,
  minThroughput: number,
  maxP99: number | undefined,
): boolean {
  const perRound = pairRatios(rounds, ours, floor, (f) => f.perSecond);
  const throughput = medianOf(perRound);
  const p99 = medianOf(pairRatios(rounds, ours, floor, (f) => f.p99));
  const failed = rounds.get(ours)!.reduce((n, f) => n + f.failed, 0);
  const met = throughput >= minThroughput && (maxP99 === undefined || p99 <= maxP99) && failed === 0;
  const target = minThroughput > 0 || maxP99 !== undefined ? `: ${met ? 'met' : 'NOT met'}` : '';
  console.log(
    `  ${ours} / ${floor}: ${throughput.toFixed(2)}x requests/s${minThroughput > 0 ? ` (target >= ${minThroughput}x)` : ''}, p99 ${p99.toFixed(2)}x${maxP99 === undefined ? '' : ` (target <= ${maxP99}x)`}; median of ${perRound.length} paired rounds (${perRound.map((r) => r.toFixed(2)).join(' ')})${failed ? `, ${failed} failed` : ''}${target}`,
  );
  return met;
}

/** One table row: requests/s, latency, CPU per request of the server and of its upstreams (`upstreamLabel`). */
function formatFigures(f: Figures, upstreamLabel: string): string {
  return `${f.perSecond.toFixed(0).padStart(6)}/s  p50 ${f.p50.toFixed(1).padStart(6)} ms  p99 ${f.p99.toFixed(1).padStart(6)} ms  CPU ${f.cpu.toFixed(0).padStart(5)} µs/req, ${upstreamLabel} ${f.subgraphCpu.toFixed(0).padStart(5)} µs/req${f.failed ? `  (${f.failed} failed)` : ''}`;
}
