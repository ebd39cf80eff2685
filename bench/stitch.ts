/**
 * `npm run bench -- stitch`: a stitched API over two remote GraphQL
 * subgraphs (users, products; test/fixtures/stitch-subgraphs.ts) answering
 *   { TopProducts(first: 10) { name seller { username fullName userId } } }
 * under autocannon with 32 connections, next to peers measured in the same
 * run, each server in its own process:
 * - sluice: the sluice-graphql server (graphql-server/main.js) with a
 *   GraphQLApiSet file holding the two remote APIs and the stitched one
 *   (requests name it in x-sluice-graphql-api, as Envoy does);
 * - graphql-yoga + @graphql-tools/stitch with batched merged types (the
 *   target: sluice at 4x its requests/s or more, with a lower p99); its
 *   subschema executors use undici keep-alive pools as sluice's do;
 * - products alone: `{ TopProducts(first: 10) { name seller { id } } }` sent
 *   to the products subgraph, the ceiling set by one subgraph.
 * @graphql-hive/gateway is not a dependency of the project and is skipped.
 * Every answer is checked: before the rounds each gateway's answer must
 * equal the expected data, and during them autocannon counts any answer
 * whose body differs. Rounds are interleaved and the median round is shown.
 * Flags: --duration-ms=N (per round, default 5000), --rounds=N (default 3),
 * --profile=DIR (each server writes DIR/<role>.cpuprofile, node --cpu-prof).
 */
import http from 'node:http';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { buildSchema, print, type DocumentNode } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { stitchSchemas } from '@graphql-tools/stitch';
import type { Executor } from '@graphql-tools/utils';
import { Pool } from 'undici';
import { GRAPHQL_API_HEADER } from '../protos/contract.js';
import { PRODUCTS, PRODUCTS_SDL, STITCHED, USERS, USERS_SDL, serveSubgraph, type SubgraphName } from '../test/fixtures/stitch-subgraphs.js';

const QUERY = '{ TopProducts(first: 10) { name seller { username fullName userId } } }';
const DIRECT_QUERY = '{ TopProducts(first: 10) { name seller { id } } }';
const CONNECTIONS = 32;
const TARGET_RATIO = 4;
const ROLE_ENV = 'SLUICE_BENCH_STITCH';
const STITCHED_API = 'shop.stitched';

/** What the stitched query must answer, from the fixture's data. */
function expected(): unknown {
  return {
    TopProducts: PRODUCTS.slice(0, 10).map((p) => {
      const u = p.seller && USERS.get(p.seller.id);
      return { name: p.name, seller: p.seller && { username: u?.username ?? null, fullName: u?.fullName ?? null, userId: u?.userId ?? null } };
    }),
  };
}

/** Prints `{"port":N}` once `server` listens on 127.0.0.1. */
async function announce(server: http.Server): Promise<void> {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
}

/** graphql-yoga + @graphql-tools/stitch, merged types batched, executors on undici keep-alive pools. */
async function yogaGateway(usersUrl: string, productsUrl: string): Promise<void> {
  const printed = new WeakMap<DocumentNode, string>();
  const executor = (url: string): Executor => {
    const target = new URL(url);
    const pool = new Pool(target.origin, { connections: 64 });
    return async ({ document, variables, operationName }) => {
      let query = printed.get(document);
      if (query === undefined) printed.set(document, (query = print(document)));
      const res = await pool.request({ path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables, operationName }) });
      return (await res.body.json()) as never;
    };
  };
  const schema = stitchSchemas({
    subschemas: [
      { schema: buildSchema(USERS_SDL), executor: executor(usersUrl), batch: true, merge: { User: { selectionSet: '{ id }', fieldName: 'GetUser', args: ({ id }: { id: number }) => ({ id }) } } },
      { schema: buildSchema(PRODUCTS_SDL), executor: executor(productsUrl), batch: true },
    ],
  });
  const yoga = createYoga({ schema, logging: false, maskedErrors: false, graphqlEndpoint: '/graphql' });
  await announce(http.createServer(yoga));
}

async function subgraph(name: SubgraphName): Promise<void> {
  console.log(JSON.stringify({ port: (await serveSubgraph(name)).port }));
}

const ROLES: Record<string, (args: string[]) => Promise<void>> = {
  yoga: ([u, p]) => yogaGateway(u!, p!),
  users: () => subgraph('users'),
  products: () => subgraph('products'),
};

if (process.env[ROLE_ENV]) {
  // A clean exit on SIGTERM, so that `--cpu-prof` in NODE_OPTIONS writes each server's profile.
  process.on('SIGTERM', () => process.exit(0));
  await ROLES[process.env[ROLE_ENV]]!(process.argv.slice(2));
}

export interface Child {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A server in its own process (profiled into `profileDir` if given):
 * `script` with `args`; resolves when it prints `"port":N` (a role of this
 * module prints it, sluice-graphql logs it).
 */
export async function startChild(script: string, args: string[], env: NodeJS.ProcessEnv, profileDir: string | undefined, name: string): Promise<Child> {
  const node = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...node, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const exited = once(child, 'exit');
  let out = '';
  child.stdout!.setEncoding('utf8');
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: string) => {
      out += d;
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then(() => reject(new Error(`bench stitch: ${name} exited before listening:\n${out}`)));
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

/** A role of this module (a subgraph or the yoga gateway) in its own process. */
const startRole = (role: string, args: string[], profileDir: string | undefined) => startChild(fileURLToPath(import.meta.url), args, { [ROLE_ENV]: role }, profileDir, role);

/** The sluice-graphql server with the stitched API over the two subgraphs (a GraphQLApiSet file, as `sluice compile` writes). */
async function startSluice(usersUrl: string, productsUrl: string, dir: string, profileDir: string | undefined): Promise<Child> {
  const remote = (name: string, sdl: string, url: string) => {
    const u = new URL(url);
    return { name, executable: { schema_definition: sdl, remote: { target: { cluster: name, hosts: [{ address: u.hostname, port: Number(u.port) }] }, headers: { ':path': u.pathname } } } };
  };
  const stitched = {
    name: STITCHED_API,
    stitched: {
      enable_introspection: STITCHED.enableIntrospection,
      subschemas: STITCHED.subschemas.map((s) => ({
        api: s.api,
        type_merge: Object.fromEntries(Object.entries(s.typeMerge).map(([t, m]) => [t, { selection_set: m.selectionSet, query_name: m.queryName, args: m.args }])),
      })),
    },
  };
  const file = path.join(dir, 'graphql.json');
  await writeFile(file, JSON.stringify({ resources: [remote('shop.users', USERS_SDL, usersUrl), remote('shop.products', PRODUCTS_SDL, productsUrl), stitched] }));
  const main = fileURLToPath(new URL('../graphql-server/main.js', import.meta.url));
  return startChild(main, ['--config', file, '--port', '0', '--admin-port', '0'], {}, profileDir, 'sluice');
}

export interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU time per request of the measured server, and of the two subgraphs together, in µs. */
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

export async function post(url: string, headers: Record<string, string>, query: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
  return res.text();
}

/** CPU time (user + system) of process `pid` in µs, from /proc (Linux; clock ticks of 10 ms). */
export function processCpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export async function load(peer: Peer, ms: number, subgraphs: number[]): Promise<Figures> {
  const subgraphCpu = () => subgraphs.reduce((n, pid) => n + processCpu(pid), 0);
  const [cpu0, sub0] = [processCpu(peer.pid), subgraphCpu()];
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
    subgraphCpu: (subgraphCpu() - sub0) / n,
    failed: r.errors + r.non2xx + r.mismatches,
  };
}

export function median(rounds: Figures[]): Figures {
  return [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)]!;
}

const fmt = (f: Figures) =>
  `${f.perSecond.toFixed(0).padStart(6)}/s  p50 ${f.p50.toFixed(1).padStart(6)} ms  p99 ${f.p99.toFixed(1).padStart(6)} ms  CPU ${f.cpu.toFixed(0).padStart(5)} µs/req, subgraphs ${f.subgraphCpu.toFixed(0).padStart(5)} µs/req${f.failed ? `  (${f.failed} failed)` : ''}`;

export async function run(args: string[]): Promise<void> {
  const flag = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const ms = flag('duration-ms', 5000);
  const rounds = flag('rounds', 3);
  const profileDir = args.find((a) => a.startsWith('--profile='))?.split('=')[1];
  const children: Child[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-stitch-'));
  try {
    const users = await startRole('users', [], profileDir);
    const products = await startRole('products', [], profileDir);
    children.push(users, products);
    const sluiceNote = '(sluice-graphql, stitched API)';
    const sluice = await startSluice(users.url, products.url, dir, profileDir);
    const yoga = await startRole('yoga', [users.url, products.url], profileDir);
    children.push(sluice, yoga);
    const want = expected();
    const peers: Peer[] = [];
    const json = { 'content-type': 'application/json' };
    for (const [label, note, { url, pid }, query, headers] of [
      ['sluice', sluiceNote, sluice, QUERY, { ...json, [GRAPHQL_API_HEADER]: STITCHED_API }],
      ['yoga + stitch', '(graphql-yoga + @graphql-tools/stitch, batched merged types)', yoga, QUERY, json],
      ['products alone', '(the products subgraph, seller ids only)', products, DIRECT_QUERY, json],
    ] as const) {
      const body = await post(url, headers, query);
      const data = (JSON.parse(body) as { data?: unknown }).data;
      if (query === QUERY && !isDeepStrictEqual(data, want)) throw new Error(`bench stitch: ${label} answered ${body}, not the expected data`);
      peers.push({ label, note, url, pid, headers, query, body });
    }
    console.log(`query ${QUERY}`);
    console.log(`autocannon, ${CONNECTIONS} connections; ${rounds} interleaved rounds of ${ms} ms after a warm-up, median round shown`);
    console.log('@graphql-hive/gateway: skipped (not a dependency of the project; adding it changes package.json)');
    console.log('subgraphs: node:http servers that parse and validate each query text once (as production GraphQL servers cache them), the same for every gateway');
    const subgraphs = [users.pid, products.pid];
    for (const p of peers) await load(p, Math.min(2000, ms), subgraphs);
    const results = new Map<string, Figures[]>(peers.map((p) => [p.label, []]));
    for (let r = 0; r < rounds; r++) for (const p of peers) results.get(p.label)!.push(await load(p, ms, subgraphs));
    const [ours, yogaFigures] = [median(results.get('sluice')!), median(results.get('yoga + stitch')!)];
    for (const p of peers) console.log(`  ${p.label.padEnd(15)}${fmt(median(results.get(p.label)!))}   ${p.note}`);
    const ratio = ours.perSecond / yogaFigures.perSecond;
    const met = ratio >= TARGET_RATIO && ours.p99 < yogaFigures.p99 && ours.failed === 0;
    console.log(
      `  sluice / yoga + stitch: ${ratio.toFixed(2)}x requests/s (target >= ${TARGET_RATIO}x), p99 ${ours.p99.toFixed(1)} vs ${yogaFigures.p99.toFixed(1)} ms (target: lower): ${met ? 'met' : 'NOT met'}`,
    );
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
