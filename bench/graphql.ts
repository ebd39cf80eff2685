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
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { createYoga } from 'graphql-yoga';
import { GRAPHQL_API_HEADER } from '../protos/contract.js';
import { GRPC_USERS, PROTO_DIR, startGrpcUpstream } from '../test/fixtures/grpc-services.js';
import { CONNECTIONS, announce, benchFlags, checkedPeer, formatFigures, interleavedRounds, processCpu, runRole, startRole, startSluiceGraphql, type Child, type Figures, type Peer } from './graphql-load.js';

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

await runRole(ROLE_ENV, ROLES);

/** The GraphQLApiSet file sluice-graphql serves, as `sluice compile` writes it. */
function writeConfig(port: number, file: string): Promise<void> {
  return writeFile(file, JSON.stringify({ resources: [{ name: API, executable: { schema_definition: SDL, resolutions: { user: resolution(port) } } }] }));
}

/** One round of the bare client loop in its own process; the upstream's CPU measured around it. */
async function loopRound(port: number, ms: number, upstreamPid: number): Promise<Figures> {
  const cpu0 = processCpu(upstreamPid);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), String(port), String(ms)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [ROLE_ENV]: 'loop' } });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  // 'close', not 'exit': the output is read whole.
  const [code] = (await once(child, 'close')) as [number];
  if (code !== 0) throw new Error(`bench graphql: the grpc-js loop exited with ${code}:\n${out}`);
  const figures = JSON.parse(out.trim().split('\n').pop()!) as Figures;
  return { ...figures, subgraphCpu: (processCpu(upstreamPid) - cpu0) / (figures.perSecond * (ms / 1000)) };
}

export async function run(args: string[]): Promise<void> {
  const flags = benchFlags(args);
  const children: Child[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-graphql-'));
  try {
    const up = await startRole(import.meta.url, ROLE_ENV, 'upstream', [], flags.profileDir);
    children.push(up);
    const port = Number(new URL(up.url).port);
    const config = path.join(dir, 'graphql.json');
    await writeConfig(port, config);
    const sluice = await startSluiceGraphql(config, flags.profileDir);
    children.push(sluice);
    const yogaServer = await startRole(import.meta.url, ROLE_ENV, 'yoga', [String(port)], flags.profileDir);
    children.push(yogaServer);
    const want = expected();
    const json = { 'content-type': 'application/json' };
    const peers: Peer[] = [
      await checkedPeer({ label: 'sluice', note: '(sluice-graphql, gRPC resolver, descriptors by server reflection)', url: sluice.url, pid: sluice.pid, query: QUERY, headers: { ...json, [GRAPHQL_API_HEADER]: API } }, want),
      await checkedPeer({ label: 'yoga', note: '(graphql-yoga, hand-written resolver, @grpc/proto-loader client)', url: yogaServer.url, pid: yogaServer.pid, query: QUERY, headers: json }, want),
    ];
    console.log(`query ${QUERY} (one unary gRPC call, users.UserService/GetUser)`);
    console.log(`autocannon, ${CONNECTIONS} connections; ${flags.rounds} interleaved rounds of ${flags.ms} ms after a warm-up, median round shown`);
    const results = await interleavedRounds(peers, flags, [up.pid], { 'grpc-js loop': (ms) => loopRound(port, ms, up.pid) });
    for (const p of peers) console.log(`  ${p.label.padEnd(13)}${formatFigures(results.get(p.label)!, 'upstream')}   ${p.note}`);
    console.log(`  ${'grpc-js loop'.padEnd(13)}${formatFigures(results.get('grpc-js loop')!, 'upstream')}   (the same call from a bare grpc-js client, ${CONNECTIONS} in flight; CPU is the client's)`);
    const [ours, theirs, bare] = [results.get('sluice')!, results.get('yoga')!, results.get('grpc-js loop')!];
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
