/**
 * `npm run bench -- graphql`: single APIs under autocannon with 32
 * connections, next to peers measured in the same run, each server in its
 * own process, in two regimes:
 * - grpc: a local executor whose field `user(id)` is one gRPC call,
 *   users.UserService/GetUser, to a real gRPC upstream with server
 *   reflection answering from an in-memory map
 *   (harness/grpc-services.ts): `{ user(id: 2) { id username fullName userId } }`.
 *   Peers: sluice-graphql (message types by server reflection); graphql-yoga
 *   with a hand-written resolver making the same call over a
 *   @grpc/proto-loader client (target: sluice at least yoga's requests/s,
 *   with a p99 no worse); a bare grpc-js client making the call, 32 in
 *   flight (no HTTP, no GraphQL: the ceiling the upstream sets).
 * - remote: a remote executor to a GraphQL upstream that answers a request
 *   body it has already seen from memory: `{ GetUser(id: 2) { id username fullName userId } }`.
 *   Peers: a forwarder (the floor: the client's JSON body read, the fixed
 *   document sent over an undici pool, the answer parsed and written back,
 *   no GraphQL work; target: sluice at 85% of its requests/s or more);
 *   sluice-graphql; graphql-yoga serving the schema through
 *   @graphql-tools/wrap over an undici pool.
 * Every answer is checked: before the rounds each server's answer must equal
 * the expected data, and during them autocannon counts any answer whose body
 * differs. Rounds are interleaved, the median round is shown and ratios are
 * the median of the round-by-round ratios.
 * Flags: --duration-ms=N (per round, default 2000), --rounds=N (default 7),
 * --regimes=grpc,remote, --profile=DIR (each server writes
 * DIR/<role>.cpuprofile, node --cpu-prof).
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
import { buildSchema, graphql } from 'graphql';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { wrapSchema } from '@graphql-tools/wrap';
import { createYoga } from 'graphql-yoga';
import { GRAPHQL_API_HEADER } from '../contract/names.js';
import { GRPC_USERS, PROTO_DIR, startGrpcUpstream } from '../harness/grpc-services.js';
import { SUBGRAPHS, USERS, USERS_SDL } from '../harness/stitch-subgraphs.js';
import {
  CONNECTIONS,
  announce,
  benchFlags,
  checkedPeer,
  interleavedRounds,
  jsonPoster,
  printTable,
  printTarget,
  processCpu,
  readBody,
  remoteApiResource,
  runRole,
  runsRegime,
  sendJson,
  serveFromMemory,
  startRole,
  startSluiceGraphql,
  undiciExecutor,
  type BenchFlags,
  type Child,
  type Figures,
  type Peer,
} from './graphql-load.js';

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
/** The single remote API of the memory regime: the users subgraph's schema. */
const REMOTE_QUERY = '{ GetUser(id: 2) { id username fullName userId } }';
const REMOTE_API = 'bench.remote-users';
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
function userClient(
  port: number,
): grpc.Client & { GetUser(req: { id: number }, cb: (err: grpc.ServiceError | null, res: unknown) => void): void } {
  const pkg = protoLoader.loadSync('users.proto', {
    includeDirs: [PROTO_DIR],
    longs: String,
    enums: String,
    defaults: true,
  });
  const Service = (grpc.loadPackageDefinition(pkg).users as grpc.GrpcObject)
    .UserService as grpc.ServiceClientConstructor;
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
        user: (_: unknown, { id }: { id: number }) =>
          new Promise((resolve, reject) => client.GetUser({ id }, (err, res) => (err ? reject(err) : resolve(res)))),
      },
    },
  });
  const server = createYoga({ schema, logging: false, maskedErrors: false, graphqlEndpoint: '/graphql' });
  await announce(http.createServer(server));
}

/** The bare client: CONNECTIONS calls in flight for `ms`; prints its figures as JSON and exits. */
async function loop([port, ms]: string[]): Promise<void> {
  const client = userClient(Number(port));
  const call = () =>
    new Promise<unknown>((resolve, reject) =>
      client.GetUser({ id: USER_ID }, (err, res) => (err ? reject(err) : resolve(res))),
    );
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
  const figures: Figures = {
    perSecond: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    cpu: (cpu.user + cpu.system) / latencies.length,
    subgraphCpu: 0,
    failed,
  };
  console.log(JSON.stringify(figures));
  client.close();
}

/** The users subgraph answering from memory: graphql-js runs once per distinct request body. */
async function memoryUpstream(): Promise<void> {
  const schema = makeExecutableSchema(SUBGRAPHS.users);
  await serveFromMemory((body) => {
    const { query, variables, operationName } = JSON.parse(body) as {
      query: string;
      variables?: Record<string, unknown>;
      operationName?: string;
    };
    return graphql({ schema, source: query, variableValues: variables, operationName });
  });
}

/** graphql-yoga serving the remote schema through @graphql-tools/wrap, its executor on an undici keep-alive pool. */
async function yogaRemote([url]: string[]): Promise<void> {
  const schema = wrapSchema({ schema: buildSchema(USERS_SDL), executor: undiciExecutor(url!) });
  await announce(
    http.createServer(createYoga({ schema, logging: false, maskedErrors: false, graphqlEndpoint: '/graphql' })),
  );
}

/** The floor: the client's JSON body read, the fixed document sent to the upstream, its answer parsed and written back. */
async function forwarder([url]: string[]): Promise<void> {
  const post = jsonPoster(url!);
  const body = JSON.stringify({ query: REMOTE_QUERY });
  await announce(
    http.createServer((req, res) => {
      void (async () => {
        JSON.parse(await readBody(req));
        sendJson(res, JSON.stringify(await post(body)));
      })();
    }),
  );
}

const ROLES: Record<string, (args: string[]) => Promise<void>> = {
  upstream,
  yoga,
  loop,
  'memory-upstream': memoryUpstream,
  'yoga-remote': yogaRemote,
  forwarder,
};

await runRole(ROLE_ENV, ROLES);

/** The GraphQLApiSet file sluice-graphql serves, as `sluice compile` writes it. */
function writeConfig(port: number, file: string): Promise<void> {
  return writeFile(
    file,
    JSON.stringify({
      resources: [{ name: API, executable: { schema_definition: SDL, resolutions: { user: resolution(port) } } }],
    }),
  );
}

/** One round of the bare client loop in its own process; the upstream's CPU measured around it. */
async function loopRound(port: number, ms: number, upstreamPid: number): Promise<Figures> {
  const cpu0 = processCpu(upstreamPid);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), String(port), String(ms)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, [ROLE_ENV]: 'loop' },
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  // 'close', not 'exit': the output is read whole.
  const [code] = (await once(child, 'close')) as [number];
  if (code !== 0) throw new Error(`bench graphql: the grpc-js loop exited with ${code}:\n${out}`);
  const figures = JSON.parse(out.trim().split('\n').pop()!) as Figures;
  return { ...figures, subgraphCpu: (processCpu(upstreamPid) - cpu0) / (figures.perSecond * (ms / 1000)) };
}

function expectedRemote(): unknown {
  const { id, username, fullName, userId } = USERS.get(2)!;
  return { GetUser: { id, username, fullName, userId } };
}

type Regime = 'grpc' | 'remote';

const NOTES: Record<string, string> = {
  'sluice grpc': '(sluice-graphql, gRPC resolver, descriptors by server reflection)',
  'yoga grpc': '(graphql-yoga, hand-written resolver, @grpc/proto-loader client)',
  'grpc-js loop': `(the same call from a bare grpc-js client, ${CONNECTIONS} in flight; CPU is the client's)`,
  forwarder: '(no GraphQL work: the fixed document sent, the answer parsed and written back)',
  sluice: '(sluice-graphql, remote executor)',
  yoga: '(graphql-yoga over @graphql-tools/wrap, the same remote schema)',
};

const json = { 'content-type': 'application/json' };

/** The gRPC regime: a local executor whose field is one call to the gRPC users service (its answers are in memory). */
async function runGrpc(flags: BenchFlags, dir: string, children: Child[]): Promise<void> {
  const up = await startRole(import.meta.url, ROLE_ENV, 'upstream', [], flags.profileDir);
  children.push(up);
  const port = Number(new URL(up.url).port);
  const config = path.join(dir, 'graphql-grpc.json');
  await writeConfig(port, config);
  const sluice = await startSluiceGraphql(config, flags.profileDir, 'sluice-grpc');
  children.push(sluice);
  const yogaServer = await startRole(import.meta.url, ROLE_ENV, 'yoga', [String(port)], flags.profileDir);
  children.push(yogaServer);
  const want = expected();
  const peers: Peer[] = [
    await checkedPeer(
      {
        label: 'sluice grpc',
        url: sluice.url,
        pid: sluice.pid,
        query: QUERY,
        headers: { ...json, [GRAPHQL_API_HEADER]: API },
      },
      want,
    ),
    await checkedPeer(
      { label: 'yoga grpc', url: yogaServer.url, pid: yogaServer.pid, query: QUERY, headers: json },
      want,
    ),
  ];
  console.log(`local executor, gRPC resolver: ${QUERY} (one unary gRPC call, users.UserService/GetUser)`);
  const rounds = await interleavedRounds(peers, flags, [up.pid], {
    'grpc-js loop': (ms) => loopRound(port, ms, up.pid),
  });
  printTable(rounds, NOTES, 'upstream');
  printTarget(rounds, 'sluice grpc', 'yoga grpc', 1, 1);
  printTarget(rounds, 'sluice grpc', 'grpc-js loop', 0, undefined);
}

/** The remote regime: one API over the remote executor, its upstream answering from memory. */
async function runRemote(flags: BenchFlags, dir: string, children: Child[]): Promise<void> {
  const up = await startRole(import.meta.url, ROLE_ENV, 'memory-upstream', [], flags.profileDir);
  children.push(up);
  const config = path.join(dir, 'graphql-remote.json');
  await writeFile(config, JSON.stringify({ resources: [remoteApiResource(REMOTE_API, USERS_SDL, up.url)] }));
  const sluice = await startSluiceGraphql(config, flags.profileDir, 'sluice-remote');
  children.push(sluice);
  const yogaServer = await startRole(import.meta.url, ROLE_ENV, 'yoga-remote', [up.url], flags.profileDir);
  children.push(yogaServer);
  const forward = await startRole(import.meta.url, ROLE_ENV, 'forwarder', [up.url], flags.profileDir);
  children.push(forward);
  const want = expectedRemote();
  const peers: Peer[] = [
    await checkedPeer(
      { label: 'forwarder', url: forward.url, pid: forward.pid, query: REMOTE_QUERY, headers: json },
      want,
    ),
    await checkedPeer(
      {
        label: 'sluice',
        url: sluice.url,
        pid: sluice.pid,
        query: REMOTE_QUERY,
        headers: { ...json, [GRAPHQL_API_HEADER]: REMOTE_API },
      },
      want,
    ),
    await checkedPeer(
      { label: 'yoga', url: yogaServer.url, pid: yogaServer.pid, query: REMOTE_QUERY, headers: json },
      want,
    ),
  ];
  console.log(`remote executor, the upstream answering from memory: ${REMOTE_QUERY}`);
  const rounds = await interleavedRounds(peers, flags, [up.pid]);
  printTable(rounds, NOTES, 'upstream');
  printTarget(rounds, 'sluice', 'forwarder', 0.85, undefined);
  printTarget(rounds, 'sluice', 'yoga', 0, undefined);
}

const REGIMES: Record<Regime, (flags: BenchFlags, dir: string, children: Child[]) => Promise<void>> = {
  grpc: runGrpc,
  remote: runRemote,
};

export async function run(args: string[]): Promise<void> {
  const flags = benchFlags(args);
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-graphql-'));
  try {
    console.log(
      `autocannon, ${CONNECTIONS} connections; ${flags.rounds} interleaved rounds of ${flags.ms} ms after a warm-up, median round shown`,
    );
    for (const [regime, runOne] of Object.entries(REGIMES)) {
      if (!runsRegime(flags, regime)) continue;
      const children: Child[] = [];
      try {
        await runOne(flags, dir, children);
      } finally {
        await Promise.all(children.map((c) => c.stop()));
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
