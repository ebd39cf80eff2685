/** Incremental (delta) ADS conformance: a real gRPC client against the real server on 127.0.0.1. */
import { DeltaClient } from '../../harness/xds-client.js';
import { BASE, TYPE_URL, handled, snapshotOf, startServer, type Shape } from './fixtures.js';
import type { XdsServer } from '../../control-plane/server/server.js';
import type { SnapshotCache } from '../../control-plane/cache/cache.js';

const T = TYPE_URL;
let server: XdsServer;
let cache: SnapshotCache;
let port: number;
const clients: DeltaClient[] = [];

function client(node = 'test-node'): DeltaClient {
  const c = new DeltaClient(port, node);
  clients.push(c);
  return c;
}

const TWO_CLUSTERS: Shape = {
  ...BASE,
  clusters: { web: '10.0.0.1:80', api: '10.0.0.2:80', dns: 'svc.default.svc.cluster.local:80' },
};

beforeEach(async () => {
  ({ server, cache, port } = await startServer());
  cache.setSnapshot(snapshotOf(TWO_CLUSTERS));
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.close();
});

test('wildcard CDS gets every cluster; EDS only the subscribed names; unchanged resources are not resent', async () => {
  const c = client();
  c.send({ type_url: T.cluster });
  const cds = await c.expect(T.cluster);
  expect(cds.resources.map((r) => r.name).sort()).toEqual(['api', 'dns', 'web']);
  expect(cds.removed_resources).toEqual([]);
  c.ack(cds);
  c.send({ type_url: T.endpoint, resource_names_subscribe: ['web'] });
  const eds = await c.expect(T.endpoint);
  expect(eds.resources.map((r) => r.name)).toEqual(['web']);
  c.ack(eds);

  // Only web's endpoints change: one EDS resource, no CDS response at all.
  cache.setSnapshot(snapshotOf({ ...TWO_CLUSTERS, clusters: { ...TWO_CLUSTERS.clusters, web: '10.0.0.7:80' } }));
  const next = await c.next();
  expect(next.type_url).toBe(T.endpoint);
  expect(next.resources.map((r) => r.name)).toEqual(['web']);
  expect(next.resources[0].version).not.toBe(eds.resources[0].version);
  const done = handled(server);
  c.ack(next);
  await done;
  expect(c.inbox.pending).toBe(0);

  // Subscribing to a second name sends only that one.
  c.send({ type_url: T.endpoint, resource_names_subscribe: ['api'] });
  const api = await c.expect(T.endpoint);
  expect(api.resources.map((r) => r.name)).toEqual(['api']);
});

test('removed resources are listed in removed_resources; unsubscribed names are forgotten', async () => {
  const c = client();
  c.send({ type_url: T.cluster });
  c.ack(await c.expect(T.cluster));
  c.send({ type_url: T.endpoint, resource_names_subscribe: ['web', 'api'] });
  const eds0 = await c.expect(T.endpoint);
  let done = handled(server);
  c.ack(eds0);
  await done;
  done = handled(server);
  c.send({ type_url: T.endpoint, resource_names_unsubscribe: ['web'] });
  await done;

  cache.setSnapshot(
    snapshotOf({ ...TWO_CLUSTERS, clusters: { dns: 'svc.default.svc.cluster.local:80', web: '10.0.0.9:80' } }),
  );
  const cds = await c.expect(T.cluster);
  // The EDS cluster web itself is unchanged (its endpoints live in EDS): only the removal is sent.
  expect(cds.resources).toEqual([]);
  expect(cds.removed_resources).toEqual(['api']);
  c.ack(cds);
  const eds = await c.expect(T.endpoint);
  // web was unsubscribed, so its new endpoints are not sent; api is gone.
  expect(eds.resources).toEqual([]);
  expect(eds.removed_resources).toEqual(['api']);
});

test('a reconnecting client sends initial_resource_versions and gets only what differs', async () => {
  const first = client();
  first.send({ type_url: T.cluster });
  const cds = await first.expect(T.cluster);
  first.ack(cds);
  first.close();
  const have = Object.fromEntries(cds.resources.map((r) => [r.name, r.version]));

  cache.setSnapshot(
    snapshotOf({ ...TWO_CLUSTERS, clusters: { ...TWO_CLUSTERS.clusters, dns: 'other.default.svc.cluster.local:80' } }),
  );
  const again = client();
  again.send({ type_url: T.cluster, initial_resource_versions: { ...have, stale: 'v0' } });
  const r = await again.expect(T.cluster);
  expect(r.resources.map((x) => x.name)).toEqual(['dns']);
  expect(r.removed_resources).toEqual(['stale']);

  // Up to date: nothing is sent.
  const current = client();
  const done = handled(server);
  current.send({ type_url: T.cluster, initial_resource_versions: { ...have, dns: r.resources[0].version } });
  await done;
  expect(current.inbox.pending).toBe(0);
});

test('a NACK is recorded; the rejected resource version is not resent, on this stream or after reconnecting', async () => {
  const c = client('nacker');
  c.send({ type_url: T.route, resource_names_subscribe: ['http-8080'] });
  const good = await c.expect(T.route);
  c.ack(good);
  const changed: Shape = { ...TWO_CLUSTERS, vhosts: { 'default.web': ['/bad', 'web'] } };
  cache.setSnapshot(snapshotOf(changed));
  const bad = await c.expect(T.route);
  const nacked = new Promise((resolve) => server.once('nack', resolve));
  c.send({ type_url: T.route, response_nonce: bad.nonce, error_detail: { code: 3, message: 'rejected' } });
  expect(await nacked).toMatchObject({
    node: 'nacker',
    typeUrl: T.route,
    version: bad.system_version_info,
    errorDetail: { message: 'rejected' },
  });
  expect(cache.lastNack('nacker', T.route)?.resources.get('http-8080')).toBe(bad.resources[0].version);

  c.close();
  const again = client('nacker');
  const done = handled(server);
  again.send({
    type_url: T.route,
    resource_names_subscribe: ['http-8080'],
    initial_resource_versions: { 'http-8080': good.resources[0].version },
  });
  await done;
  expect(again.inbox.pending).toBe(0);

  cache.setSnapshot(snapshotOf({ ...changed, vhosts: { 'default.web': ['/good', 'web'] } }));
  const fixed = await again.expect(T.route);
  expect(fixed.resources[0].json.virtual_hosts[0].routes[0].match.prefix).toBe('/good');
});

test('a delta response ACKed with an unknown nonce records nothing', async () => {
  const c = client();
  c.send({ type_url: T.cluster });
  await c.expect(T.cluster);
  const done = handled(server);
  const stale = new Promise((resolve) => server.once('stale', resolve));
  c.send({ type_url: T.cluster, response_nonce: 'no-such-nonce', error_detail: { code: 3, message: 'x' } });
  await Promise.all([done, stale]);
  expect(cache.lastNack('test-node', T.cluster)).toBeUndefined();
});

test('on a change, delta pushes in ADS order too: clusters, endpoints, listeners, routes', async () => {
  const c = client();
  for (const [type, names] of [
    [T.route, ['http-8080']],
    [T.listener, []],
    [T.endpoint, ['web']],
    [T.cluster, []],
  ] as const) {
    c.send({ type_url: type, resource_names_subscribe: [...names] });
    const r = await c.expect(type);
    const done = handled(server);
    c.ack(r);
    await done;
  }
  cache.setSnapshot(
    snapshotOf({
      vhosts: { 'default.web': ['/x', 'web'] },
      clusters: { web: '10.0.0.5:80', api: '10.0.0.2:80', dns: 'dns.example:80', more: 'more.example:80' },
      port: 9090,
    }),
  );
  const order = [];
  for (let i = 0; i < 4; i++) order.push((await c.next()).type_url);
  expect(order).toEqual([T.cluster, T.endpoint, T.listener, T.route]);
});

test('a fresh wildcard subscription to an empty type is answered, empty', async () => {
  const c = client();
  c.send({ type_url: T.graphqlApi });
  const r = await c.expect(T.graphqlApi);
  expect(r.resources).toEqual([]);
  expect(r.removed_resources).toEqual([]);
  expect(r.system_version_info).toBe(cache.current!.type(T.graphqlApi)!.version);
});
