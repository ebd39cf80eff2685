/**
 * `npm run bench -- stitch`: a stitched API over two GraphQL subgraphs
 * (users, products; harness/stitch-subgraphs.ts) answering
 *   { TopProducts(first: 10) { name seller { username fullName userId } } }
 * under autocannon with 32 connections, next to peers measured in the same
 * run, each server in its own process, in two regimes:
 * - memory: subgraphs that answer a request body they have already seen from
 *   memory (they cost almost nothing, so the gateways' own cost shows);
 * - live: subgraphs that execute every request with graphql-js (each query
 *   text parsed and validated once, as production GraphQL servers cache them).
 * Peers:
 * - forwarder: the floor any gateway could reach: no GraphQL parsing,
 *   validation or planning; the client's JSON body read, the two subgraph
 *   documents fixed (the users one per number of distinct sellers), sent over
 *   undici pools, the answers parsed, merged by hand and written as JSON;
 * - sluice: the sluice-graphql server (graphql-server/main.js) with a
 *   GraphQLApiSet file holding the two remote APIs and the stitched one
 *   (requests name it in x-sluice-graphql-api, as Envoy does);
 * - graphql-yoga + @graphql-tools/stitch with batched merged types; its
 *   subschema executors use undici keep-alive pools as sluice's do;
 * - products alone (live only): `{ TopProducts(first: 10) { name seller { id } } }`
 *   sent to the products subgraph, the ceiling set by one subgraph.
 * Targets: from memory, sluice at 80% of the forwarder's requests/s or more
 * with a p99 within 1.5x of its p99; live, sluice at 4x yoga's requests/s or
 * more with a lower p99. Ratios are taken round by round (the rounds are
 * interleaved, so each pair saw the same machine) and their median printed.
 * @graphql-hive/gateway is not a dependency of the project and is skipped.
 * Every answer is checked: before the rounds each gateway's answer must
 * equal the expected data, and during them autocannon counts any answer
 * whose body differs.
 * Flags: --duration-ms=N (per round, default 2000), --rounds=N (default 7),
 * --regimes=memory,live, --profile=DIR (each server writes
 * DIR/<role>-<regime>.cpuprofile, node --cpu-prof).
 */
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSchema, graphql } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { stitchSchemas } from '@graphql-tools/stitch';
import { GRAPHQL_API_HEADER } from '../contract/names.js';
import {
  PRODUCTS,
  PRODUCTS_SDL,
  STITCHED,
  SUBGRAPHS,
  USERS,
  USERS_SDL,
  serveSubgraph,
  type SubgraphName,
} from '../harness/stitch-subgraphs.js';
import {
  CONNECTIONS,
  announce,
  benchFlags,
  checkedPeer,
  interleavedRounds,
  jsonPoster,
  printTable,
  printTarget,
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
  type Peer,
} from './graphql-load.js';

const QUERY = '{ TopProducts(first: 10) { name seller { username fullName userId } } }';
const DIRECT_QUERY = '{ TopProducts(first: 10) { name seller { id } } }';
const ROLE_ENV = 'SLUICE_BENCH_STITCH';
const STITCHED_API = 'shop.stitched';

/** What the stitched query must answer, from the fixture's data. */
function expected(): unknown {
  return {
    TopProducts: PRODUCTS.slice(0, 10).map((p) => {
      const u = p.seller && USERS.get(p.seller.id);
      return {
        name: p.name,
        seller: p.seller && { username: u?.username ?? null, fullName: u?.fullName ?? null, userId: u?.userId ?? null },
      };
    }),
  };
}

/** graphql-yoga + @graphql-tools/stitch, merged types batched, executors on undici keep-alive pools. */
async function yogaGateway(usersUrl: string, productsUrl: string): Promise<void> {
  const schema = stitchSchemas({
    subschemas: [
      {
        schema: buildSchema(USERS_SDL),
        executor: undiciExecutor(usersUrl),
        batch: true,
        merge: { User: { selectionSet: '{ id }', fieldName: 'GetUser', args: ({ id }: { id: number }) => ({ id }) } },
      },
      { schema: buildSchema(PRODUCTS_SDL), executor: undiciExecutor(productsUrl), batch: true },
    ],
  });
  const yoga = createYoga({ schema, logging: false, maskedErrors: false, graphqlEndpoint: '/graphql' });
  await announce(http.createServer(yoga));
}

interface User {
  username: string | null;
  fullName: string | null;
  userId: number | null;
}

/** The users document for `n` distinct sellers, one aliased GetUser each (built once per n). */
const usersDocuments = new Map<number, string>();
function usersDocument(n: number): string {
  let query = usersDocuments.get(n);
  if (query === undefined) {
    const ids = Array.from({ length: n }, (_, i) => i);
    query = `query (${ids.map((i) => `$u${i}: Int!`).join(', ')}) { ${ids.map((i) => `u${i}: GetUser(id: $u${i}) { username fullName userId }`).join(' ')} }`;
    usersDocuments.set(n, query);
  }
  return query;
}

/** The floor: the bench query answered by hand over the same two subgraphs, no GraphQL work at all. */
async function forwarder(usersUrl: string, productsUrl: string): Promise<void> {
  const [users, products] = [jsonPoster(usersUrl), jsonPoster(productsUrl)];
  const productsBody = JSON.stringify({ query: DIRECT_QUERY });
  const server = http.createServer((req, res) => {
    void (async () => {
      JSON.parse(await readBody(req));
      const top = (
        (await products(productsBody)) as { data: { TopProducts: { name: string; seller: { id: number } | null }[] } }
      ).data.TopProducts;
      const ids = [...new Set(top.flatMap((p) => (p.seller ? [p.seller.id] : [])))];
      const variables = Object.fromEntries(ids.map((id, i) => [`u${i}`, id]));
      const found = (
        (await users(JSON.stringify({ query: usersDocument(ids.length), variables }))) as {
          data: Record<string, User | null>;
        }
      ).data;
      const byId = new Map(ids.map((id, i) => [id, found[`u${i}`]]));
      const seller = (u: User | null | undefined): User => ({
        username: u?.username ?? null,
        fullName: u?.fullName ?? null,
        userId: u?.userId ?? null,
      });
      sendJson(
        res,
        JSON.stringify({
          data: { TopProducts: top.map((p) => ({ name: p.name, seller: p.seller && seller(byId.get(p.seller.id)) })) },
        }),
      );
    })();
  });
  await announce(server);
}

/** A subgraph answering from memory: graphql-js runs once per distinct request body. */
async function memorySubgraph(name: SubgraphName): Promise<void> {
  const schema = makeExecutableSchema(SUBGRAPHS[name]);
  await serveFromMemory((body) => {
    const { query, variables, operationName } = JSON.parse(body) as {
      query: string;
      variables?: Record<string, unknown>;
      operationName?: string;
    };
    return graphql({ schema, source: query, variableValues: variables, operationName });
  });
}

async function liveSubgraph(name: SubgraphName): Promise<void> {
  console.log(JSON.stringify({ port: (await serveSubgraph(name)).port }));
}

const ROLES: Record<string, (args: string[]) => Promise<void>> = {
  yoga: ([u, p]) => yogaGateway(u!, p!),
  forwarder: ([u, p]) => forwarder(u!, p!),
  'users-live': () => liveSubgraph('users'),
  'products-live': () => liveSubgraph('products'),
  'users-memory': () => memorySubgraph('users'),
  'products-memory': () => memorySubgraph('products'),
};

await runRole(ROLE_ENV, ROLES);

/** The GraphQLApiSet file sluice-graphql serves: the stitched API over the two subgraphs, as `sluice compile` writes it. */
function writeConfig(usersUrl: string, productsUrl: string, file: string): Promise<void> {
  const stitched = {
    name: STITCHED_API,
    stitched: {
      enable_introspection: STITCHED.enableIntrospection,
      subschemas: STITCHED.subschemas.map((s) => ({
        api: s.api,
        type_merge: Object.fromEntries(
          Object.entries(s.typeMerge).map(([t, m]) => [
            t,
            { selection_set: m.selectionSet, query_name: m.queryName, args: m.args },
          ]),
        ),
      })),
    },
  };
  return writeFile(
    file,
    JSON.stringify({
      resources: [
        remoteApiResource('shop.users', USERS_SDL, usersUrl),
        remoteApiResource('shop.products', PRODUCTS_SDL, productsUrl),
        stitched,
      ],
    }),
  );
}

type Regime = 'memory' | 'live';

const NOTES: Record<string, string> = {
  forwarder: '(no GraphQL work: fixed documents, answers merged by hand)',
  sluice: '(sluice-graphql, stitched API)',
  yoga: '(graphql-yoga + @graphql-tools/stitch, batched merged types)',
  'products alone': '(the products subgraph, seller ids only)',
};

/** One regime: its subgraphs and gateways started, every peer measured in interleaved rounds, the table and targets printed. */
async function runRegime(regime: Regime, flags: BenchFlags, dir: string): Promise<boolean> {
  const children: Child[] = [];
  const start = (role: string, args: string[] = []) =>
    startRole(
      import.meta.url,
      ROLE_ENV,
      role,
      args,
      flags.profileDir,
      `${role.replace(/-(live|memory)$/, '')}-${regime}`,
    );
  try {
    const users = await start(`users-${regime}`);
    children.push(users);
    const products = await start(`products-${regime}`);
    children.push(products);
    const config = path.join(dir, `graphql-${regime}.json`);
    await writeConfig(users.url, products.url, config);
    const sluice = await startSluiceGraphql(config, flags.profileDir, `sluice-${regime}`);
    children.push(sluice);
    const yoga = await start('yoga', [users.url, products.url]);
    children.push(yoga);
    const forward = await start('forwarder', [users.url, products.url]);
    children.push(forward);
    const want = expected();
    const json = { 'content-type': 'application/json' };
    const peers: Peer[] = [
      await checkedPeer({ label: 'forwarder', url: forward.url, pid: forward.pid, query: QUERY, headers: json }, want),
      await checkedPeer(
        {
          label: 'sluice',
          url: sluice.url,
          pid: sluice.pid,
          query: QUERY,
          headers: { ...json, [GRAPHQL_API_HEADER]: STITCHED_API },
        },
        want,
      ),
      await checkedPeer({ label: 'yoga', url: yoga.url, pid: yoga.pid, query: QUERY, headers: json }, want),
    ];
    if (regime === 'live')
      peers.push(
        await checkedPeer(
          { label: 'products alone', url: products.url, pid: products.pid, query: DIRECT_QUERY, headers: json },
          undefined,
        ),
      );
    console.log(
      regime === 'memory'
        ? 'subgraphs answering from memory (graphql-js once per distinct request body, then the kept bytes):'
        : 'live subgraphs (node:http + graphql-js executing every request, each query text parsed and validated once):',
    );
    const rounds = await interleavedRounds(peers, flags, [users.pid, products.pid]);
    printTable(rounds, NOTES, 'subgraphs');
    if (regime === 'memory') {
      const met = printTarget(rounds, 'sluice', 'forwarder', 0.8, 1.5);
      printTarget(rounds, 'sluice', 'yoga', 0, undefined);
      return met;
    }
    printTarget(rounds, 'sluice', 'forwarder', 0, undefined);
    return printTarget(rounds, 'sluice', 'yoga', 4, 1);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

export async function run(args: string[]): Promise<void> {
  const flags = benchFlags(args);
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-stitch-'));
  try {
    console.log(`query ${QUERY}`);
    console.log(
      `autocannon, ${CONNECTIONS} connections; ${flags.rounds} interleaved rounds of ${flags.ms} ms after a warm-up, median round shown`,
    );
    console.log('@graphql-hive/gateway: skipped (not a dependency of the project; adding it changes package.json)');
    for (const regime of ['memory', 'live'] as const)
      if (runsRegime(flags, regime)) await runRegime(regime, flags, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
