/**
 * `npm run bench -- stitch`: a stitched API over two remote GraphQL
 * subgraphs (users, products; harness/stitch-subgraphs.ts) answering
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
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSchema, print, type DocumentNode } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { stitchSchemas } from '@graphql-tools/stitch';
import type { Executor } from '@graphql-tools/utils';
import { Pool } from 'undici';
import { GRAPHQL_API_HEADER } from '../contract/names.js';
import { PRODUCTS, PRODUCTS_SDL, STITCHED, USERS, USERS_SDL, serveSubgraph, type SubgraphName } from '../harness/stitch-subgraphs.js';
import { CONNECTIONS, announce, benchFlags, checkedPeer, formatFigures, interleavedRounds, runRole, startRole, startSluiceGraphql, type Child, type Peer } from './graphql-load.js';

const QUERY = '{ TopProducts(first: 10) { name seller { username fullName userId } } }';
const DIRECT_QUERY = '{ TopProducts(first: 10) { name seller { id } } }';
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

await runRole(ROLE_ENV, ROLES);

/** The GraphQLApiSet file sluice-graphql serves: the stitched API over the two subgraphs, as `sluice compile` writes it. */
function writeConfig(usersUrl: string, productsUrl: string, file: string): Promise<void> {
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
  return writeFile(file, JSON.stringify({ resources: [remote('shop.users', USERS_SDL, usersUrl), remote('shop.products', PRODUCTS_SDL, productsUrl), stitched] }));
}

export async function run(args: string[]): Promise<void> {
  const flags = benchFlags(args);
  const children: Child[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-stitch-'));
  try {
    const users = await startRole(import.meta.url, ROLE_ENV, 'users', [], flags.profileDir);
    const products = await startRole(import.meta.url, ROLE_ENV, 'products', [], flags.profileDir);
    children.push(users, products);
    const config = path.join(dir, 'graphql.json');
    await writeConfig(users.url, products.url, config);
    const sluice = await startSluiceGraphql(config, flags.profileDir);
    const yoga = await startRole(import.meta.url, ROLE_ENV, 'yoga', [users.url, products.url], flags.profileDir);
    children.push(sluice, yoga);
    const want = expected();
    const json = { 'content-type': 'application/json' };
    const peers: Peer[] = [
      await checkedPeer({ label: 'sluice', note: '(sluice-graphql, stitched API)', url: sluice.url, pid: sluice.pid, query: QUERY, headers: { ...json, [GRAPHQL_API_HEADER]: STITCHED_API } }, want),
      await checkedPeer({ label: 'yoga + stitch', note: '(graphql-yoga + @graphql-tools/stitch, batched merged types)', url: yoga.url, pid: yoga.pid, query: QUERY, headers: json }, want),
      await checkedPeer({ label: 'products alone', note: '(the products subgraph, seller ids only)', url: products.url, pid: products.pid, query: DIRECT_QUERY, headers: json }, undefined),
    ];
    console.log(`query ${QUERY}`);
    console.log(`autocannon, ${CONNECTIONS} connections; ${flags.rounds} interleaved rounds of ${flags.ms} ms after a warm-up, median round shown`);
    console.log('@graphql-hive/gateway: skipped (not a dependency of the project; adding it changes package.json)');
    console.log('subgraphs: node:http servers that parse and validate each query text once (as production GraphQL servers cache them), the same for every gateway');
    const results = await interleavedRounds(peers, flags, [users.pid, products.pid]);
    for (const p of peers) console.log(`  ${p.label.padEnd(15)}${formatFigures(results.get(p.label)!, 'subgraphs')}   ${p.note}`);
    const [ours, yogaFigures] = [results.get('sluice')!, results.get('yoga + stitch')!];
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
