/**
 * sluice-graphql with `--config FILE` on real ports: routing by the API
 * header, GraphQL over HTTP (graphql-http's audits), limits, introspection,
 * the document cache, file reloads and requests in flight across a reload.
 */
import { once } from 'node:events';
import { rename, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { serverAudits } from 'graphql-http';
import { startGraphql, type RunningGraphql } from '../../graphql-server/server.js';
import { startGraphQLUpstream, type GraphQLUpstream } from '../../harness/graphql-upstream.js';
import { startRestUpstream, type RestUpstream } from '../../harness/rest-upstream.js';
import { tempDir } from '../../harness/temp-dir.js';
import { testLogger } from '../../harness/log-check.js';

const HEADER = 'x-sluice-graphql-api';
const SCHEMA =
  'type Query { hello: String pet(id: ID!): Pet pets: [Pet] } type Pet { id: ID name: String friend: Pet } type Mutation { touch: Boolean }';

let dir: string;
let file: string;
let server: RunningGraphql;
let upstream: GraphQLUpstream;
let rest: RestUpstream;
/** Resolves the upstream's `slow` field; set by the test that holds a request in flight. */
let releaseSlow: (() => void) | undefined;

function local(name: string, extra: Record<string, unknown> = {}) {
  return { name, executable: { schema_definition: SCHEMA, enable_introspection: true, ...extra } };
}

function remote(name: string) {
  return {
    name,
    executable: {
      schema_definition: 'type Query { greeting(name: String!): String slow: String fail: String }',
      remote: { target: { cluster: 'default.up', hosts: [{ address: '127.0.0.1', port: upstream.port }] } },
    },
  };
}

/** A local API whose one field is resolved by REST (graphql-server/rest.ts). */
function restApi(name: string) {
  const target = { cluster: 'default.rest', hosts: [{ address: '127.0.0.1', port: rest.port }] };
  return {
    name,
    executable: {
      schema_definition: 'type Query { user(id: ID!): User @resolve(name: "user") } type User { id: ID name: String }',
      resolutions: { user: { rest: { target, headers: { ':path': '/users/{$args.id}' } } } },
    },
  };
}

function baseSet(): unknown[] {
  return [
    restApi('default.rest'),
    local('default.pets'),
    local('default.closed', { enable_introspection: false, max_depth: 3 }),
    remote('default.remote'),
    { name: 'default.both', stitched: { subschemas: [{ api: 'default.remote' }, { api: 'default.pets' }] } },
  ];
}

/** Writes the set the way `sluice compile -o` replaces a file: a new file renamed over the old. */
async function writeSet(resources: unknown[]): Promise<void> {
  const tmp = `${file}.tmp`;
  await writeFile(tmp, JSON.stringify({ resources }));
  await rename(tmp, file);
}

const url = () => `http://127.0.0.1:${server.port}/graphql`;

async function post(
  api: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; json: any }> {
  const res = await fetch(url(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(api ? { [HEADER]: api } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined };
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${server.adminPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setTimeout(r, 20));
}

beforeAll(async () => {
  upstream = await startGraphQLUpstream({
    typeDefs: 'type Query { greeting(name: String!): String slow: String fail: String }',
    resolvers: {
      Query: {
        greeting: (_: unknown, args: { name: string }) => `hello ${args.name}`,
        fail: () => {
          throw new Error('boom');
        },
        slow: () => new Promise<string>((resolve) => (releaseSlow = () => resolve('finally'))),
      },
    },
  });
  rest = await startRestUpstream();
  dir = tempDir('graphql');
  file = path.join(dir, 'graphql.json');
  await writeSet(baseSet());
  server = await startGraphql({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: testLogger(),
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await rest?.close();
});

test('passes every MUST audit of graphql-http (GraphQL over HTTP)', async () => {
  const fetchFn = (input: string | URL, init: RequestInit = {}) =>
    fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), [HEADER]: 'default.pets' } });
  const results = await Promise.all(
    serverAudits({ url: url(), fetchFn }).map((audit) => audit.fn().then((r) => ({ ...r, name: audit.name }))),
  );
  const failed = results.filter((r) => r.status !== 'ok');
  const shouldFails = failed.filter((r) => !r.name.startsWith('MUST'));
  if (shouldFails.length)
    console.log(`SHOULD/MAY audits not passed:\n${shouldFails.map((r) => `  ${r.id} ${r.name}`).join('\n')}`);
  expect(results.length).toBeGreaterThan(30);
  expect(
    failed.filter((r) => r.name.startsWith('MUST')).map((r) => `${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`),
  ).toEqual([]);
  expect(shouldFails.map((r) => r.id)).toEqual([]);
});

test('the header picks the API on any path; no header or an unknown API is a 404 with a GraphQL error', async () => {
  const ok = await fetch(`http://127.0.0.1:${server.port}/any/path?x=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [HEADER]: 'default.remote' },
    body: JSON.stringify({ query: '{ greeting(name: "ann") }' }),
  });
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ data: { greeting: 'hello ann' } });

  // A local API whose field has @resolve: its REST resolver calls the upstream.
  expect((await post('default.rest', { query: '{ user(id: "2") { id name } }' })).json).toEqual({
    data: { user: { id: '2', name: 'Grace' } },
  });
  // A stitched API over the two others, built after them.
  expect((await post('default.both', { query: '{ greeting(name: "s") hello }' })).json).toEqual({
    data: { greeting: 'hello s', hello: null },
  });

  const none = await post(undefined, { query: '{ hello }' });
  expect(none.status).toBe(404);
  expect(none.json).toEqual({
    errors: [{ message: expect.stringContaining(`no ${HEADER} header`), extensions: { code: 'API_NOT_FOUND' } }],
  });
  const unknown = await post('default.nope', { query: '{ hello }' });
  expect(unknown.status).toBe(404);
  expect(unknown.json.errors[0].message).toBe('no GraphQL API named default.nope');
});

test('media types: graphql-response+json when asked for, application/json otherwise, 406 and 415', async () => {
  const grj = await post(
    'default.pets',
    { query: '{ hello }' },
    { accept: 'application/graphql-response+json, application/json;q=0.9' },
  );
  expect(grj.type).toBe('application/graphql-response+json; charset=utf-8');
  expect(grj.json).toEqual({ data: { hello: null } });
  expect((await post('default.pets', { query: '{ hello }' })).type).toBe('application/json; charset=utf-8');
  expect(
    (
      await post(
        'default.pets',
        { query: '{ hello }' },
        { accept: 'application/graphql-response+json;q=0.5, application/json' },
      )
    ).type,
  ).toBe('application/json; charset=utf-8');
  const refused = await post('default.pets', { query: '{ hello }' }, { accept: 'text/html' });
  expect(refused.status).toBe(406);
  expect(refused.json.errors[0].message).toContain('application/graphql-response+json');
  const form = await post('default.pets', 'query=%7Bhello%7D', { 'content-type': 'application/x-www-form-urlencoded' });
  expect(form.status).toBe(415);
  expect(form.json.errors[0].message).toContain('Content-Type: application/json');
  const put = await fetch(url(), { method: 'PUT', headers: { [HEADER]: 'default.pets' } });
  expect(put.status).toBe(405);
  expect(put.headers.get('allow')).toBe('GET, POST');
});

test('status codes per media type: request errors 400; document errors 400 (graphql-response+json) or 200 (json), without data', async () => {
  expect((await post('default.pets', '{"query": ')).status).toBe(400);
  expect((await post('default.pets', { variables: {} })).json.errors[0].message).toBe('the request has no query');
  const accept = { accept: 'application/graphql-response+json' };
  const invalid = await post('default.pets', { query: '{ hello nope }' }, accept);
  expect(invalid.status).toBe(400);
  expect(invalid.json).toEqual({
    errors: [{ message: 'Cannot query field "nope" on type "Query".', locations: [{ line: 1, column: 9 }] }],
  });
  const asJson = await post('default.pets', { query: '{ hello nope }' });
  expect(asJson.status).toBe(200);
  expect(asJson.json.data).toBeUndefined();
  const syntax = await post('default.pets', { query: '{ hello' }, accept);
  expect(syntax.status).toBe(400);
  expect(syntax.json.errors[0].message).toContain('Syntax Error');
  const coercion = await post(
    'default.pets',
    { query: 'query($id: ID!) { pet(id: $id) { id } }', variables: {} },
    accept,
  );
  expect(coercion.status).toBe(400);
  expect(coercion.json.errors[0].message).toContain('$id');
});

test('variables and operationName; errors carry message, locations, path and extensions', async () => {
  const res = await post('default.remote', {
    query: 'query A($n: String!) { greeting(name: $n) } query B { slowx: greeting(name: "b") }',
    variables: { n: 'zoe' },
    operationName: 'A',
  });
  expect(res.json).toEqual({ data: { greeting: 'hello zoe' } });
  const b = await post('default.remote', {
    query: 'query A($n: String!) { greeting(name: $n) } query B { g: greeting(name: "b") }',
    operationName: 'B',
  });
  expect(b.json).toEqual({ data: { g: 'hello b' } });
  const failed = await post('default.remote', { query: '{ greeting(name: "p")\n fail }' });
  expect(failed.json).toEqual({
    data: { greeting: 'hello p', fail: null },
    errors: [{ message: 'boom', locations: [{ line: 2, column: 2 }], path: ['fail'] }],
  });
  expect(await metric('sluice_graphql_requests_total', 'api="default.remote",outcome="partial"')).toBeGreaterThan(0);
  const depth = await post('default.pets', {
    query:
      '{ a: pet(id: 1) { friend { friend { friend { friend { friend { friend { friend { friend { friend { friend { friend { friend { friend { friend { id } } } } } } } } } } } } } } } }',
  });
  expect(depth.json.errors).toEqual([
    {
      message: 'the operation nests fields 16 deep, above the limit of 15 (set by --max-depth)',
      locations: [{ line: 1, column: 1 }],
      extensions: { code: 'LIMIT_EXCEEDED', limit: 'max-depth' },
    },
  ]);
});

test('GET runs queries; a mutation over GET is 405 with Allow: POST', async () => {
  const q = await fetch(
    `${url()}?query=${encodeURIComponent('query($n: String!) { greeting(name: $n) }')}&variables=${encodeURIComponent('{"n":"g"}')}`,
    { headers: { [HEADER]: 'default.remote' } },
  );
  expect(await q.json()).toEqual({ data: { greeting: 'hello g' } });
  const m = await fetch(`${url()}?query=${encodeURIComponent('mutation { touch }')}`, {
    headers: { [HEADER]: 'default.pets' },
  });
  expect(m.status).toBe(405);
  expect(m.headers.get('allow')).toBe('POST');
  expect((await m.json()).errors[0].message).toBe('a mutation cannot be sent with GET; use POST');
  expect((await post('default.pets', { query: 'mutation { touch }' })).json).toEqual({ data: { touch: null } });
});

test('limits: depth (per API maxDepth too), aliases, fields with fragments expanded, body size', async () => {
  const perApi = await post(
    'default.closed',
    { query: '{ pet(id: 1) { friend { friend { id } } } }' },
    { accept: 'application/graphql-response+json' },
  );
  expect(perApi.status).toBe(400);
  expect(perApi.json.errors[0].message).toBe(
    "the operation nests fields 4 deep, above the limit of 3 (set by the API's maxDepth)",
  );
  expect((await post('default.closed', { query: '{ pet(id: 1) { friend { id } } }' })).json).toEqual({
    data: { pet: null },
  });

  const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: hello`).join(' ');
  expect((await post('default.pets', { query: `query Many { ${aliases} }` })).json.errors[0].message).toBe(
    'operation Many has 31 aliases, above the limit of 30 (set by --max-aliases)',
  );
  // Small as text, 1 + 6 * 10 * 10 * 2 = 1201 fields once fragments are expanded.
  const query = `{ pets { ...C ...C ...C ...C ...C ...C } } fragment C on Pet { ${'...B '.repeat(10)} } fragment B on Pet { ${'...A '.repeat(10)} } fragment A on Pet { id name }`;
  expect((await post('default.pets', { query })).json.errors).toEqual([
    expect.objectContaining({
      message: 'the operation selects 1201 fields (fragments expanded), above the limit of 1000 (set by --max-fields)',
    }),
  ]);

  const big = await post('default.pets', { query: `{ hello } # ${'x'.repeat(1024 * 1024)}` });
  expect(big.status).toBe(413);
  expect(big.json.errors[0].message).toBe(
    'the request body is larger than the limit of 1048576 bytes (set by --max-body-bytes)',
  );
});

test('introspection only where the API enables it; __typename always', async () => {
  const open = await post('default.pets', { query: getIntrospectionQuery() });
  expect(open.json.errors).toBeUndefined();
  expect(open.json.data.__schema.queryType.name).toBe('Query');
  const closed = await post(
    'default.closed',
    { query: '{ __schema { types { name } } }' },
    { accept: 'application/graphql-response+json' },
  );
  expect(closed.status).toBe(400);
  expect(closed.json.data).toBeUndefined();
  expect(closed.json.errors[0].message).toContain('introspection has been disabled');
  const type = await post('default.closed', { query: '{ __type(name: "Pet") { name } }' });
  expect(type.json).toEqual({ errors: [expect.objectContaining({ message: expect.stringContaining('__type') })] });
  expect((await post('default.closed', { query: '{ __typename }' })).json).toEqual({ data: { __typename: 'Query' } });
});

test('a document is parsed and validated once per API: the second request hits the cache', async () => {
  const query = `{ hello pets { id } } # ${Date.now()}`;
  const misses = await metric('sluice_graphql_document_cache_total', 'result="miss"');
  const hits = await metric('sluice_graphql_document_cache_total', 'result="hit"');
  const ok = await metric('sluice_graphql_requests_total', 'api="default.pets",outcome="ok"');
  await post('default.pets', { query });
  await post('default.pets', { query });
  await post('default.closed', { query });
  expect(await metric('sluice_graphql_document_cache_total', 'result="miss"')).toBe(misses + 2);
  expect(await metric('sluice_graphql_document_cache_total', 'result="hit"')).toBe(hits + 1);
  // Requests are counted, and timed, when the metrics are read.
  expect(await metric('sluice_graphql_requests_total', 'api="default.pets",outcome="ok"')).toBe(ok + 2);
  expect(await metric('sluice_graphql_request_duration_seconds_count', 'api="default.pets",outcome="ok"')).toBe(ok + 2);
  expect(await metric('sluice_graphql_requests_total', 'api="(unknown)",outcome="not_found"')).toBeGreaterThan(0);
});

test('admin: /healthz and /readyz', async () => {
  const health = await fetch(`http://127.0.0.1:${server.adminPort}/healthz`);
  expect(await health.json()).toEqual({ status: 'ok' });
  const ready = await fetch(`http://127.0.0.1:${server.adminPort}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ready' });
});

test('a changed file is applied; a bad edit keeps the last good set; a request in flight finishes on the API it started with', async () => {
  const inFlight = post('default.remote', { query: '{ slow }' });
  await until(async () => releaseSlow !== undefined);

  // A new field appears without a restart; default.remote leaves the set while its request is in flight.
  await writeSet([local('default.pets', { schema_definition: `${SCHEMA} extend type Query { added: Int }` })]);
  await until(async () => (await post('default.pets', { query: '{ added }' })).json.data !== undefined);
  expect((await post('default.remote', { query: '{ greeting(name: "x") }' })).status).toBe(404);
  releaseSlow!();
  expect((await inFlight).json).toEqual({ data: { slow: 'finally' } });

  // All or nothing: one API that does not build fails the whole set.
  const rejected = await metric('sluice_graphql_config_applies_total', 'result="rejected"');
  await writeSet([local('default.pets'), local('default.broken', { schema_definition: 'type Query { x: Nope }' })]);
  await until(async () => (await metric('sluice_graphql_config_applies_total', 'result="rejected"')) > rejected);
  expect((await post('default.pets', { query: '{ added }' })).json).toEqual({ data: { added: null } });
  expect((await post('default.broken', { query: '{ x }' })).status).toBe(404);

  const rejectedAgain = rejected + 1;
  await writeFile(file, '{ not json');
  await until(async () => (await metric('sluice_graphql_config_applies_total', 'result="rejected"')) > rejectedAgain);
  expect((await post('default.pets', { query: '{ added }' })).json).toEqual({ data: { added: null } });
  await writeSet(baseSet());
  await until(async () => (await post('default.remote', { query: '{ greeting(name: "y") }' })).status === 200);
});

test('a client that goes away in the middle of its body leaves the server answering', async () => {
  const socket = connect(server.port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST /graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${HEADER}: default.pets\r\ncontent-length: 100\r\n\r\n{"query":`,
  );
  await new Promise((r) => setTimeout(r, 50));
  socket.destroy();
  expect((await post('default.pets', { query: '{ hello }' })).json).toEqual({ data: { hello: null } });
});

test('closing: a request in flight finishes, its connection closing after the answer; new connections are refused', async () => {
  releaseSlow = undefined;
  const closing = await startGraphql({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: testLogger(),
  });
  const at = `http://127.0.0.1:${closing.port}/graphql`;
  const request = () =>
    fetch(at, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [HEADER]: 'default.remote' },
      body: JSON.stringify({ query: '{ slow }' }),
    });
  const inFlight = request();
  await until(async () => releaseSlow !== undefined);
  const closed = closing.close();
  await expect(request()).rejects.toThrow();
  releaseSlow!();
  const res = await inFlight;
  expect(res.headers.get('connection')).toBe('close');
  expect(await res.json()).toEqual({ data: { slow: 'finally' } });
  await closed;
});
