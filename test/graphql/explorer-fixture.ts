/**
 * A running sluice-graphql for the explorer's tests (HTTP and Chromium):
 * real upstreams on 127.0.0.1 (a GraphQL server and a REST server) and four
 * APIs over them, as `sluice compile` writes them to graphql.json:
 * - default.users: a local API (REST resolver), introspection and explorer on;
 * - default.greeter: a remote API (no introspection, ever), explorer on;
 * - default.shop: users and greeter stitched (introspection on), explorer on;
 * - default.hidden: like users, explorer off.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startGraphql, type RunningGraphql } from '../../graphql-server/server.js';
import { startGraphQLUpstream, type GraphQLUpstream } from '../../harness/graphql-upstream.js';
import { startRestUpstream, type RestUpstream } from '../../harness/rest-upstream.js';
import { tempDir } from '../../harness/temp-dir.js';
import { testLogger } from '../../harness/log-check.js';

export const API_HEADER = 'x-sluice-graphql-api';

export interface ExplorerFixture {
  server: RunningGraphql;
  /** The API's path, as Envoy's route would forward it. */
  url: string;
  upstream: GraphQLUpstream;
  close(): Promise<void>;
}

function usersApi(name: string, restPort: number, explorer: boolean) {
  const target = { cluster: 'default.rest', hosts: [{ address: '127.0.0.1', port: restPort }] };
  return {
    name,
    explorer,
    executable: {
      schema_definition:
        'type Query { user(id: ID!): User @resolve(name: "user") } type User { id: ID name: String email: String }',
      enable_introspection: true,
      resolutions: { user: { rest: { target, headers: { ':path': '/users/{$args.id}' } } } },
    },
  };
}

export async function startExplorerFixture(): Promise<ExplorerFixture> {
  const upstream = await startGraphQLUpstream({
    typeDefs: 'type Query { greeting(name: String!): String }',
    resolvers: { Query: { greeting: (_: unknown, args: { name: string }) => `hello ${args.name}` } },
  });
  const rest: RestUpstream = await startRestUpstream();
  const file = path.join(tempDir('explorer'), 'graphql.json');
  const greeter = {
    name: 'default.greeter',
    explorer: true,
    executable: {
      schema_definition: 'type Query { greeting(name: String!): String }',
      remote: {
        target: { cluster: 'default.up', hosts: [{ address: '127.0.0.1', port: upstream.port }] },
        // A header the explorer's headers editor sets reaches the upstream.
        headers: { 'x-explorer-note': '{$headers.x-explorer-note}' },
      },
    },
  };
  const shop = {
    name: 'default.shop',
    explorer: true,
    stitched: { subschemas: [{ api: 'default.users' }, { api: 'default.greeter' }], enable_introspection: true },
  };
  const resources = [
    usersApi('default.users', rest.port, true),
    usersApi('default.hidden', rest.port, false),
    greeter,
    shop,
  ];
  await writeFile(file, JSON.stringify({ resources }));
  const server = await startGraphql({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'explorer-test',
    logger: testLogger(),
  });
  return {
    server,
    url: `http://127.0.0.1:${server.port}/graphql`,
    upstream,
    async close() {
      await server.close();
      await upstream.close();
      await rest.close();
    },
  };
}
