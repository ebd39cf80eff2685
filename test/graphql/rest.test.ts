/**
 * REST resolvers against a real REST server on 127.0.0.1
 * (harness/rest-upstream.ts). Fields carry @resolve and are bound to createRestResolver
 * here; graphql-js executes the schema, as the local executor does. What the
 * resolvers sent is read from the requests the upstream recorded.
 */
import {
  buildSchema,
  execute,
  getDirectiveValues,
  isObjectType,
  parse,
  type ExecutionResult,
  type GraphQLDirective,
} from 'graphql';
import type { RequestContext, ResolverDeps, RestResolverConfig } from '../../graphql-server/api.js';
import { httpPools } from '../../graphql-server/http-client.js';
import { createRestResolver } from '../../graphql-server/rest.js';
import { startRestUpstream, usersAndProducts, type RestUpstream } from '../../harness/rest-upstream.js';
import { testDeps } from '../../harness/stitch-subgraphs.js';
import { testLogger } from '../../harness/log-check.js';

const SDL = /* GraphQL */ `
  directive @resolve(name: String!) on FIELD_DEFINITION
  type Query {
    user(id: ID!): User @resolve(name: "user")
    userPath(id: ID!): User @resolve(name: "user")
    usersIn(city: String, page: Int): [User] @resolve(name: "usersIn")
    firstUser: User @resolve(name: "firstUser")
    products: [Product] @resolve(name: "products")
    search(title: String, max: Int): [Product] @resolve(name: "search")
    echo(tag: String): Echo @resolve(name: "echo")
    boom: String @resolve(name: "boom")
    html: String @resolve(name: "html")
    slow: String @resolve(name: "slow")
  }
  type User {
    id: ID!
    name: String
    email: String
    city: String
  }
  type Product {
    sku: String
    title: String
    price: Float
    owner: User @resolve(name: "owner")
  }
  type Echo {
    method: String
    url: String
  }
`;

let upstream: RestUpstream;
let deps: ResolverDeps;

function rest(port: number, partial: Partial<RestResolverConfig>): RestResolverConfig {
  return {
    kind: 'rest',
    target: { cluster: 'users-svc', hosts: [{ address: '127.0.0.1', port }] },
    headers: {},
    queryParams: {},
    resultRoot: '',
    setters: {},
    timeoutMs: 0,
    ...partial,
  };
}

function resolutions(port: number): Record<string, RestResolverConfig> {
  return {
    user: rest(port, { headers: { ':path': '/users/{$args.id}' }, setters: { city: '{$body.address.city}' } }),
    usersIn: rest(port, {
      headers: { ':path': '/users' },
      queryParams: { city: '{$args.city}', page: '{$args.page}' },
      resultRoot: 'data.users',
    }),
    firstUser: rest(port, { headers: { ':path': '/users' }, resultRoot: 'data.users[0]' }),
    products: rest(port, {
      headers: { ':path': '/products' },
      resultRoot: 'data.items',
      setters: { price: '{$body.pricing.amount}' },
    }),
    search: rest(port, {
      headers: { ':method': 'POST', ':path': '/products/search' },
      body: { title: '{$args.title}', max: '{$args.max}' },
      resultRoot: 'results',
    }),
    owner: rest(port, { headers: { ':path': '/users/{$parent.ownerId}' } }),
    echo: rest(port, {
      headers: { ':path': '/echo', authorization: '{$headers.authorization}', 'X-Tag': 'tag-{$args.tag}' },
    }),
    boom: rest(port, { headers: { ':path': '/boom' } }),
    html: rest(port, { headers: { ':path': '/html' } }),
    slow: rest(port, { headers: { ':path': '/slow' }, timeoutMs: 200 }),
  };
}

/** The SDL with each @resolve field bound to its REST resolver (what the local executor does). */
function schemaFor(config: Record<string, RestResolverConfig>, d: ResolverDeps = deps) {
  const schema = buildSchema(SDL);
  const directive = schema.getDirective('resolve') as GraphQLDirective;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const f of Object.values(type.getFields())) {
      const name = f.astNode && getDirectiveValues(directive, f.astNode)?.name;
      if (typeof name === 'string')
        f.resolve = createRestResolver(
          config[name]!,
          { typeName: type.name, fieldName: f.name, returnType: f.type, args: f.args },
          d,
        );
    }
  }
  return schema;
}

function context(headers: Record<string, string> = {}): RequestContext {
  return { headers, calls: new Map(), logger: testLogger() };
}

async function run(
  query: string,
  opts: {
    headers?: Record<string, string>;
    variables?: Record<string, unknown>;
    config?: Record<string, RestResolverConfig>;
  } = {},
) {
  const schema = schemaFor(opts.config ?? resolutions(upstream.port));
  const result = await execute({
    schema,
    document: parse(query),
    contextValue: context(opts.headers),
    variableValues: opts.variables,
  });
  return JSON.parse(JSON.stringify(result)) as ExecutionResult & {
    errors?: { message: string; path: unknown[]; extensions: Record<string, unknown> }[];
  };
}

beforeAll(async () => {
  upstream = await startRestUpstream();
  deps = testDeps('shop.rest');
});

afterAll(async () => {
  await httpPools(deps).close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

describe('request templates', () => {
  test(':path from an argument; GET by default; an argument cannot add path segments', async () => {
    const result = await run('{ user(id: "2") { id name } userPath(id: "../admin") { id } }');
    expect(result.data!.user).toEqual({ id: '2', name: 'Grace' });
    const paths = upstream.requests.map((r) => `${r.method} ${r.url}`).sort();
    expect(paths).toEqual(['GET /users/..%2Fadmin', 'GET /users/2']);
    expect(result.errors?.map((e) => e.path)).toEqual([['userPath']]);
  });

  test('queryParams are appended URL-encoded; one whose argument is absent is left out', async () => {
    const result = await run('{ usersIn(city: "London & co") { name } }');
    expect(result.data!.usersIn).toEqual([]);
    expect(upstream.requests.map((r) => r.url)).toEqual(['/users?city=London%20%26%20co']);
    expect(upstream.requests[0]!.query.get('city')).toBe('London & co');

    upstream.reset();
    const both = await run('{ usersIn(city: "London", page: 2) { name } }');
    expect(both.data!.usersIn).toEqual([{ name: 'Ada' }]);
    expect(upstream.requests.map((r) => r.url)).toEqual(['/users?city=London&page=2']);
  });

  test('headers from client headers and arguments; only configured headers are sent', async () => {
    const result = await run('{ echo(tag: "a1") { method url } }', {
      headers: { authorization: 'Bearer t0k', cookie: 'session=secret' },
    });
    expect(result.data!.echo).toEqual({ method: 'GET', url: '/echo' });
    const sent = upstream.requests[0]!.headers;
    expect(sent.authorization).toBe('Bearer t0k');
    expect(sent['x-tag']).toBe('tag-a1');
    expect(sent.accept).toBe('application/json');
    expect(sent.cookie).toBeUndefined();
  });

  test('a header whose template yields nothing is not sent', async () => {
    await run('{ echo(tag: "b") { method } }');
    expect(upstream.requests[0]!.headers).not.toHaveProperty('authorization');
  });

  test('body: a JSON template sent as application/json with :method POST; values keep their types', async () => {
    const result = await run('query($max: Int) { search(title: "a", max: $max) { sku price } }', {
      variables: { max: 100 },
    });
    expect(result.data!.search).toEqual([
      { sku: 'p1', price: null },
      { sku: 'p3', price: null },
    ]);
    const req = upstream.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ title: 'a', max: 100 });
  });

  test('no body and no content-type when the resolution has no body', async () => {
    await run('{ user(id: "1") { id } }');
    expect(upstream.requests[0]!.rawBody).toBe('');
    expect(upstream.requests[0]!.headers['content-type']).toBeUndefined();
  });

  test('a resolution that sets a hop-by-hop or internal header is refused when built', () => {
    for (const name of ['connection', 'Transfer-Encoding', 'x-sluice-graphql-api']) {
      expect(() =>
        schemaFor({ ...resolutions(upstream.port), boom: rest(upstream.port, { headers: { [name]: 'x' } }) }),
      ).toThrow(new RegExp(`header "${name}" cannot be sent upstream`));
    }
    expect(() =>
      schemaFor({ ...resolutions(upstream.port), boom: rest(upstream.port, { headers: { ':path': 'users' } }) }),
    ).toThrow(':path "users" must start with /');
  });
});

describe('response templates', () => {
  test('resultRoot picks a dotted path, with [n] indexes', async () => {
    const result = await run('{ usersIn { id name } firstUser { id name } }');
    expect(result.data).toEqual({
      usersIn: [
        { id: '1', name: 'Ada' },
        { id: '2', name: 'Grace' },
      ],
      firstUser: { id: '1', name: 'Ada' },
    });
  });

  test('setters fill fields from {$body...}, per element of a list', async () => {
    const result = await run('{ products { sku title price } user(id: "1") { name city } }');
    expect(result.data).toEqual({
      products: [
        { sku: 'p1', title: 'Lamp', price: 25 },
        { sku: 'p2', title: 'Desk', price: 180 },
        { sku: 'p3', title: 'Chair', price: 90 },
      ],
      user: { name: 'Ada', city: 'London' },
    });
  });

  test('{$parent...} in a nested field: each product fetches its owner', async () => {
    const result = await run('{ products { sku owner { name } } }');
    expect(result.data!.products).toEqual([
      { sku: 'p1', owner: { name: 'Ada' } },
      { sku: 'p2', owner: { name: 'Ada' } },
      { sku: 'p3', owner: { name: 'Grace' } },
    ]);
  });
});

describe('upstream failures are field errors', () => {
  test('404: an error on the field with its path and status, other fields resolved, no upstream body text', async () => {
    const result = await run('{ user(id: "99") { name } products { sku } }');
    expect(result.data!.user).toBeNull();
    expect(result.data!.products).toHaveLength(3);
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors!;
    expect(error!.path).toEqual(['user']);
    expect(error!.extensions).toEqual({ code: 'UPSTREAM_HTTP_ERROR', status: 404 });
    expect(error!.message).toContain('404');
    expect(JSON.stringify(result)).not.toContain('internal-detail');
  });

  test('500 with a text body', async () => {
    const result = await run('{ boom firstUser { name } }');
    expect(result.data).toEqual({ boom: null, firstUser: { name: 'Ada' } });
    expect(result.errors!.map((e) => [e.path, e.extensions])).toEqual([
      [['boom'], { code: 'UPSTREAM_HTTP_ERROR', status: 500 }],
    ]);
    expect(JSON.stringify(result)).not.toContain('internal-detail');
  });

  test('a 200 whose body is not JSON', async () => {
    const result = await run('{ html }');
    expect(result.errors!.map((e) => [e.path, e.extensions])).toEqual([
      [['html'], { code: 'UPSTREAM_HTTP_ERROR', status: 200 }],
    ]);
  });

  test('a call that outlives its timeout is UPSTREAM_TIMEOUT; the slow answer does not reach the field', async () => {
    const result = await run('{ slow user(id: "1") { name } }');
    expect(result.data).toEqual({ slow: null, user: { name: 'Ada' } });
    expect(result.errors!.map((e) => [e.path, e.extensions])).toEqual([[['slow'], { code: 'UPSTREAM_TIMEOUT' }]]);
  });

  test('an unreachable upstream is UPSTREAM_UNAVAILABLE on the field', async () => {
    const closed = await startRestUpstream();
    const port = closed.port;
    await closed.close();
    const config = { ...resolutions(upstream.port), boom: rest(port, { headers: { ':path': '/boom' } }) };
    const result = await run('{ boom user(id: "2") { name } }', { config });
    expect(result.data).toEqual({ boom: null, user: { name: 'Grace' } });
    expect(result.errors!.map((e) => [e.path, e.extensions])).toEqual([[['boom'], { code: 'UPSTREAM_UNAVAILABLE' }]]);
  });
});

describe('calls', () => {
  test('identical calls within one operation are made once; different ones each once', async () => {
    const result = await run(
      '{ a: user(id: "1") { name } b: user(id: "1") { email } c: user(id: "2") { name } products { owner { id } } }',
    );
    expect(result.data).toMatchObject({ a: { name: 'Ada' }, b: { email: 'ada@example.org' }, c: { name: 'Grace' } });
    // /users/1 serves a, b and the owner of p1 and p2; /users/2 serves c and p3's owner.
    expect(upstream.requests.map((r) => r.url).sort()).toEqual(['/products', '/users/1', '/users/2']);
  });

  test('separate operations do not share calls', async () => {
    await run('{ user(id: "1") { name } }');
    await run('{ user(id: "1") { name } }');
    expect(upstream.requests).toHaveLength(2);
  });

  test('calls differing only in a header are separate', async () => {
    const schema = schemaFor(resolutions(upstream.port));
    const ctx = context({ authorization: 'a' });
    await execute({ schema, document: parse('{ echo(tag: "x") { method } }'), contextValue: ctx });
    ctx.headers.authorization = 'b';
    await execute({ schema, document: parse('{ echo(tag: "x") { method } }'), contextValue: ctx });
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual(['a', 'b']);
  });

  test('round-robin across the target hosts, on kept-alive connections', async () => {
    const second = await startRestUpstream(usersAndProducts());
    try {
      const target = {
        cluster: 'users-svc',
        hosts: [
          { address: '127.0.0.1', port: upstream.port },
          { address: '127.0.0.1', port: second.port },
        ],
      };
      const config = {
        ...resolutions(upstream.port),
        user: rest(upstream.port, { target, headers: { ':path': '/users/{$args.id}' } }),
      };
      for (let i = 0; i < 10; i++) {
        const result = await run(`{ user(id: "${(i % 2) + 1}") { id } }`, { config });
        expect(result.errors).toBeUndefined();
      }
      expect(upstream.requests).toHaveLength(5);
      expect(second.requests).toHaveLength(5);
      // Sequential calls reuse one socket per host (the first host's may be left from earlier tests).
      expect(upstream.connections).toBeLessThanOrEqual(1);
      expect(second.connections).toBe(1);
    } finally {
      await second.close();
    }
  });
});
