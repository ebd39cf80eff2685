/**
 * State-of-the-world EDS requests that name some of the EDS clusters only,
 * through a real gRPC ADS client: each is answered with the clusters it
 * names, at once and on every change of them. Routes are what waits: make
 * before break holds a route configuration until the client holds the
 * endpoints of every EDS cluster it names (what kept a benchmark client that
 * asked for 50 of 2,000 clusters without its routes).
 */
import { SotwClient, type Response } from '../../harness/xds-client.js';
import { handled, names, snapshotOf, startServer, TYPE_URL as T, type Shape } from './fixtures.js';
import type { XdsServer } from '../../control-plane/server/server.js';
import type { SnapshotCache } from '../../control-plane/cache/cache.js';

let server: XdsServer;
let cache: SnapshotCache;
let port: number;
let client: SotwClient;

const SHAPE: Shape = {
  vhosts: { 'default.a': ['/a', 'a'], 'default.b': ['/b', 'b'], 'default.c': ['/c', 'c'] },
  clusters: { a: '10.0.0.1:80', b: '10.0.0.2:80', c: '10.0.0.3:80' },
};
const moved = (cluster: string, address: string): Shape => ({
  ...SHAPE,
  clusters: { ...SHAPE.clusters, [cluster]: address },
});
const addressOf = (r: Response, cluster: string) =>
  r.resources.find((e) => e.cluster_name === cluster)?.endpoints[0].lb_endpoints[0].endpoint.address.socket_address
    .address;

beforeEach(async () => {
  ({ server, cache, port } = await startServer());
  cache.setSnapshot(snapshotOf(SHAPE));
  client = new SotwClient(port, 'subset-node');
});

afterEach(async () => {
  client.close();
  await server.close();
});

/** Sends a request and resolves once the server has handled it, with the types it answered. */
async function request(req: Parameters<SotwClient['send']>[0]): Promise<string[]> {
  const pushed: string[] = [];
  const onPush = (e: { typeUrl: string }) => pushed.push(e.typeUrl);
  server.on('push', onPush);
  const done = handled(server);
  client.send(req);
  await done;
  server.off('push', onPush);
  return pushed;
}

async function subscribeClusters(): Promise<void> {
  client.send({ type_url: T.cluster });
  const cds = await client.expect(T.cluster);
  expect(names(cds.resources)).toEqual(['a', 'b', 'c']);
  await request({ type_url: T.cluster, version_info: cds.version_info, response_nonce: cds.nonce });
}

test('a first EDS request naming some clusters is answered with those', async () => {
  await subscribeClusters();
  expect(await request({ type_url: T.endpoint, resource_names: ['b'] })).toEqual([T.endpoint]);
  const eds = await client.expect(T.endpoint);
  expect(names(eds.resources)).toEqual(['b']);
});

test('a change of a named cluster reaches the client', async () => {
  await subscribeClusters();
  client.send({ type_url: T.endpoint, resource_names: ['a', 'b'] });
  const first = await client.expect(T.endpoint);
  await request({
    type_url: T.endpoint,
    version_info: first.version_info,
    response_nonce: first.nonce,
    resource_names: ['a', 'b'],
  });
  cache.setSnapshot(snapshotOf(moved('b', '10.0.9.2:80')));
  const next = await client.expect(T.endpoint);
  expect(names(next.resources)).toEqual(['a', 'b']);
  expect(addressOf(next, 'b')).toBe('10.0.9.2');
});

test('a request that narrows or widens the names is answered at once, in the same version', async () => {
  await subscribeClusters();
  client.send({ type_url: T.endpoint, resource_names: ['a', 'b', 'c'] });
  const all = await client.expect(T.endpoint);
  expect(
    await request({
      type_url: T.endpoint,
      version_info: all.version_info,
      response_nonce: all.nonce,
      resource_names: ['a'],
    }),
  ).toEqual([T.endpoint]);
  const narrowed = await client.expect(T.endpoint);
  expect(names(narrowed.resources)).toEqual(['a']);
  expect(
    await request({
      type_url: T.endpoint,
      version_info: narrowed.version_info,
      response_nonce: narrowed.nonce,
      resource_names: ['a', 'c'],
    }),
  ).toEqual([T.endpoint]);
  expect(names((await client.expect(T.endpoint)).resources)).toEqual(['a', 'c']);
});

test('routes wait for the endpoints of every EDS cluster they name, asked for or not, and go out once the client holds them', async () => {
  await subscribeClusters();
  client.send({ type_url: T.endpoint, resource_names: ['a'] });
  const eds = await client.expect(T.endpoint);
  await request({
    type_url: T.endpoint,
    version_info: eds.version_info,
    response_nonce: eds.nonce,
    resource_names: ['a'],
  });
  client.send({ type_url: T.listener });
  const lds = await client.expect(T.listener);
  await request({ type_url: T.listener, version_info: lds.version_info, response_nonce: lds.nonce });
  // Envoy asks for the endpoints of every EDS cluster it has, and its request may cross a response (then it
  // is stale, and ignored): a name missing from the subscription is no sign that the client will not use it.
  expect(await request({ type_url: T.route, resource_names: ['http-8080'] })).toEqual([]);
  expect(
    await request({
      type_url: T.endpoint,
      version_info: eds.version_info,
      response_nonce: eds.nonce,
      resource_names: ['a', 'b', 'c'],
    }),
  ).toEqual([T.endpoint]);
  const all = await client.expect(T.endpoint);
  expect(names(all.resources)).toEqual(['a', 'b', 'c']);
  // The ACK of b's and c's endpoints lets the routes go.
  expect(
    await request({
      type_url: T.endpoint,
      version_info: all.version_info,
      response_nonce: all.nonce,
      resource_names: ['a', 'b', 'c'],
    }),
  ).toEqual([T.route]);
  expect(names((await client.expect(T.route)).resources)).toEqual(['http-8080']);
});
