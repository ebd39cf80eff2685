/**
 * The route side of GraphQLApis, from the `sluice` binary's own output: a
 * request for the API's path goes to the `graphql` cluster with
 * x-sluice-graphql-api set to the API, and a header of that name the client
 * sent is removed before it is set (a client cannot pick another API).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { GRAPHQL_API_HEADER } from '../../contract/names.js';
import { tempDir } from '../../harness/temp-dir.js';

const run = promisify(execFile);
const INPUT = 'golden/graphql-grpc/input';

type Json = Record<string, any>;

test('sluice compile routes the API path to the graphql cluster, the header removed then set to the API', async () => {
  const out = tempDir('graphql-route');
  await run(process.execPath, ['bin/sluice.js', 'compile', '-f', INPUT, '-o', out]);
  const bootstrap = parse(readFileSync(path.join(out, 'envoy.yaml'), 'utf8')) as Json;
  const manager = (bootstrap.static_resources.listeners as Json[])[0]!.filter_chains[0].filters.find(
    (f: Json) => f.name === 'envoy.filters.network.http_connection_manager',
  ).typed_config;
  const routes = (manager.route_config.virtual_hosts as Json[]).flatMap((vh) => vh.routes as Json[]);
  const byPrefix = new Map(routes.map((r) => [r.match.prefix as string, r]));
  for (const [prefix, api] of [
    ['/users/graphql', 'default.user-api'],
    ['/products/graphql', 'default.product-api'],
  ]) {
    const route = byPrefix.get(prefix)!;
    expect(route.route.cluster).toBe('graphql');
    expect(route.request_headers_to_remove).toEqual([GRAPHQL_API_HEADER]);
    expect(route.request_headers_to_add).toEqual([
      { header: { key: GRAPHQL_API_HEADER, value: api }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
    ]);
  }
  const graphqlCluster = (bootstrap.static_resources.clusters as Json[]).find((c) => c.name === 'graphql');
  expect(graphqlCluster).toBeDefined();
  const apis = (
    JSON.parse(readFileSync(path.join(out, 'graphql.json'), 'utf8')) as { resources: { name: string }[] }
  ).resources.map((r) => r.name);
  expect(apis).toEqual(expect.arrayContaining(['default.user-api', 'default.product-api']));
});

test('sluice explain: a client-sent header naming another API is replaced by the route', async () => {
  const { stdout } = await run(process.execPath, [
    'bin/sluice.js',
    'explain',
    'POST',
    'http://shop.example.com/users/graphql',
    '-f',
    INPUT,
    '-H',
    `${GRAPHQL_API_HEADER}: default.product-api`,
    '--output',
    'json',
  ]);
  const explained = JSON.parse(stdout) as {
    matched: { cluster: string };
    steps: { stage: string; details: string[] }[];
  };
  expect(explained.matched.cluster).toBe('graphql');
  const details = explained.steps.find((s) => s.stage === 'destination')!.details;
  expect(details).toContain(`headers removed: ${GRAPHQL_API_HEADER}, x-user-id`);
  expect(details).toContain(`headers set: ${GRAPHQL_API_HEADER}: default.user-api`);
  expect(details).toContain(
    `GraphQL API default.user-api (${GRAPHQL_API_HEADER}): compiled and served to sluice-graphql`,
  );
});
