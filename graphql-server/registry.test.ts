import { parse } from 'graphql';
import type { GraphQLApiConfig } from './api.js';
import { ConfigError } from './config.js';
import { ApiRegistry } from './registry.js';
import { testLogger } from '../harness/log-check.js';

const logger = testLogger();

function local(name: string, schemaDefinition = 'type Query { a: Int }'): GraphQLApiConfig {
  return {
    name,
    logSensitiveInfo: false,
    executable: { schemaDefinition, enableIntrospection: false, resolutions: {}, maxDepth: 0 },
  };
}

function stitched(name: string, ...apis: string[]): GraphQLApiConfig {
  return {
    name,
    logSensitiveInfo: false,
    stitched: { subschemas: apis.map((api) => ({ api, typeMerge: {} })), enableIntrospection: true },
  };
}

test('not ready until a set is applied; an empty set makes it ready', async () => {
  const registry = new ApiRegistry({ logger, defaultTimeoutMs: 1000 });
  expect(registry.ready).toBe(false);
  await registry.apply([]);
  expect(registry.ready).toBe(true);
  await registry.close();
});

test('all or nothing: one API that does not build fails the set and the previous one stays', async () => {
  const registry = new ApiRegistry({ logger, defaultTimeoutMs: 1000 });
  await registry.apply([local('default.a')]);
  await expect(registry.apply([local('default.a'), local('default.b', 'type Query { b: Nope }')])).rejects.toThrow(
    new ConfigError('GraphQLApi default.b: executable.schema_definition: Unknown type "Nope".'),
  );
  await expect(
    registry.apply([local('default.a'), local('default.c', 'type Query { c: Int @resolve(name: "missing") }')]),
  ).rejects.toThrow('GraphQLApi default.c: field Query.c: @resolve(name: "missing") names no resolution of this API');
  expect(registry.names).toEqual(['default.a']);
  await registry.close();
});

test('stitched APIs are built after the APIs they merge; a cycle is refused', async () => {
  const registry = new ApiRegistry({ logger, defaultTimeoutMs: 1000 });
  await registry.apply([
    stitched('default.s', 'default.a', 'default.b'),
    local('default.a'),
    local('default.b', 'type Query { b: String }'),
  ]);
  const lease = registry.acquire('default.s')!;
  expect(Object.keys(lease.api.schema.getQueryType()!.getFields()).sort()).toEqual(['a', 'b']);
  lease.release();
  await expect(
    registry.apply([stitched('default.x', 'default.y'), stitched('default.y', 'default.x')]),
  ).rejects.toThrow('stitched GraphQLApis form a cycle: default.x -> default.y -> default.x');
  await registry.close();
});

test('an unchanged API is kept as it is; a changed one is rebuilt; a lease keeps the API it started with', async () => {
  const registry = new ApiRegistry({ logger, defaultTimeoutMs: 1000 });
  await registry.apply([local('default.a'), local('default.b')]);
  const a1 = registry.acquire('default.a')!;
  const b1 = registry.acquire('default.b')!;
  await registry.apply([local('default.a'), local('default.b', 'type Query { b: Int }')]);
  const a2 = registry.acquire('default.a')!;
  const b2 = registry.acquire('default.b')!;
  expect(a2.api).toBe(a1.api);
  expect(b2.api).not.toBe(b1.api);
  // The old lease still executes on the schema it started with.
  const old = await b1.api.execute({
    document: parse('{ a }'),
    query: '{ a }',
    context: { headers: {}, calls: new Map(), logger },
  });
  expect(old).toEqual({ data: { a: null } });
  for (const l of [a1, b1, a2, b2]) l.release();
  await registry.close();
});

test('a change to a subschema rebuilds the stitched API and swaps both at once; a set whose stitched API no longer builds changes nothing', async () => {
  const registry = new ApiRegistry({ logger, defaultTimeoutMs: 1000 });
  const A = 'type Query { a: Int user(id: Int!): User } type User { id: Int! name: String }';
  const merging = (b: GraphQLApiConfig, a = local('default.a', A)): GraphQLApiConfig[] => [
    a,
    b,
    {
      ...stitched('default.s', 'default.a', 'default.b'),
      stitched: {
        enableIntrospection: true,
        subschemas: [
          { api: 'default.a', typeMerge: { User: { selectionSet: '{ id }', queryName: 'user', args: { id: 'id' } } } },
          { api: 'default.b', typeMerge: {} },
        ],
      },
    },
  ];
  await registry.apply(merging(local('default.b', 'type Query { b: Int }')));
  const s1 = registry.acquire('default.s')!;
  const a1 = registry.acquire('default.a')!;
  await registry.apply(merging(local('default.b', 'type Query { b: Int c: String }')));
  const s2 = registry.acquire('default.s')!;
  expect(s2.api).not.toBe(s1.api);
  expect(registry.acquire('default.a')!.api).toBe(a1.api);
  expect(Object.keys(s2.api.schema.getQueryType()!.getFields()).sort()).toEqual(['a', 'b', 'c', 'user']);
  // The request that started on the old stitched API still runs on it.
  expect(Object.keys(s1.api.schema.getQueryType()!.getFields()).sort()).toEqual(['a', 'b', 'user']);
  expect(
    await s1.api.execute({
      document: parse('{ b }'),
      query: '{ b }',
      context: { headers: {}, calls: new Map(), logger },
    }),
  ).toEqual({ data: { b: null } });
  s1.release();
  // a loses the query the typeMerge names: the stitched API fails to build, so neither a's nor b's change is applied.
  await expect(
    registry.apply(
      merging(
        local('default.b', 'type Query { b: Int }'),
        local('default.a', 'type Query { a: Int } type User { id: Int! }'),
      ),
    ),
  ).rejects.toThrow('queryName user is not a Query field of default.a');
  expect(registry.acquire('default.s')!.api).toBe(s2.api);
  expect(registry.acquire('default.a')!.api).toBe(a1.api);
  expect(Object.keys(registry.acquire('default.b')!.api.schema.getQueryType()!.getFields()).sort()).toEqual(['b', 'c']);
  await registry.close();
});
