/**
 * `npm run bench -- graphql`: a single API (local executor) whose field
 * `user(id)` is one gRPC call, users.UserService/GetUser, to a real gRPC
 * upstream with server reflection (test/fixtures/grpc-services.ts), answering
 *   { user(id: 2) { id username fullName userId } }
 * under autocannon with 32 connections, next to peers measured in the same
 * run, each server in its own process:
 * - sluice: the sluice-graphql server (graphql-server/main.js) with a
 *   GraphQLApiSet file holding the API (message types by server reflection);
 * - graphql-yoga serving the same schema with a hand-written resolver making
 *   the same call over a @grpc/proto-loader client (the target: sluice at
 *   least yoga's requests/s, with a p99 no worse);
 * - grpc-js loop: the same GetUser call from a bare grpc-js client, 32 calls
 *   in flight (no HTTP, no GraphQL: the ceiling the upstream sets).
 * Every answer is checked: before the rounds each server's answer must equal
 * the expected data, and during them autocannon counts any answer whose body
 * differs. Rounds are interleaved and the median round is shown.
 * Flags: --duration-ms=N (per round, default 5000), --rounds=N (default 3),
 * --profile=DIR (each server writes DIR/<role>.cpuprofile, node --cpu-prof).
 */
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { createYoga } from 'graphql-yoga';
import { GRAPHQL_API_HEADER } from '../protos/contract.js';
import { GRPC_USERS, PROTO_DIR, startGrpcUpstream } from '../test/fixtures/grpc-services.js';
import { load, median, post, processCpu, startChild, type Child, type Figures, type Peer } from './stitch.js';

const QUERY = '{ user(id: 2) { id username fullName userId } }';
const USER_ID = 2;
const SDL = /* GraphQL */ `
  type Query {
    user(id: Int!): User @resolve(name: "user")
  }
  type User {
    id: Int!
    username: String
    fullName: String
    userId: Int
  }
`;
const CONNECTIONS = 32;
const ROLE_ENV = 'SLUICE_BENCH_GRAPHQL';
const API = 'bench.users';

function expected(): unknown {
  const u = GRPC_USERS.get(USER_ID)!;
  return { user: { id: u.id, username: u.username, fullName: u.full_name, userId: u.user_id } };
}

/** The resolution as the compiler writes it into the GraphQLApiSet (proto JSON). */
const resolution = (port: number) => ({
  grpc: {
    service_name: 'users.UserService',
    method_name: 'GetUser',
    outgoing_message_json: { id: '{$args.id}' },
    target: { cluster: 'users', hosts: [{ address: '127.0.0.1', port }] },
  },
});

/** The users service over @grpc/proto-loader, as a hand-written server would call it (camelCase fields). */
function userClient(port: number): grpc.Client & { GetUser(req: { id: number }, cb: (err: grpc.ServiceError | null, res: unknown) => void): void } {
  const pkg = protoLoader.loadSync('users.proto', { includeDirs: [PROTO_DIR], longs: String, enums: String, defaults: true });
  const Service = (grpc.loadPackageDefinition(pkg).users as grpc.GrpcObject).UserService as grpc.ServiceClientConstructor;
  return new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as never;
}

/** Prints `{"port":N}` once `server` listens on 127.0.0.1. */
async function announce(server: http.Server): Promise<void> {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
}

async function upstream(): Promise<void> {
  console.log(JSON.stringify({ port: (await startGrpcUpstream({ record: false })).port }));
}

/** graphql-yoga, the same schema, a hand-written resolver over a proto-loader client. */
async function yoga([port]: string[]): Promise<void> {
  const client = userClient(Number(port));
  const schema = makeExecutableSchema({
    typeDefs: SDL.replace(' @resolve(name: "user")', ''),
    resolvers: {
      Query: {
        user: (_: unknown, { id }: { id: number }) => new Promise((resolve, reject) => client.GetUser({ id }, (err, res) => (err ? reject(err) : resolve(res)))),
      },
    },
  });
  const server = createYoga({ schema, logging: false, maskedErrors: false, graphqlEndpoint: '/graphql' });
  await announce(http.createServer(server));
}

/** The bare client: CONNECTIONS calls in flight for `ms`; prints its figures as JSON and exits. */
async function loop([port, ms]: string[]): Promise<void> {
  const client = userClient(Number(port));
  const call = () => new Promise<unknown>((resolve, reject) => client.GetUser({ id: USER_ID }, (err, res) => (err ? reject(err) : resolve(res))));
  await call();
  const latencies: number[] = [];
  let failed = 0;
  const start = performance.now();
  const end = start + Number(ms);
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await call().catch(() => failed++);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  const figures: Figures = { perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), cpu: (cpu.user + cpu.system) / latencies.length, subgraphCpu: 0, failed };
  console.log(JSON.stringify(figures));
  client.close();
}

const ROLES: Record<string, (args: string[]) => Promise<void>> = { upstream, yoga, loop };

if (process.env[ROLE_ENV]) {
  // A clean exit on SIGTERM, so that `--cpu-prof` in NODE_OPTIONS writes each server's profile.
  process.on('SIGTERM', () => process.exit(0));
  await ROLES[process.env[ROLE_ENV]]!(process.argv.slice(2));
}

const startRole = (role: string, args: string[], profileDir: string | undefined) => startChild(fileURLToPath(import.meta.url), args, { [ROLE_ENV]: role }, profileDir, role);

/** The sluice-graphql server with the API in a GraphQLApiSet file, as `sluice compile` writes it. */
async function startSluice(port: number, dir: string, profileDir: string | undefined): Promise<Child> {
  const file = path.join(dir, 'graphql.json');
  await writeFile(file, JSON.stringify({ resources: [{ name: API, executable: { schema_definition: SDL, resolutions: { user: resolution(port) } } }] }));
  const main = fileURLToPath(new URL('../graphql-server/main.js', import.meta.url));
  return startChild(main, ['--config', file, '--port', '0', '--admin-port', '0'], {}, profileDir, 'sluice');
}

/** One round of the bare client loop in its own process; the upstream's CPU measured around it. */
async function loopRound(port: number, ms: number, upstreamPid: number): Promise<Figures> {
  const cpu0 = processCpu(upstreamPid);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), String(port), String(ms)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [ROLE_ENV]: 'loop' } });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`bench graphql: the grpc-js loop exited with ${code}:\n${out}`);
  const figures = JSON.parse(out.trim().split('\n').pop()!) as Figures;
  return { ...figures, subgraphCpu: (processCpu(upstreamPid) - cpu0) / (figures.perSecond * (ms / 1000)) };
}

const fmt = (f: Figures) =>
  `${f.perSecond.toFixed(0).padStart(6)}/s  p50 ${f.p50.toFixed(1).padStart(5)} ms  p99 ${f.p99.toFixed(1).padStart(5)} ms  CPU ${f.cpu.toFixed(0).padStart(4)} µs/req, upstream ${f.subgraphCpu.toFixed(0).padStart(4)} µs/req${f.failed ? `  (${f.failed} failed)` : ''}`;

export async function run(args: string[]): Promise<void> {
  const flag = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const ms = flag('duration-ms', 5000);
  const rounds = flag('rounds', 3);
  const profileDir = args.find((a) => a.startsWith('--profile='))?.split('=')[1];
  const children: Child[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-graphql-'));
  try {
    const up = await startRole('upstream', [], profileDir);
    children.push(up);
    const port = Number(new URL(up.url).port);
    const sluiceNote = '(sluice-graphql, gRPC resolver, descriptors by server reflection)';
    const sluice = await startSluice(port, dir, profileDir);
    children.push(sluice);
    const yogaServer = await startRole('yoga', [String(port)], profileDir);
    children.push(yogaServer);
    const want = expected();
    const json = { 'content-type': 'application/json' };
    const peers: Peer[] = [];
    for (const [label, note, { url, pid }, headers] of [
      ['sluice', sluiceNote, sluice, { ...json, [GRAPHQL_API_HEADER]: API }],
      ['yoga', '(graphql-yoga, hand-written resolver, @grpc/proto-loader client)', yogaServer, json],
    ] as const) {
      const body = await post(url, headers, QUERY);
      if (!isDeepStrictEqual((JSON.parse(body) as { data?: unknown }).data, want)) throw new Error(`bench graphql: ${label} answered ${body}, not the expected data`);
      peers.push({ label, note, url, pid, headers, query: QUERY, body });
    }
    console.log(`query ${QUERY} (one unary gRPC call, users.UserService/GetUser)`);
    console.log(`autocannon, ${CONNECTIONS} connections; ${rounds} interleaved rounds of ${ms} ms after a warm-up, median round shown`);
    for (const p of peers) await load(p, Math.min(2000, ms), [up.pid]);
    await loopRound(port, Math.min(2000, ms), up.pid);
    const results = new Map<string, Figures[]>([...peers.map((p) => [p.label, []] as [string, Figures[]]), ['grpc-js loop', []]]);
    for (let r = 0; r < rounds; r++) {
      for (const p of peers) results.get(p.label)!.push(await load(p, ms, [up.pid]));
      results.get('grpc-js loop')!.push(await loopRound(port, ms, up.pid));
    }
    for (const p of peers) console.log(`  ${p.label.padEnd(13)}${fmt(median(results.get(p.label)!))}   ${p.note}`);
    console.log(`  ${'grpc-js loop'.padEnd(13)}${fmt(median(results.get('grpc-js loop')!))}   (the same call from a bare grpc-js client, ${CONNECTIONS} in flight; CPU is the client's)`);
    const [ours, theirs, bare] = [median(results.get('sluice')!), median(results.get('yoga')!), median(results.get('grpc-js loop')!)];
    const met = ours.perSecond >= theirs.perSecond && ours.p99 <= theirs.p99 && ours.failed === 0;
    console.log(
      `  sluice / yoga: ${(ours.perSecond / theirs.perSecond).toFixed(2)}x requests/s (target >= 1x), p99 ${ours.p99.toFixed(1)} vs ${theirs.p99.toFixed(1)} ms (target: no worse): ${met ? 'met' : 'NOT met'}`,
    );
    console.log(`  sluice / grpc-js loop: ${(ours.perSecond / bare.perSecond).toFixed(2)}x requests/s`);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
