/**
 * The remote executor against a real upstream GraphQL server on 127.0.0.1
 * (harness/graphql-upstream.ts): what it forwards (read from the
 * requests the upstream recorded), what it passes back, and how it answers
 * when the upstream is down or is not a GraphQL server.
 */
import { parse, validate, type ExecutionResult } from 'graphql';
import type { ExecutableApi, RemoteExecutorConfig, RequestContext, ResolverDeps } from '../../graphql-server/api.js';
import { httpPools } from '../../graphql-server/http-client.js';
import { buildRemoteApi, remoteExecutor } from '../../graphql-server/remote.js';
import { startGraphQLUpstream, type GraphQLUpstream } from '../../harness/graphql-upstream.js';
import { testDeps } from '../../harness/stitch-subgraphs.js';
import { testLogger } from '../../harness/log-check.js';

const SDL = /* GraphQL */ `
  type Query {
    book(id: ID!): Book
    books: [Book!]!
    whoami: String
  }
  type Mutation {
    rename(id: ID!, title: String!): Book
  }
  type Book {
    id: ID!
    title: String
    author: String
  }
`;

const BOOKS = [
  { id: '1', title: 'Dune', author: 'Herbert' },
  { id: '2', title: 'Emma', author: null },
];

const resolvers = {
  Query: {
    book: (_: unknown, { id }: { id: string }) => BOOKS.find((b) => b.id === id) ?? null,
    books: () => BOOKS,
    whoami: (_: unknown, __: unknown, ctx: { headers: Record<string, string> }) => ctx.headers['x-user'] ?? null,
  },
  Book: {
    author: (b: { author: string | null }) => {
      if (b.author === null) throw new Error('author unknown');
      return b.author;
    },
  },
  Mutation: {
    rename: (_: unknown, { id, title }: { id: string; title: string }) => ({
      ...BOOKS.find((b) => b.id === id)!,
      title,
    }),
  },
};

let upstream: GraphQLUpstream;
let deps: ResolverDeps;

function remote(port: number, partial: Partial<RemoteExecutorConfig> = {}): RemoteExecutorConfig {
  return {
    target: { cluster: 'books-svc', hosts: [{ address: '127.0.0.1', port }] },
    headers: {},
    queryParams: {},
    spanName: 'books',
    ...partial,
  };
}

function api(config: RemoteExecutorConfig = remote(upstream.port)): ExecutableApi {
  return buildRemoteApi(
    'lib.books',
    { schemaDefinition: SDL, enableIntrospection: false, remote: config, logSensitiveInfo: false },
    deps,
  );
}

function context(headers: Record<string, string> = {}): RequestContext {
  return { headers, calls: new Map(), logger: testLogger() };
}

/** Validates against the API's schema (as the server does), executes, and returns what the client would see. */
async function run(
  target: ExecutableApi,
  query: string,
  opts: { variables?: Record<string, unknown>; operationName?: string; headers?: Record<string, string> } = {},
) {
  const document = parse(query);
  expect(validate(target.schema, document)).toEqual([]);
  const result = await target.execute({
    document,
    query,
    variableValues: opts.variables,
    operationName: opts.operationName,
    context: context(opts.headers),
  });
  return JSON.parse(JSON.stringify(result)) as ExecutionResult & {
    errors?: { message: string; path?: unknown[]; locations?: unknown[]; extensions?: Record<string, unknown> }[];
  };
}

beforeAll(async () => {
  upstream = await startGraphQLUpstream({ typeDefs: SDL, resolvers });
  deps = testDeps('lib.books');
});

afterAll(async () => {
  await httpPools(deps).close();
  await upstream.close();
});

beforeEach(() => {
  upstream.reset();
  upstream.intercept = undefined;
});

describe('forwarding', () => {
  test('the client schema is the schemaDefinition', () => {
    const books = api();
    expect(books.schema.getQueryType()!.getFields()).toHaveProperty('book');
    expect(validate(books.schema, parse('{ nope }'))).toHaveLength(1);
  });

  test('data passes through; the operation is POSTed as JSON to /graphql, as the client wrote it', async () => {
    const query = '{ book(id: "1") { id title author } }';
    const result = await run(api(), query);
    expect(result).toEqual({ data: { book: { id: '1', title: 'Dune', author: 'Herbert' } } });
    expect(upstream.requests).toHaveLength(1);
    const req = upstream.requests[0]!;
    expect([req.method, req.url, req.headers['content-type']]).toEqual(['POST', '/graphql', 'application/json']);
    expect(req.body).toEqual({ query });
  });

  test('upstream errors pass through with path, locations and extensions, next to partial data', async () => {
    const result = await run(api(), '{ books { title author } }');
    expect(result.data).toEqual({
      books: [
        { title: 'Dune', author: 'Herbert' },
        { title: 'Emma', author: null },
      ],
    });
    expect(result.errors).toEqual([
      { message: 'author unknown', path: ['books', 1, 'author'], locations: [{ line: 1, column: 17 }] },
    ]);
  });

  test('variables and operationName are forwarded', async () => {
    const query =
      'query A { books { id } } query B($id: ID!) { book(id: $id) { title } } mutation C($t: String!) { rename(id: "2", title: $t) { title } }';
    const b = await run(api(), query, { variables: { id: '2' }, operationName: 'B' });
    expect(b.data).toEqual({ book: { title: 'Emma' } });
    const c = await run(api(), query, { variables: { t: 'Persuasion' }, operationName: 'C' });
    expect(c.data).toEqual({ rename: { title: 'Persuasion' } });
    expect(upstream.requests.map((r) => r.body)).toEqual([
      { query, variables: { id: '2' }, operationName: 'B' },
      { query, variables: { t: 'Persuasion' }, operationName: 'C' },
    ]);
  });

  test('header templates copy client headers; no other client header is forwarded', async () => {
    const books = api(
      remote(upstream.port, {
        headers: { 'x-user': '{$headers.x-client-user}', authorization: 'Bearer {$headers.x-token}' },
      }),
    );
    const result = await run(books, '{ whoami }', {
      headers: {
        'x-client-user': 'ada',
        'x-token': 't0k',
        cookie: 'session=1',
        'x-sluice-graphql-api': 'lib.books',
        connection: 'close',
      },
    });
    expect(result.data).toEqual({ whoami: 'ada' });
    const sent = upstream.requests[0]!.headers;
    expect(sent.authorization).toBe('Bearer t0k');
    expect(sent.cookie).toBeUndefined();
    expect(sent['x-sluice-graphql-api']).toBeUndefined();
    expect(sent['x-client-user']).toBeUndefined();
    expect(sent.connection).not.toBe('close');
  });

  test('hop-by-hop and internal headers cannot be configured', () => {
    for (const name of ['x-sluice-graphql-api', 'Connection', 'upgrade']) {
      expect(() =>
        api(remote(upstream.port, { headers: { [name]: '{$headers.' + name.toLowerCase() + '}' } })),
      ).toThrow(`header "${name}" cannot be sent upstream`);
    }
  });

  test(':path override and queryParams', async () => {
    const other = await startGraphQLUpstream({ typeDefs: SDL, resolvers, path: '/v2/api' });
    try {
      const books = api(
        remote(other.port, { headers: { ':path': '/v2/api' }, queryParams: { tenant: '{$headers.x-tenant}', v: '2' } }),
      );
      const result = await run(books, '{ book(id: "1") { title } }', { headers: { 'x-tenant': 'a&b' } });
      expect(result.data).toEqual({ book: { title: 'Dune' } });
      expect(other.requests).toHaveLength(1);
      expect(other.requests[0]!.path).toBe('/v2/api');
      expect(Object.fromEntries(other.requests[0]!.query)).toEqual({ tenant: 'a&b', v: '2' });
    } finally {
      await other.close();
    }
  });

  test(':method GET sends the operation as query parameters', async () => {
    const books = api(remote(upstream.port, { headers: { ':method': 'GET' } }));
    const query = 'query Q($id: ID!) { book(id: $id) { title } }';
    const result = await run(books, query, { variables: { id: '1' }, operationName: 'Q' });
    expect(result.data).toEqual({ book: { title: 'Dune' } });
    const req = upstream.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.rawBody).toBe('');
    expect(Object.fromEntries(req.query)).toEqual({ query, variables: '{"id":"1"}', operationName: 'Q' });
  });

  test('remoteExecutor prints a document and sends it (the executor stitching uses)', async () => {
    const exec = remoteExecutor(remote(upstream.port).target, {}, {}, deps);
    const document = parse('query($id: ID!) { book(id: $id) { title } }');
    const first = await exec({ document, variables: { id: '1' }, context: context() });
    const second = await exec({ document, variables: { id: '2' } });
    expect([first.data, second.data]).toEqual([{ book: { title: 'Dune' } }, { book: { title: 'Emma' } }]);
    const sent = upstream.requests.map((r) => (r.body as { query: string }).query);
    expect(sent[0]).toContain('book(id: $id)');
    expect(sent[1]).toBe(sent[0]);
  });
});

describe('failures are GraphQL errors, never crashes', () => {
  test('an upstream that is down: data null and UPSTREAM_UNAVAILABLE; the next request works', async () => {
    const gone = await startGraphQLUpstream({ typeDefs: SDL, resolvers });
    const port = gone.port;
    await gone.close();
    const result = await run(api(remote(port)), '{ books { id } }');
    expect(result.data).toBeNull();
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]!.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(result.errors![0]!.message).toContain('books-svc');

    const ok = await run(api(), '{ books { id } }');
    expect(ok.data).toEqual({ books: [{ id: '1' }, { id: '2' }] });
  });

  test('an answer that is not JSON', async () => {
    upstream.intercept = () => ({ contentType: 'text/html', body: '<html>login</html>' });
    const result = await run(api(), '{ books { id } }');
    expect(result).toEqual({
      data: null,
      errors: [
        { message: expect.stringContaining('not JSON'), extensions: { code: 'UPSTREAM_BAD_RESPONSE', status: 200 } },
      ],
    });
  });

  test('a non-2xx answer that is not a GraphQL response', async () => {
    upstream.intercept = () => ({ status: 502, contentType: 'text/plain', body: 'bad gateway' });
    const result = await run(api(), '{ books { id } }');
    expect(result).toEqual({
      data: null,
      errors: [
        { message: expect.stringContaining('HTTP 502'), extensions: { code: 'UPSTREAM_HTTP_ERROR', status: 502 } },
      ],
    });
  });

  test('JSON that is not a GraphQL response', async () => {
    upstream.intercept = () => ({ body: '{"hello":"world"}' });
    const result = await run(api(), '{ books { id } }');
    expect(result).toEqual({
      data: null,
      errors: [
        {
          message: expect.stringContaining('not a GraphQL response'),
          extensions: { code: 'UPSTREAM_BAD_RESPONSE', status: 200 },
        },
      ],
    });
  });

  test('a non-2xx GraphQL response (errors only) passes through', async () => {
    upstream.intercept = () => ({
      status: 400,
      body: JSON.stringify({
        errors: [{ message: 'Cannot query field', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
      }),
    });
    const result = await run(api(), '{ books { id } }');
    expect(result).toEqual({
      data: null,
      errors: [{ message: 'Cannot query field', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
  });

  test('an upstream that does not answer in time: UPSTREAM_TIMEOUT', async () => {
    const slowDeps: ResolverDeps = { ...testDeps('lib.slow'), defaultTimeoutMs: 200 };
    upstream.intercept = () => ({ delayMs: 5000, body: '{"data":{}}' });
    try {
      const slow = buildRemoteApi(
        'lib.slow',
        { schemaDefinition: SDL, enableIntrospection: false, remote: remote(upstream.port), logSensitiveInfo: false },
        slowDeps,
      );
      const result = await run(slow, '{ books { id } }');
      expect(result.data).toBeNull();
      expect(result.errors![0]!.extensions).toEqual({ code: 'UPSTREAM_TIMEOUT' });
    } finally {
      await httpPools(slowDeps).close();
    }
  });
});

describe('the client going away', () => {
  test('abandons the upstream call at once, without waiting for the answer or the deadline', async () => {
    upstream.intercept = () => ({ delayMs: 60_000, body: '{"data":{}}' });
    const abort = new AbortController();
    const query = '{ books { id } }';
    const running = api().execute({ document: parse(query), query, context: { ...context(), signal: abort.signal } });
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    // Nobody is left to answer: the operation ends with the abort (the server drops it), not with an upstream error.
    await expect(running).rejects.toThrow('This operation was aborted');
  });
});

describe('keep-alive', () => {
  const query = '{ books { id } }';

  beforeEach(async () => {
    // Fresh pools: sockets from earlier tests would hide new ones.
    await httpPools(deps).close();
    upstream.reset();
  });

  test('50 requests one after another use at most 2 sockets', async () => {
    const books = api();
    for (let i = 0; i < 50; i++) expect((await run(books, query)).errors).toBeUndefined();
    expect(upstream.requests).toHaveLength(50);
    expect(upstream.connections).toBeGreaterThan(0);
    expect(upstream.connections).toBeLessThanOrEqual(2);
  });

  test('80 requests, 8 at a time, use at most 16 sockets', async () => {
    // undici may open a socket while one that just answered is not marked free yet, hence twice the concurrency.
    const books = api();
    for (let round = 0; round < 10; round++) {
      const results = await Promise.all(Array.from({ length: 8 }, () => run(books, query)));
      for (const r of results) expect(r.errors).toBeUndefined();
    }
    expect(upstream.requests).toHaveLength(80);
    expect(upstream.connections).toBeLessThanOrEqual(16);
  });
});
