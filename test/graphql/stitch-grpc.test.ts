/**
 * The stitched scenario on gRPC: the user and product services on 127.0.0.1
 * with server reflection (harness/grpc-services.ts), two GraphQLApis
 * with grpcResolvers and one stitched GraphQLApi with typeMerge on User,
 * written as resources, compiled by the `sluice` binary and served by
 * sluice-graphql from the graphql.json it wrote. Calls are counted at the
 * gRPC server; both execution paths (plan, @graphql-tools/stitch) are run.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, validate, type ExecutionResult } from 'graphql';
import type { RequestContext } from '../../graphql-server/api.js';
import { startGraphql, type RunningGraphql } from '../../graphql-server/server.js';
import type { StitchedApi } from '../../graphql-server/stitch/index.js';
import { GRAPHQL_API_HEADER } from '../../contract/names.js';
import { startGrpcUpstream, type GrpcUpstream } from '../../harness/grpc-services.js';
import { tempDir } from '../../harness/temp-dir.js';
import { testLogger } from '../../harness/log-check.js';

const GET_USER = 'users.UserService/GetUser';

/** SPEC's resources, the services reached on loopback; GetUser answers after `delayMs` (x-delay-ms), so that calls overlap when made together. */
function resources(port: number, delayMs: number): string {
  return `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: {name: shop-grpc, namespace: default}
spec:
  useHttp2: true
  static: {hosts: [{addr: 127.0.0.1, port: ${port}}]}
---
apiVersion: graphql.gateway.example/v1beta1
kind: GraphQLApi
metadata: {name: user-api, namespace: default}
spec:
  executableSchema:
    executor: {local: {enableIntrospection: true}}
    resolutions:
      Query|users.UserService.GetUser:
        grpcResolver:
          upstreamRef: {name: shop-grpc, namespace: default}
          requestTransform:
            serviceName: users.UserService
            methodName: GetUser
            outgoingMessageJson: {id: '{$args.id}'}
            requestMetadata: {x-delay-ms: '${delayMs}'}
    schemaDefinition: |
      type Query { GetUser(id: ID!): User @resolve(name: "Query|users.UserService.GetUser") }
      type User { id: ID! username: String fullName: String userId: String }
---
apiVersion: graphql.gateway.example/v1beta1
kind: GraphQLApi
metadata: {name: product-api, namespace: default}
spec:
  executableSchema:
    executor: {local: {enableIntrospection: false}}
    resolutions:
      Query|products.ProductService.GetProduct:
        grpcResolver:
          upstreamRef: {name: shop-grpc, namespace: default}
          requestTransform: {serviceName: products.ProductService, methodName: GetProduct, outgoingMessageJson: {id: '{$args.id}'}}
      Query|products.ProductService.TopProducts:
        grpcResolver:
          upstreamRef: {name: shop-grpc, namespace: default}
          requestTransform: {serviceName: products.ProductService, methodName: TopProducts, outgoingMessageJson: {first: '{$args.first}'}}
    schemaDefinition: |
      type Query {
        GetProduct(id: ID!): Product @resolve(name: "Query|products.ProductService.GetProduct")
        TopProducts(first: Int!): [Product] @resolve(name: "Query|products.ProductService.TopProducts")
      }
      type Product { id: ID! name: String seller: User }
      type User { id: ID! }
---
apiVersion: graphql.gateway.example/v1beta1
kind: GraphQLApi
metadata: {name: shop-api, namespace: default}
spec:
  stitchedSchema:
    subschemas:
      - name: user-api
        namespace: default
        typeMerge:
          User: {selectionSet: '{ id }', queryName: GetUser, args: {id: id}}
      - name: product-api
        namespace: default
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: shop, namespace: default}
spec:
  virtualHost:
    domains: ['*']
    routes:
      - matchers: [{prefix: /graphql}]
        graphqlApiRef: {name: shop-api}
`;
}

let grpcServer: GrpcUpstream;
let sidecar: RunningGraphql;

beforeAll(async () => {
  grpcServer = await startGrpcUpstream();
  const dir = tempDir('stitch-grpc');
  writeFileSync(path.join(dir, 'resources.yaml'), resources(grpcServer.port, 100));
  execFileSync(
    process.execPath,
    ['bin/sluice.js', 'compile', '-f', path.join(dir, 'resources.yaml'), '-o', path.join(dir, 'out')],
    { stdio: 'pipe' },
  );
  sidecar = await startGraphql({
    config: path.join(dir, 'out', 'graphql.json'),
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: testLogger(),
  });
});

afterAll(async () => {
  await sidecar?.close();
  await grpcServer?.stop();
});

beforeEach(() => grpcServer.reset());

async function post(query: string): Promise<{ status: number; json: ExecutionResult }> {
  const res = await fetch(`http://127.0.0.1:${sidecar.port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [GRAPHQL_API_HEADER]: 'default.shop-api' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, json: (await res.json()) as ExecutionResult };
}

/** The stitched API as served, run on @graphql-tools/stitch instead of the plan. */
async function fallback(query: string): Promise<ExecutionResult> {
  const lease = sidecar.registry.acquire('default.shop-api')!;
  try {
    const api = lease.api as StitchedApi;
    const document = parse(query);
    expect(validate(api.schema, document)).toEqual([]);
    const context: RequestContext = { headers: {}, calls: new Map(), logger: testLogger() };
    return JSON.parse(JSON.stringify(await api.executeFallback({ document, query, context }))) as ExecutionResult;
  } finally {
    lease.release();
  }
}

const errorPaths = (r: ExecutionResult) => (r.errors ?? []).map((e) => JSON.stringify(e.path)).sort();

test('the compiled set holds the three APIs, the stitched one over the two gRPC ones', () => {
  expect(sidecar.registry.names.sort()).toEqual(['default.product-api', 'default.shop-api', 'default.user-api']);
});

test('GetProduct(id: 1) returns the merged object: name from products, seller fields from users', async () => {
  const query = 'query { GetProduct(id: 1) { name seller { username fullName userId } } }';
  const want = {
    data: {
      GetProduct: { name: 'Product 1', seller: { username: 'user1', fullName: 'User Number 1', userId: '1001' } },
    },
  };
  expect(await post(query)).toEqual({ status: 200, json: want });
  expect([grpcServer.count('products.ProductService/GetProduct'), grpcServer.count(GET_USER)]).toEqual([1, 1]);
  grpcServer.reset();
  expect(await fallback(query)).toEqual(want);
  expect([grpcServer.count('products.ProductService/GetProduct'), grpcServer.count(GET_USER)]).toEqual([1, 1]);
});

describe.each(['plan', 'fallback'] as const)('a list of products with repeated sellers (%s)', (how) => {
  const query = '{ TopProducts(first: 10) { name seller { username fullName userId } } }';

  test('calls GetUser once per distinct seller, the calls concurrently', async () => {
    const result = how === 'plan' ? (await post(query)).json : await fallback(query);
    const list = (result.data as { TopProducts: { name: string; seller: unknown }[] }).TopProducts;
    expect(list).toHaveLength(10);
    expect(list[3]).toEqual({
      name: 'Product 4',
      seller: { username: 'user1', fullName: 'User Number 1', userId: '1001' },
    });
    // Seller 4 is unknown to users (NOT_FOUND): its fields are null with errors at their paths; product 9 has no seller.
    expect(list[6]).toEqual({ name: 'Product 7', seller: { username: null, fullName: null, userId: null } });
    expect(list[8]).toEqual({ name: 'Product 9', seller: null });
    expect(errorPaths(result)).toEqual(
      ['fullName', 'userId', 'username'].map((f) => JSON.stringify(['TopProducts', 6, 'seller', f])),
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    // Sellers 1, 2, 3 and 4.
    expect(grpcServer.count('products.ProductService/TopProducts')).toBe(1);
    expect(grpcServer.count(GET_USER)).toBe(4);
    expect(
      grpcServer.calls
        .filter((c) => c.method === GET_USER)
        .map((c) => c.request.id)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    // Each GetUser is answered after 100 ms: made one after the other, no two would be in flight together.
    expect(grpcServer.peakInFlight).toBeGreaterThan(1);
  });
});

test('a failed merge call: the same data and error paths on both paths, at the fields that failed', async () => {
  const query =
    '{ a: GetProduct(id: 7) { seller { id username } } b: GetProduct(id: 9) { name seller { username } } GetUser(id: 2) { fullName } }';
  const planned = (await post(query)).json;
  const stitched = await fallback(query);
  const data = {
    a: { seller: { id: '4', username: null } },
    b: { name: 'Product 9', seller: null },
    GetUser: { fullName: 'User Number 2' },
  };
  expect([planned.data, stitched.data]).toEqual([data, data]);
  expect([errorPaths(planned), errorPaths(stitched)]).toEqual([
    [JSON.stringify(['a', 'seller', 'username'])],
    [JSON.stringify(['a', 'seller', 'username'])],
  ]);
  expect(planned.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
});

describe('the stitched API over HTTP', () => {
  const url = () => `http://127.0.0.1:${sidecar.port}/graphql`;

  test('introspection follows the stitched API own setting (on by default), not its subschemas', async () => {
    const query = '{ __schema { queryType { fields { name } } } }';
    const res = await post(query);
    expect(res.status).toBe(200);
    const fields = (
      res.json.data as { __schema: { queryType: { fields: { name: string }[] } } }
    ).__schema.queryType.fields
      .map((f) => f.name)
      .sort();
    expect(fields).toEqual(['GetProduct', 'GetUser', 'TopProducts']);
    // The product API alone refuses it.
    const alone = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [GRAPHQL_API_HEADER]: 'default.product-api' },
      body: JSON.stringify({ query }),
    });
    expect(((await alone.json()) as ExecutionResult).errors?.[0]?.message).toMatch(/introspection has been disabled/);
  });

  test('GET runs a stitched query', async () => {
    const res = await fetch(
      `${url()}?query=${encodeURIComponent('{ GetProduct(id: 2) { name seller { username } } }')}`,
      { headers: { [GRAPHQL_API_HEADER]: 'default.shop-api' } },
    );
    expect(await res.json()).toEqual({ data: { GetProduct: { name: 'Product 2', seller: { username: 'user2' } } } });
  });

  test('an unknown field: no data, nothing sent upstream, 400 for graphql-response+json and 200 for json', async () => {
    for (const [accept, status] of [
      ['application/graphql-response+json', 400],
      ['application/json', 200],
    ] as const) {
      const res = await fetch(url(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, [GRAPHQL_API_HEADER]: 'default.shop-api' },
        body: JSON.stringify({ query: '{ GetProduct(id: 1) { name seller { email } } }' }),
      });
      const json = (await res.json()) as ExecutionResult;
      expect({ status: res.status, hasData: 'data' in json, message: json.errors?.[0]?.message }).toEqual({
        status,
        hasData: false,
        message: 'Cannot query field "email" on type "User".',
      });
    }
    expect(grpcServer.calls).toHaveLength(0);
  });

  test('the gRPC services down: errors at the fields, the server stays up and answers again once they are back', async () => {
    await grpcServer.stop();
    try {
      const down = await post('{ GetProduct(id: 1) { name } GetUser(id: 2) { username } }');
      expect(down.status).toBe(200);
      expect(down.json.data).toEqual({ GetProduct: null, GetUser: null });
      expect(errorPaths(down.json)).toEqual([JSON.stringify(['GetProduct']), JSON.stringify(['GetUser'])]);
      expect(down.json.errors?.[0]?.extensions).toMatchObject({ code: 'UNAVAILABLE' });
      expect((await fetch(`http://127.0.0.1:${sidecar.adminPort}/healthz`)).status).toBe(200);
    } finally {
      await grpcServer.start();
    }
    let back: ExecutionResult | undefined;
    // grpc-js reconnects with backoff: ask until the channel is up again.
    for (let i = 0; i < 100 && !back?.data; i++) {
      const r = (await post('{ GetProduct(id: 1) { name seller { username } } }')).json;
      if (!r.errors) back = r;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(back).toEqual({ data: { GetProduct: { name: 'Product 1', seller: { username: 'user1' } } } });
  });
});
