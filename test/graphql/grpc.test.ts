/**
 * gRPC resolvers against real gRPC servers on 127.0.0.1 with server
 * reflection (harness/grpc-services.ts). Fields carry @resolve and are
 * bound to createGrpcResolver here; graphql-js executes the schema, as the
 * local executor does. What the resolvers sent is read from the calls the
 * upstream recorded and counted.
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
import type { GrpcResolverConfig, RequestContext, ResolverDeps } from '../../graphql-server/api.js';
import { parseGraphQLApi } from '../../graphql-server/config.js';
import { createGrpcResolver } from '../../graphql-server/grpc/resolver.js';
import { ApiRegistry } from '../../graphql-server/registry.js';
import { GRPC_SERVICES_KEY, GrpcServices } from '../../graphql-server/grpc/services.js';
import { descriptorSet, GRPC_PRODUCTS, startGrpcUpstream, type GrpcUpstream } from '../../harness/grpc-services.js';
import { testDeps } from '../../harness/stitch-subgraphs.js';
import { testLogger } from '../../harness/log-check.js';

const SDL = /* GraphQL */ `
  directive @resolve(name: String!) on FIELD_DEFINITION
  type Query {
    user(id: Int!): User @resolve(name: "user")
    userByText(id: String!): User @resolve(name: "user")
    users(role: Role, ids: [Int], minBalance: String, pageSize: Int, after: Int): [User] @resolve(name: "users")
    userCount(role: Role): Int @resolve(name: "userCount")
    product(id: Int!): Product @resolve(name: "product")
    topProducts(first: Int!): [Product] @resolve(name: "topProducts")
    slowUser(id: Int!, delayMs: Int): User @resolve(name: "slowUser")
    traced(id: Int!): User @resolve(name: "traced")
  }
  enum Role {
    ROLE_UNSPECIFIED
    BUYER
    SELLER
    ADMIN
  }
  type User {
    id: Int!
    username: String
    fullName: String
    full_name: String
    userId: Int
    role: Role
    balanceCents: String
    balance_cents: Int
    balanceFloat: Float
    address: Address
    tags: [String]
    verified: Boolean
    loginCount: ID
    rating: Float
  }
  type Address {
    city: String
    postalCode: String
  }
  type Product {
    id: Int!
    name: String
    sellerId: Int
    priceCents: String
    seller: User @resolve(name: "seller")
  }
`;

type Result = Omit<ExecutionResult, 'errors'> & {
  errors?: { message: string; path: (string | number)[]; extensions: Record<string, unknown> }[];
};

let upstream: GrpcUpstream;
let deps: ResolverDeps;

function grpcConfig(
  port: number,
  serviceName: string,
  methodName: string,
  outgoingMessageJson: unknown,
  partial: Partial<GrpcResolverConfig> = {},
): GrpcResolverConfig {
  return {
    kind: 'grpc',
    serviceName,
    methodName,
    outgoingMessageJson,
    target: { cluster: 'shop-grpc', hosts: [{ address: '127.0.0.1', port }] },
    timeoutMs: 0,
    requestMetadata: {},
    ...partial,
  };
}

function resolutions(port: number): Record<string, GrpcResolverConfig> {
  return {
    user: grpcConfig(port, 'users.UserService', 'GetUser', { id: '{$args.id}' }),
    users: grpcConfig(port, 'users.UserService', 'ListUsers', {
      role: '{$args.role}',
      ids: '{$args.ids}',
      minBalanceCents: '{$args.minBalance}',
      page: { size: '{$args.pageSize}', after: '{$args.after}' },
    }),
    userCount: grpcConfig(port, 'users.UserService', 'CountUsers', { role: '{$args.role}' }),
    product: grpcConfig(port, 'products.ProductService', 'GetProduct', { id: '{$args.id}' }),
    topProducts: grpcConfig(port, 'products.ProductService', 'TopProducts', { first: '{$args.first}' }),
    seller: grpcConfig(port, 'users.UserService', 'GetUser', { id: '{$parent.seller_id}' }),
    slowUser: grpcConfig(
      port,
      'users.UserService',
      'GetUser',
      { id: '{$args.id}' },
      { requestMetadata: { 'x-delay-ms': '{$args.delayMs}' } },
    ),
    traced: grpcConfig(
      port,
      'users.UserService',
      'GetUser',
      { id: '{$args.id}' },
      { requestMetadata: { Authorization: '{$headers.authorization}', 'x-field': 'traced-{$args.id}' } },
    ),
  };
}

/** The SDL with each @resolve field bound to its gRPC resolver (what the local executor does). */
function schemaFor(config: Record<string, GrpcResolverConfig>, d: ResolverDeps = deps) {
  const schema = buildSchema(SDL);
  const directive = schema.getDirective('resolve') as GraphQLDirective;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const f of Object.values(type.getFields())) {
      const name = f.astNode && getDirectiveValues(directive, f.astNode)?.name;
      if (typeof name === 'string' && config[name])
        f.resolve = createGrpcResolver(
          config[name],
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
  opts: { headers?: Record<string, string>; config?: Record<string, GrpcResolverConfig>; deps?: ResolverDeps } = {},
): Promise<Result> {
  const schema = schemaFor(opts.config ?? resolutions(upstream.port), opts.deps);
  const result = await execute({ schema, document: parse(query), contextValue: context(opts.headers) });
  return JSON.parse(JSON.stringify(result)) as Result;
}

/** Deps whose gRPC services ask reflection again at once after a failure (no waiting in tests). */
function depsRetryingAtOnce(api: string): ResolverDeps {
  const d = testDeps(api);
  d.shared(GRPC_SERVICES_KEY, () => new GrpcServices({ retryAfterMs: 0 }));
  return d;
}

const closeGrpc = (d: ResolverDeps) => d.shared(GRPC_SERVICES_KEY, () => new GrpcServices()).close();

beforeAll(async () => {
  upstream = await startGrpcUpstream();
  deps = testDeps('shop.grpc');
});

afterAll(async () => {
  closeGrpc(deps);
  await upstream.stop();
});

beforeEach(() => upstream.reset());

describe('calls and answers', () => {
  test('a query returns the upstream data; GraphQL names read proto fields in either spelling', async () => {
    const result = await run(
      '{ user(id: 2) { id username fullName full_name userId } product(id: 3) { name sellerId priceCents } }',
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      user: { id: 2, username: 'user2', fullName: 'User Number 2', full_name: 'User Number 2', userId: 1002 },
      product: { name: 'Product 3', sellerId: 3, priceCents: '750' },
    });
    expect(upstream.calls.map((c) => [c.method, c.request.id]).sort()).toEqual([
      ['products.ProductService/GetProduct', 3],
      ['users.UserService/GetUser', 2],
    ]);
  });

  test('a list field takes the response message’s one repeated field; nested resolvers read the parent', async () => {
    const result = await run('{ topProducts(first: 3) { id name seller { username } } }');
    expect(result.errors).toBeUndefined();
    expect(result.data!.topProducts).toEqual([
      { id: 1, name: 'Product 1', seller: { username: 'user1' } },
      { id: 2, name: 'Product 2', seller: { username: 'user2' } },
      { id: 3, name: 'Product 3', seller: { username: 'user3' } },
    ]);
    expect(upstream.count('products.ProductService/TopProducts')).toBe(1);
  });

  test('a scalar field takes the response message’s one scalar field', async () => {
    const result = await run('{ userCount(role: SELLER) all: userCount }');
    expect(result).toEqual({ data: { userCount: 2, all: 4 } });
  });

  test('int64, uint64, enum, nested message, repeated, bool and double fields', async () => {
    const result = await run(
      '{ a: user(id: 5) { role balanceCents balanceFloat: balanceCents address { city postalCode } tags verified loginCount rating } b: user(id: 3) { loginCount tags } c: user(id: 1) { tags balance_cents } }',
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      // 9007199254740993 is beyond 2^53: exact as a string.
      a: {
        role: 'SELLER',
        balanceCents: '9007199254740993',
        balanceFloat: '9007199254740993',
        address: { city: 'City 5', postalCode: '05000' },
        tags: ['tag5', 'common'],
        verified: true,
        loginCount: '5',
        rating: 2.5,
      },
      b: { loginCount: '18446744073709551615', tags: ['tag3', 'common'] },
      // An empty repeated field is an empty list; an int64 that fits 32 bits is an Int.
      c: { tags: [], balance_cents: 1000000000 },
    });
  });

  test('an int64 beyond 32 bits into an Int field is an error on that field only', async () => {
    const result = await run('{ user(id: 3) { username balance_cents } }');
    expect(result.data).toEqual({ user: { username: 'user3', balance_cents: null } });
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]!.path).toEqual(['user', 'balance_cents']);
    expect(result.errors![0]!.message).toMatch(/Int cannot represent non 32-bit signed integer value: "3000000000"/);
  });

  test('request values are converted to the field types: enum by name, repeated, int64 from a string, Int into a string field, nested message', async () => {
    const result = await run(
      '{ users(role: SELLER, ids: [1, 2, 3, 5], minBalance: "2000000001", pageSize: 5, after: 7) { id role } }',
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.users).toEqual([{ id: 5, role: 'SELLER' }]);
    expect(upstream.calls[0]!.request).toEqual({
      role: 'SELLER',
      ids: [1, 2, 3, 5],
      min_balance_cents: '2000000001',
      page: { size: 5, after: '7' },
    });
  });

  test('a decimal string into an int32 field is its number; text that is not one is an error naming the field', async () => {
    const ok = await run('{ userByText(id: "2") { username } }');
    expect(ok.data).toEqual({ userByText: { username: 'user2' } });
    upstream.reset();
    const bad = await run('{ userByText(id: "2abc") { username } }');
    expect(bad.data).toEqual({ userByText: null });
    expect(bad.errors![0]!.extensions).toEqual({ code: 'GRPC_BAD_REQUEST' });
    expect(bad.errors![0]!.message).toMatch(/users\.GetUserRequest\.id: expects an integer \(int32\), got "2abc"/);
    expect(upstream.calls).toHaveLength(0);
  });

  test('requestMetadata templates are sent as metadata; an empty one is not sent', async () => {
    const result = await run('{ traced(id: 1) { id } }', {
      headers: { authorization: 'Bearer t0k', cookie: 'session=secret' },
    });
    expect(result.errors).toBeUndefined();
    expect(upstream.calls[0]!.metadata).toMatchObject({ authorization: 'Bearer t0k', 'x-field': 'traced-1' });
    expect(upstream.calls[0]!.metadata).not.toHaveProperty('cookie');
    upstream.reset();
    await run('{ traced(id: 2) { id } }');
    expect(upstream.calls[0]!.metadata).not.toHaveProperty('authorization');
  });
});

describe('identical calls', () => {
  test('identical calls within one operation are made once; separate operations do not share', async () => {
    const result = await run('{ a: user(id: 1) { username } b: user(id: 1) { fullName } c: user(id: 2) { username } }');
    expect(result.data).toEqual({
      a: { username: 'user1' },
      b: { fullName: 'User Number 1' },
      c: { username: 'user2' },
    });
    expect(upstream.count('users.UserService/GetUser')).toBe(2);
    await run('{ user(id: 1) { username } }');
    expect(upstream.count('users.UserService/GetUser')).toBe(3);
  });

  test('a list of products calls GetUser once per distinct seller', async () => {
    const result = await run('{ topProducts(first: 10) { id seller { id username } } }');
    const sellers = new Set(GRPC_PRODUCTS.slice(0, 10).map((p) => p.seller_id));
    expect(upstream.count('users.UserService/GetUser')).toBe(sellers.size);
    // Product 7's seller (4) and product 9's (none: id 0) are unknown to users: errors at their paths.
    expect(result.errors!.map((e) => [e.path, e.extensions.code]).sort()).toEqual([
      [['topProducts', 6, 'seller'], 'NOT_FOUND'],
      [['topProducts', 8, 'seller'], 'NOT_FOUND'],
    ]);
    expect((result.data!.topProducts as { seller: unknown }[])[0]!.seller).toEqual({ id: 1, username: 'user1' });
  });

  test('independent calls are in flight at the same time', async () => {
    const result = await run(
      '{ a: slowUser(id: 1, delayMs: 200) { id } b: slowUser(id: 2, delayMs: 200) { id } c: slowUser(id: 3, delayMs: 200) { id } }',
    );
    expect(result.errors).toBeUndefined();
    expect(upstream.peakInFlight).toBe(3);
  });
});

describe('failures are errors on their field; the rest of the data is returned', () => {
  test('NOT_FOUND: the status name and code in extensions, the field path, other fields resolved', async () => {
    const result = await run('{ user(id: 99) { username } product(id: 1) { name } }');
    expect(result.data).toEqual({ user: null, product: { name: 'Product 1' } });
    expect(result.errors).toEqual([
      {
        message: 'gRPC /users.UserService/GetUser on upstream shop-grpc failed with status NOT_FOUND',
        locations: [{ line: 1, column: 3 }],
        path: ['user'],
        extensions: { code: 'NOT_FOUND', grpcCode: 5 },
      },
    ]);
  });

  test('the upstream’s status details are not sent to the client', async () => {
    const result = await run('{ user(id: 99) { username } }');
    expect(JSON.stringify(result)).not.toContain('user 99 not found');
  });

  test('a deadline: DEADLINE_EXCEEDED when the upstream answers later than timeoutMs', async () => {
    const config = {
      ...resolutions(upstream.port),
      slowUser: grpcConfig(
        upstream.port,
        'users.UserService',
        'GetUser',
        { id: '{$args.id}' },
        { timeoutMs: 50, requestMetadata: { 'x-delay-ms': '{$args.delayMs}' } },
      ),
    };
    const result = await run('{ slowUser(id: 1, delayMs: 1000) { id } user(id: 1) { id } }', { config });
    expect(result.data).toEqual({ slowUser: null, user: { id: 1 } });
    expect(result.errors![0]!.extensions).toEqual({ code: 'DEADLINE_EXCEEDED', grpcCode: 4 });
    expect(result.errors![0]!.message).toMatch(/no answer within 50 ms/);
  });

  test('a call is cancelled when the client goes away', async () => {
    const abort = new AbortController();
    const schema = schemaFor(resolutions(upstream.port));
    const running = execute({
      schema,
      document: parse('{ slowUser(id: 1, delayMs: 5000) { id } }'),
      contextValue: { ...context(), signal: abort.signal },
    });
    while (upstream.count('users.UserService/GetUser') === 0) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    const result = JSON.parse(JSON.stringify(await running)) as Result;
    expect(result.errors![0]!.extensions).toEqual({ code: 'CANCELLED', grpcCode: 1 });
  });

  test('a service that is down: UNAVAILABLE on its fields, the others resolve; once it is back it answers', async () => {
    const down = await startGrpcUpstream({ services: ['users'] });
    const d = depsRetryingAtOnce('shop.down');
    const config = {
      ...resolutions(upstream.port),
      user: grpcConfig(down.port, 'users.UserService', 'GetUser', { id: '{$args.id}' }),
    };
    try {
      await down.stop();
      const result = await run('{ user(id: 1) { username } product(id: 2) { name } }', { config, deps: d });
      expect(result.data).toEqual({ user: null, product: { name: 'Product 2' } });
      expect(result.errors![0]!.path).toEqual(['user']);
      expect(result.errors![0]!.extensions).toEqual({ code: 'UNAVAILABLE', grpcCode: 14 });
      await down.start();
      // The channel reconnects after its backoff (0.25 s at first): until then the service still reads as down.
      let later = await run('{ user(id: 1) { username } }', { config, deps: d });
      for (let i = 0; i < 50 && later.errors?.[0]?.extensions.code === 'UNAVAILABLE'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        later = await run('{ user(id: 1) { username } }', { config, deps: d });
      }
      expect(later).toEqual({ data: { user: { username: 'user1' } } });
      // Down after its message types are known: the call itself fails.
      await down.stop();
      const again = await run('{ user(id: 1) { username } }', { config, deps: d });
      expect(again.errors![0]!.extensions).toEqual({ code: 'UNAVAILABLE', grpcCode: 14 });
    } finally {
      closeGrpc(d);
      await down.stop();
    }
  });

  test('a target with no hosts is UNAVAILABLE', async () => {
    const config = {
      ...resolutions(upstream.port),
      user: { ...resolutions(upstream.port).user!, target: { cluster: 'empty', hosts: [] } },
    };
    const result = await run('{ user(id: 1) { username } }', { config });
    expect(result.errors![0]!.extensions).toEqual({ code: 'UNAVAILABLE', grpcCode: 14 });
    expect(result.errors![0]!.message).toMatch(/upstream empty has no hosts/);
  });
});

describe('message types', () => {
  test('an upstream without reflection: GRPC_DESCRIPTOR_UNAVAILABLE saying what to do; with protoDescriptorBin it answers', async () => {
    const bare = await startGrpcUpstream({ reflection: false });
    const config = { ...resolutions(bare.port) };
    try {
      const result = await run('{ user(id: 1) { username } }', { config });
      expect(result.data).toEqual({ user: null });
      expect(result.errors![0]!.extensions).toEqual({ code: 'GRPC_DESCRIPTOR_UNAVAILABLE' });
      expect(result.errors![0]!.message).toMatch(/does not offer gRPC server reflection.*protoDescriptorBin/);
      expect(bare.count('users.UserService/GetUser')).toBe(0);

      const withSet = { ...testDeps('shop.described'), protoDescriptorBin: descriptorSet() };
      const described = await run(
        '{ user(id: 5) { fullName role balanceCents address { postalCode } } topProducts(first: 2) { name } }',
        { config, deps: withSet },
      );
      expect(described).toEqual({
        data: {
          user: {
            fullName: 'User Number 5',
            role: 'SELLER',
            balanceCents: '9007199254740993',
            address: { postalCode: '05000' },
          },
          topProducts: [{ name: 'Product 1' }, { name: 'Product 2' }],
        },
      });
      closeGrpc(withSet);
    } finally {
      await bare.stop();
    }
  });

  test('reflection v1alpha is used where v1 is not served', async () => {
    const old = await startGrpcUpstream({ reflection: 'v1alpha' });
    try {
      const result = await run('{ user(id: 2) { fullName } }', { config: resolutions(old.port) });
      expect(result).toEqual({ data: { user: { fullName: 'User Number 2' } } });
    } finally {
      await old.stop();
    }
  });

  test('concurrent first requests share one reflection fetch, and it is kept', async () => {
    const d = testDeps('shop.fetch-once');
    const services = d.shared(GRPC_SERVICES_KEY, () => new GrpcServices());
    const target = resolutions(upstream.port).user!.target;
    const fetches = await Promise.all([1, 2, 3].map(() => services.descriptors(target, 'users.UserService', 1000)));
    expect(fetches[1]).toBe(fetches[0]);
    expect(await services.descriptors(target, 'users.UserService', 1000)).toBe(fetches[0]);
    services.close();
  });

  test('a service or method the upstream does not have: GRPC_DESCRIPTOR_UNAVAILABLE naming it', async () => {
    const config = {
      ...resolutions(upstream.port),
      user: grpcConfig(upstream.port, 'users.NoSuchService', 'GetUser', { id: '{$args.id}' }),
      product: grpcConfig(upstream.port, 'products.ProductService', 'GetThing', { id: '{$args.id}' }),
    };
    const result = await run('{ user(id: 1) { username } product(id: 1) { name } topProducts(first: 1) { name } }', {
      config,
      deps: depsRetryingAtOnce('shop.missing'),
    });
    expect(result.data).toEqual({ user: null, product: null, topProducts: [{ name: 'Product 1' }] });
    const byPath = Object.fromEntries(result.errors!.map((e) => [e.path[0], e]));
    expect(byPath.user!.extensions).toEqual({ code: 'GRPC_DESCRIPTOR_UNAVAILABLE' });
    expect(byPath.user!.message).toMatch(/upstream shop-grpc has no service "users.NoSuchService"/);
    expect(byPath.product!.extensions).toEqual({ code: 'GRPC_DESCRIPTOR_UNAVAILABLE' });
    expect(byPath.product!.message).toMatch(
      /has no method "GetThing" \(methods: GetProduct, ListProducts, TopProducts\)/,
    );
  });

  test('a template field the request message lacks: an error on the field at run time, a build error with protoDescriptorBin', async () => {
    const config = {
      ...resolutions(upstream.port),
      user: grpcConfig(upstream.port, 'users.UserService', 'GetUser', { id: '{$args.id}', name: '{$args.nope}' }),
    };
    const result = await run('{ user(id: 1) { username } }', { config });
    expect(result.errors![0]!.extensions).toEqual({ code: 'GRPC_BAD_REQUEST' });
    expect(result.errors![0]!.message).toMatch(
      /users.GetUserRequest.name: users.GetUserRequest has no such field \(its fields: id\)/,
    );
    expect(upstream.count('users.UserService/GetUser')).toBe(0);

    const withSet = { ...testDeps('shop.described'), protoDescriptorBin: descriptorSet() };
    expect(() => schemaFor(config, withSet)).toThrow(
      /gRPC resolver: outgoingMessageJson: users.GetUserRequest.name: users.GetUserRequest has no such field/,
    );
    const noMethod = {
      ...resolutions(upstream.port),
      user: grpcConfig(upstream.port, 'users.UserService', 'DeleteUser', {}),
    };
    expect(() => schemaFor(noMethod, withSet)).toThrow(
      /protoDescriptorBin has no method "DeleteUser"|service users.UserService of protoDescriptorBin has no method "DeleteUser"/,
    );
    const notASet = { ...testDeps('shop.bad-set'), protoDescriptorBin: new Uint8Array([1, 2, 3]) };
    expect(() => schemaFor(resolutions(upstream.port), notASet)).toThrow(
      /protoDescriptorBin is not a FileDescriptorSet/,
    );
  });

  test('a list field whose response has no single repeated field is GRPC_TYPE_MISMATCH', async () => {
    const config = {
      ...resolutions(upstream.port),
      topProducts: grpcConfig(upstream.port, 'products.ProductService', 'GetProduct', { id: '{$args.first}' }),
    };
    const result = await run('{ topProducts(first: 1) { name } }', { config });
    expect(result.errors![0]!.extensions).toEqual({ code: 'GRPC_TYPE_MISMATCH' });
    expect(result.errors![0]!.message).toMatch(
      /Query.topProducts is \[Product\] but \/products.ProductService\/GetProduct returns products.Product/,
    );
  });

  test('metadata names gRPC reserves and binary ones cannot be configured', () => {
    for (const name of ['grpc-timeout', 'trace-bin']) {
      const config = {
        ...resolutions(upstream.port),
        user: grpcConfig(upstream.port, 'users.UserService', 'GetUser', {}, { requestMetadata: { [name]: 'x' } }),
      };
      expect(() => schemaFor(config)).toThrow(`metadata "${name}" cannot be set`);
    }
  });
});

describe('connections', () => {
  test('the calls of a target with two hosts go round-robin across them', async () => {
    const second = await startGrpcUpstream({ services: ['users'] });
    const user = {
      ...resolutions(upstream.port).user!,
      target: {
        cluster: 'two',
        hosts: [
          { address: '127.0.0.1', port: upstream.port },
          { address: '127.0.0.1', port: second.port },
        ],
      },
    };
    try {
      const schema = schemaFor({ ...resolutions(upstream.port), user });
      for (let id = 1; id <= 4; id++)
        await execute({ schema, document: parse(`{ user(id: ${id}) { id } }`), contextValue: context() });
      expect([upstream.count('users.UserService/GetUser'), second.count('users.UserService/GetUser')]).toEqual([2, 2]);
    } finally {
      await second.stop();
    }
  });
});

test('a GraphQLApi as the compiler writes it (proto JSON, protoDescriptorBin in base64), built and run by the registry', async () => {
  const bare = await startGrpcUpstream({ services: ['users'], reflection: false });
  const registry = new ApiRegistry({ logger: testLogger(), defaultTimeoutMs: 5000 });
  try {
    const grpcResolver = {
      service_name: 'users.UserService',
      method_name: 'GetUser',
      outgoing_message_json: { id: '{$args.id}' },
      target: { cluster: 'users', hosts: [{ address: '127.0.0.1', port: bare.port }] },
    };
    await registry.apply([
      parseGraphQLApi({
        name: 'shop.users',
        executable: {
          schema_definition:
            'type Query { user(id: Int!): User @resolve(name: "user") } type User { id: Int! fullName: String }',
          resolutions: { user: { grpc: grpcResolver } },
          proto_descriptor_bin: Buffer.from(descriptorSet()).toString('base64'),
        },
      }),
    ]);
    const lease = registry.acquire('shop.users')!;
    const query = '{ user(id: 3) { id fullName } missing: user(id: 4) { id } }';
    const result = await lease.api.execute({ document: parse(query), query, context: context() });
    lease.release();
    expect(JSON.parse(JSON.stringify(result))).toMatchObject({
      data: { user: { id: 3, fullName: 'User Number 3' }, missing: null },
      errors: [{ path: ['missing'], extensions: { code: 'NOT_FOUND', grpcCode: 5 } }],
    });
  } finally {
    await registry.close();
    await bare.stop();
  }
});
