/**
 * Stitched APIs over two real GraphQL subgraphs (users, products) on
 * 127.0.0.1, reached through sluice's remote APIs. Requests are counted at
 * the subgraphs. Documents are validated against the stitched schema first,
 * as the server does.
 */
import { parse, validate, type ExecutionResult } from 'graphql';
import type { ExecutableApi, RequestContext } from '../../graphql-server/api.js';
import { buildStitchedApi, type StitchedApi } from '../../graphql-server/stitch/index.js';
import type { GraphQLUpstream } from '../../harness/graphql-upstream.js';
import { startGraphQLUpstream } from '../../harness/graphql-upstream.js';
import {
  PRODUCTS_SDL,
  STITCHED,
  USERS_SDL,
  remoteSubApi,
  startSubgraph,
  testDeps,
} from '../../harness/stitch-subgraphs.js';
import { buildMergeArgs } from '../../graphql-server/stitch/subschema.js';
import { testLogger } from '../../harness/log-check.js';

let users: GraphQLUpstream;
let products: GraphQLUpstream;
let subApis: Map<string, ExecutableApi>;
let api: StitchedApi;

beforeAll(async () => {
  users = await startSubgraph('users');
  products = await startSubgraph('products');
  subApis = new Map([
    ['shop.users', remoteSubApi('shop.users', USERS_SDL, users.url)],
    ['shop.products', remoteSubApi('shop.products', PRODUCTS_SDL, products.url)],
  ]);
  api = buildStitchedApi('shop.stitched', STITCHED, subApis, testDeps('shop.stitched'));
});

afterAll(async () => {
  await api.close?.();
  await Promise.all([users.close(), products.close()]);
});

beforeEach(() => {
  users.reset();
  products.reset();
  users.intercept = undefined;
});

const context = (): RequestContext => ({ headers: {}, calls: new Map(), logger: testLogger() });

type Path = 'plan' | 'fallback';

async function run(
  query: string,
  variableValues?: Record<string, unknown>,
  path: Path = 'plan',
  target: StitchedApi = api,
): Promise<ExecutionResult> {
  const document = parse(query);
  expect(validate(target.schema, document)).toEqual([]);
  const args = { document, query, variableValues, context: context() };
  if (path === 'plan') expect(target.explain(args)).toBe('plan');
  return path === 'plan' ? target.execute(args) : target.executeFallback(args);
}

/**
 * The response the server writes for the plan (executeAndWrite) is, byte for
 * byte, JSON.stringify of the plan's ExecutionResult (execute): both run, one
 * after the other, against the same subgraphs.
 */
async function expectWrittenAsStringified(
  query: string,
  variableValues?: Record<string, unknown>,
  target: StitchedApi = api,
): Promise<void> {
  const document = parse(query);
  const args = () => ({ document, query, variableValues, context: context() });
  expect(target.explain(args())).toBe('plan');
  const result = await target.execute(args());
  const written = await target.executeAndWrite(args());
  expect(written.json).toBe(JSON.stringify(result));
  expect(written.data).toBe(result.data === null ? 'null' : 'present');
  expect(written.hasErrors).toBe(!!result.errors?.length);
}

/** A result as the client sees it on the wire, errors reduced to their paths. */
function wire(result: ExecutionResult): { data: unknown; errorPaths: string[] } {
  const json = JSON.parse(JSON.stringify(result)) as { data: unknown; errors?: { path?: unknown[] }[] };
  return { data: json.data, errorPaths: (json.errors ?? []).map((e) => JSON.stringify(e.path ?? null)).sort() };
}

const usersQueries = () => users.requests.map((r) => (r.body as { query: string }).query);

describe('stitched schema', () => {
  it('has every type and query of both subgraphs, User with the union of its fields', () => {
    expect(Object.keys(api.schema.getQueryType()!.getFields()).sort()).toEqual([
      'GetProduct',
      'GetUser',
      'TopProducts',
    ]);
    expect(Object.keys((api.schema.getType('User') as import('graphql').GraphQLObjectType).getFields()).sort()).toEqual(
      ['fullName', 'id', 'userId', 'username'],
    );
  });

  it('answers introspection when enabled, and refuses it when not', async () => {
    const q = '{ __schema { queryType { name } } }';
    const document = parse(q);
    const open = await api.execute({ document, query: q, context: context() });
    expect(open.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const closed = buildStitchedApi(
      'shop.closed',
      { ...STITCHED, enableIntrospection: false },
      subApis,
      testDeps('shop.closed'),
    );
    const refused = await closed.execute({ document, query: q, context: context() });
    expect(refused.data).toBeUndefined();
    expect(refused.errors?.[0]?.message).toMatch(/introspection is disabled/);
  });
});

describe('configuration', () => {
  it('refuses a subschema that is not served, or a typeMerge query the subschema lacks, saying which', () => {
    expect(() =>
      buildStitchedApi(
        'shop.bad',
        { ...STITCHED, subschemas: [...STITCHED.subschemas, { api: 'shop.nowhere', typeMerge: {} }] },
        subApis,
        testDeps('shop.bad'),
      ),
    ).toThrow(
      'stitched API shop.bad: subschema shop.nowhere is not a GraphQLApi that is served (known: shop.users, shop.products)',
    );
    const typo = {
      ...STITCHED,
      subschemas: [
        {
          api: 'shop.users',
          typeMerge: { User: { selectionSet: '{ id }', queryName: 'GetUsers', args: { id: 'id' } } },
        },
      ],
    };
    expect(() => buildStitchedApi('shop.bad', typo, subApis, testDeps('shop.bad'))).toThrow(
      'queryName GetUsers is not a Query field of shop.users',
    );
  });

  it('builds merge arguments at dotted setter paths from dotted key paths', () => {
    const merge = {
      args: [
        { setter: ['user_search', 'username'], from: ['login', 'name'] },
        { setter: ['id'], from: ['id'] },
      ],
    };
    expect(buildMergeArgs(merge, { id: 3, login: { name: 'ann' } })).toEqual({
      user_search: { username: 'ann' },
      id: 3,
    });
  });

  it('answers a query two subschemas define from the last one listed, on both paths', async () => {
    const other = await startGraphQLUpstream({
      typeDefs: PRODUCTS_SDL,
      resolvers: {
        Query: { GetProduct: (_: unknown, { id }: { id: number }) => ({ id, name: `other ${id}`, seller: null }) },
      },
    });
    try {
      const apis = new Map(subApis).set('shop.other', remoteSubApi('shop.other', PRODUCTS_SDL, other.url));
      const config = { ...STITCHED, subschemas: [...STITCHED.subschemas, { api: 'shop.other', typeMerge: {} }] };
      const both = buildStitchedApi('shop.both', config, apis, testDeps('shop.both'));
      for (const path of ['plan', 'fallback'] as const) {
        expect(await run('{ GetProduct(id: 2) { name } }', undefined, path, both)).toEqual({
          data: { GetProduct: { name: 'other 2' } },
        });
      }
    } finally {
      await other.close();
    }
  });
});

describe.each<Path>(['plan', 'fallback'])('merged types (%s)', (path) => {
  it('returns the merged object of one product', async () => {
    const result = await run(
      'query { GetProduct(id: 1) { name seller { username fullName userId } } }',
      undefined,
      path,
    );
    expect(result).toEqual({
      data: {
        GetProduct: { name: 'Product 1', seller: { username: 'user1', fullName: 'User Number 1', userId: 1001 } },
      },
    });
    expect(products.requests).toHaveLength(1);
    expect(users.requests).toHaveLength(1);
  });

  it('makes one request to users for a list of products with repeated sellers', async () => {
    const result = await run(
      '{ TopProducts(first: 10) { name seller { username fullName userId } } }',
      undefined,
      path,
    );
    expect(result.errors).toBeUndefined();
    const list = (result.data as { TopProducts: { name: string; seller: unknown }[] }).TopProducts;
    expect(list).toHaveLength(10);
    expect(list[3]).toEqual({
      name: 'Product 4',
      seller: { username: 'user1', fullName: 'User Number 1', userId: 1001 },
    });
    // Seller 4 is gone from users: its fields are null; product 9 has no seller.
    expect(list[6]).toEqual({ name: 'Product 7', seller: { username: null, fullName: null, userId: null } });
    expect(list[8]).toEqual({ name: 'Product 9', seller: null });
    expect(products.requests).toHaveLength(1);
    expect(users.requests).toHaveLength(1);
    if (path === 'plan') {
      // Distinct sellers only: 1, 2, 3 and 4.
      expect(usersQueries()[0]!.match(/GetUser\(/g)).toHaveLength(4);
    }
  });

  it('gives partial data with error paths when users answers HTTP 502', async () => {
    users.intercept = () => ({ status: 502, contentType: 'text/plain', body: 'bad gateway' });
    const result = wire(await run('{ TopProducts(first: 3) { name seller { username } } }', undefined, path));
    expect(result.data).toEqual({
      TopProducts: [1, 2, 3].map((i) => ({ name: `Product ${i}`, seller: { username: null } })),
    });
    expect(result.errorPaths).toEqual([0, 1, 2].map((i) => JSON.stringify(['TopProducts', i, 'seller', 'username'])));
    if (path === 'plan') await expectWrittenAsStringified('{ TopProducts(first: 3) { name seller { username } } }');
  });

  it('gives partial data with error paths when users answers errors without data', async () => {
    users.intercept = () => ({ body: JSON.stringify({ errors: [{ message: 'users is failing' }] }) });
    const result = wire(await run('{ GetProduct(id: 2) { name seller { username fullName } } }', undefined, path));
    expect(result.data).toEqual({ GetProduct: { name: 'Product 2', seller: { username: null, fullName: null } } });
    expect(result.errorPaths.length).toBeGreaterThan(0);
    for (const p of result.errorPaths) expect(p).toMatch(/^\["GetProduct","seller","(username|fullName)"\]$/);
    if (path === 'plan')
      await expectWrittenAsStringified('{ GetProduct(id: 2) { name seller { username fullName } } }');
  });
});

describe('a subgraph that is down', () => {
  it('takes down only its own fields, on both paths', async () => {
    const down = await startSubgraph('users');
    const apis = new Map(subApis);
    apis.set('shop.users', remoteSubApi('shop.users', USERS_SDL, down.url));
    await down.close();
    const partial = buildStitchedApi('shop.partial', STITCHED, apis, testDeps('shop.partial'));
    const query = '{ GetProduct(id: 3) { name seller { id username } } GetUser(id: 1) { fullName } }';
    for (const path of ['plan', 'fallback'] as const) {
      const result = wire(await run(query, undefined, path, partial));
      expect(result.data).toEqual({
        GetProduct: { name: 'Product 3', seller: { id: 3, username: null } },
        GetUser: null,
      });
      expect(result.errorPaths).toEqual([
        JSON.stringify(['GetProduct', 'seller', 'username']),
        JSON.stringify(['GetUser']),
      ]);
    }
    // One failing subschema, so the errors come in one order.
    await expectWrittenAsStringified('{ GetProduct(id: 3) { name seller { id username } } }', undefined, partial);
    await expectWrittenAsStringified('{ GetUser(id: 1) { fullName } }', undefined, partial);
  });
});

describe('planner and @graphql-tools/stitch give the same answers', () => {
  const documents: [string, string, Record<string, unknown>?][] = [
    [
      'aliases',
      '{ a: GetProduct(id: 1) { title: name by: seller { login: username id } } b: GetProduct(id: 2) { name } }',
    ],
    [
      'variables',
      'query Top($n: Int!, $p: Int!) { TopProducts(first: $n) { id seller { fullName } } GetProduct(id: $p) { name } }',
      { n: 5, p: 4 },
    ],
    [
      'named and inline fragments',
      'query { TopProducts(first: 4) { ...P seller { ... on User { username } ...U } } } fragment P on Product { name } fragment U on User { userId }',
    ],
    ['__typename at every level', '{ __typename GetProduct(id: 5) { __typename seller { __typename username } } }'],
    ['the same field twice, selections merged', '{ GetProduct(id: 6) { seller { username } seller { fullName id } } }'],
    [
      'merged and root queries of both subgraphs',
      '{ GetUser(id: 2) { username } TopProducts(first: 12) { seller { id username userId } } }',
    ],
    ['only key fields', '{ TopProducts(first: 3) { seller { id } } }'],
    [
      'literal @skip and @include',
      '{ GetProduct(id: 1) { name @skip(if: true) seller @include(if: true) { username } } }',
    ],
    [
      'nulls: unknown product, a seller gone, no seller',
      '{ x: GetProduct(id: 99) { name } y: GetProduct(id: 7) { seller { username } } z: GetProduct(id: 9) { seller { username } } }',
    ],
  ];

  it.each(documents.map(([label, query, variables]) => ({ label, query, variables })))(
    '$label',
    async ({ query, variables }) => {
      const planned = wire(await run(query, variables, 'plan'));
      const stitched = wire(await run(query, variables, 'fallback'));
      expect(planned).toEqual(stitched);
      expect(planned.data).not.toBeNull();
      await expectWrittenAsStringified(query, variables);
    },
  );

  it('answers documents the planner does not take through @graphql-tools/stitch', async () => {
    const query =
      'query ($withSeller: Boolean!) { GetProduct(id: 1) { name seller @include(if: $withSeller) { username } } }';
    const document = parse(query);
    expect(api.explain({ document, query })).toBe('@include on a variable');
    const result = await api.execute({ document, query, variableValues: { withSeller: true }, context: context() });
    expect(result).toEqual({ data: { GetProduct: { name: 'Product 1', seller: { username: 'user1' } } } });
  });

  it('rejects bad variables before sending anything', async () => {
    const query = 'query ($n: Int!) { TopProducts(first: $n) { name } }';
    const result = await api.execute({
      document: parse(query),
      query,
      variableValues: { n: 'ten' },
      context: context(),
    });
    expect(result.errors?.[0]?.message).toMatch(/\$n/);
    expect(products.requests).toHaveLength(0);
  });
});

describe('merges across several levels', () => {
  // Users who point back at products: products -> users -> products -> users.
  const FANS_SDL =
    'type Query { GetUser(id: Int!): User } type User { id: Int! username: String favorite: Product } type Product { id: Int! }';
  let fans: GraphQLUpstream;
  let nested: StitchedApi;

  beforeAll(async () => {
    fans = await startGraphQLUpstream({
      typeDefs: FANS_SDL,
      resolvers: {
        Query: {
          GetUser: (_: unknown, { id }: { id: number }) =>
            id === 4 ? null : { id, username: `fan${id}`, favorite: { id: id + 10 } },
        },
      },
    });
    const apis = new Map(subApis).set('shop.fans', remoteSubApi('shop.fans', FANS_SDL, fans.url));
    nested = buildStitchedApi(
      'shop.nested',
      {
        enableIntrospection: true,
        subschemas: [
          {
            api: 'shop.products',
            typeMerge: { Product: { selectionSet: '{ id }', queryName: 'GetProduct', args: { id: 'id' } } },
          },
          {
            api: 'shop.fans',
            typeMerge: { User: { selectionSet: '{ id }', queryName: 'GetUser', args: { id: 'id' } } },
          },
        ],
      },
      apis,
      testDeps('shop.nested'),
    );
  });

  afterAll(() => fans.close());

  it('makes one request per subschema per level and answers as @graphql-tools/stitch does', async () => {
    const query = '{ TopProducts(first: 8) { name seller { username favorite { name seller { id username } } } } }';
    products.reset();
    fans.reset();
    const planned = await run(query, undefined, 'plan', nested);
    expect([products.requests.length, fans.requests.length]).toEqual([2, 2]);
    const sellers = (
      planned.data as {
        TopProducts: { seller: { username: string; favorite: { name: string; seller: { id: number } } } }[];
      }
    ).TopProducts.map((p) => p.seller);
    expect(sellers[0]).toEqual({
      username: 'fan1',
      favorite: { name: 'Product 11', seller: { id: 2, username: 'fan2' } },
    });
    expect(sellers[6]).toEqual({ username: null, favorite: null });
    expect(wire(planned)).toEqual(wire(await run(query, undefined, 'fallback', nested)));
    await expectWrittenAsStringified(query, undefined, nested);
  });
});

describe('an object whose merge key is null', () => {
  // Listings whose seller may have no id (a nullable key): nothing can be fetched for it.
  const LISTINGS_SDL =
    'type Query { listings: [Listing] } type Listing { name: String seller: User } type User { id: Int }';
  let listings: GraphQLUpstream;
  let keyed: StitchedApi;

  beforeAll(async () => {
    listings = await startGraphQLUpstream({
      typeDefs: LISTINGS_SDL,
      resolvers: {
        Query: {
          listings: () => [
            { name: 'a', seller: { id: 1 } },
            { name: 'b', seller: { id: null } },
            { name: 'c', seller: { id: 2 } },
          ],
        },
      },
    });
    const apis = new Map(subApis).set('shop.listings', remoteSubApi('shop.listings', LISTINGS_SDL, listings.url));
    keyed = buildStitchedApi(
      'shop.keyed',
      { enableIntrospection: true, subschemas: [STITCHED.subschemas[0]!, { api: 'shop.listings', typeMerge: {} }] },
      apis,
      testDeps('shop.keyed'),
    );
  });

  afterAll(() => listings.close());

  it.each<Path>(['plan', 'fallback'])(
    'is not fetched: its merged fields are null, without errors (%s)',
    async (path) => {
      const result = wire(await run('{ listings { name seller { id username } } }', undefined, path, keyed));
      expect(result).toEqual({
        data: {
          listings: [
            { name: 'a', seller: { id: 1, username: 'user1' } },
            { name: 'b', seller: { id: null, username: null } },
            { name: 'c', seller: { id: 2, username: 'user2' } },
          ],
        },
        errorPaths: [],
      });
      expect(usersQueries()).toHaveLength(1);
      if (path === 'plan')
        await expectWrittenAsStringified('{ listings { name seller { id username } } }', undefined, keyed);
    },
  );
});
