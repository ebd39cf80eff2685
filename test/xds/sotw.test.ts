/** State-of-the-world ADS conformance: a real gRPC client against the real server on 127.0.0.1. */
import { SotwClient } from '../../harness/xds-client.js';
import { BASE, TYPE_URL, handled, names, snapshotOf, startServer, type Shape } from './fixtures.js';
import type { XdsServer } from '../../control-plane/server/server.js';
import type { SnapshotCache } from '../../control-plane/cache/cache.js';

const T = TYPE_URL;
let server: XdsServer;
let cache: SnapshotCache;
let port: number;
const clients: SotwClient[] = [];

function client(node = 'test-node', role?: string): SotwClient {
  const c = new SotwClient(port, node, role);
  clients.push(c);
  return c;
}

const CHANGED: Shape = { ...BASE, vhosts: { ...BASE.vhosts, 'default.api': ['/api', 'web'] } };

beforeEach(async () => {
  ({ server, cache, port } = await startServer());
  cache.setSnapshot(snapshotOf(BASE));
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.close();
});

/** Subscribes to CDS, EDS (web), LDS, RDS (http-8080) and ACKs each first response. */
async function subscribeAll(c: SotwClient) {
  const got: Record<string, Awaited<ReturnType<SotwClient['expect']>>> = {};
  const subs: Array<[string, string[]]> = [
    [T.cluster, []],
    [T.endpoint, ['web']],
    [T.listener, []],
    [T.route, ['http-8080']],
  ];
  for (const [type, resource_names] of subs) {
    c.send({ type_url: type, resource_names });
    got[type] = await c.expect(type);
    const done = handled(server);
    c.ack(got[type], resource_names);
    await done;
  }
  return got;
}

test('wildcard LDS/CDS get the full set; RDS/EDS only the names asked for; HCM uses RDS over ADS', async () => {
  const c = client();
  const got = await subscribeAll(c);
  expect(names(got[T.cluster].resources)).toEqual(['dns', 'web']);
  const web = got[T.cluster].resources.find((r) => r.name === 'web')!;
  expect(web.type).toBe('EDS');
  expect(web.eds_cluster_config.eds_config.ads).toEqual({});
  expect(web.load_assignment).toBeUndefined();
  const dns = got[T.cluster].resources.find((r) => r.name === 'dns')!;
  expect(dns.type).toBe('STRICT_DNS');
  expect(dns.load_assignment.cluster_name).toBe('dns');
  expect(names(got[T.endpoint].resources)).toEqual(['web']);
  const hcm = got[T.listener].resources[0].filter_chains[0].filters[0].typed_config;
  expect(hcm.rds).toEqual({ config_source: { ads: {}, resource_api_version: 'V3' }, route_config_name: 'http-8080' });
  expect(hcm.route_config).toBeUndefined();
  expect(names(got[T.route].resources)).toEqual(['http-8080']);

  // An EDS request for a name that does not exist is answered without it.
  const done = handled(server);
  c.send({
    type_url: T.endpoint,
    version_info: got[T.endpoint].version_info,
    response_nonce: got[T.endpoint].nonce,
    resource_names: ['web', 'nope'],
  });
  await done;
  const again = await c.expect(T.endpoint);
  expect(names(again.resources)).toEqual(['web']);
});

test('every response carries a fresh nonce', async () => {
  const c = client();
  const got = await subscribeAll(c);
  cache.setSnapshot(snapshotOf(CHANGED));
  const next = await c.expect(T.route);
  const nonces = [...Object.values(got).map((r) => r.nonce), next.nonce];
  expect(new Set(nonces).size).toBe(nonces.length);
  expect(nonces.every((n) => n !== '')).toBe(true);
});

test('a request whose version is the current one is held until the snapshot changes', async () => {
  const c = client();
  const got = await subscribeAll(c);
  // The ACKs sent by subscribeAll carry the current versions: nothing may answer them.
  const rdsVersion = got[T.route].version_info;
  const done = handled(server);
  c.send({
    type_url: T.route,
    version_info: rdsVersion,
    response_nonce: got[T.route].nonce,
    resource_names: ['http-8080'],
  });
  await done;
  expect(c.inbox.pending).toBe(0);
  cache.setSnapshot(snapshotOf(CHANGED));
  const next = await c.expect(T.route);
  expect(next.version_info).not.toBe(rdsVersion);
  expect(next.resources[0].virtual_hosts.map((v: { name: string }) => v.name)).toEqual(['default.web', 'default.api']);
});

test('a request with a stale nonce is ignored', async () => {
  const c = client();
  const first = await subscribeAll(c);
  cache.setSnapshot(snapshotOf(CHANGED));
  const second = await c.expect(T.route);
  // NACK of the superseded response, also asking for another name: both ignored.
  let done = handled(server);
  c.send({
    type_url: T.route,
    version_info: '',
    response_nonce: first[T.route].nonce,
    resource_names: ['http-8080', 'other'],
    error_detail: { code: 3, message: 'late' },
  });
  await done;
  expect(cache.lastNack('test-node', T.route)).toBeUndefined();
  expect(c.inbox.pending).toBe(0);
  // The current nonce is honoured.
  done = handled(server);
  c.ack(second, ['http-8080']);
  await done;
  expect(server.status()[0].types[T.route].acked).toBe(second.version_info);
});

test('on a change, ADS sends clusters, endpoints, listeners, routes; routes naming a new cluster wait for it and its endpoints', async () => {
  const c = client();
  await subscribeAll(c);
  c.send({ type_url: T.authConfig });
  c.ack(await c.expect(T.authConfig));
  // Everything changes: a new cluster (CDS), its endpoints (EDS), a listener port (LDS), a route (RDS), an AuthConfig.
  cache.setSnapshot(
    snapshotOf({
      vhosts: { 'default.web': ['/', 'web2'] },
      clusters: { web: '10.0.0.9:80', web2: '10.0.0.2:80', dns: 'svc.default.svc.cluster.local:80' },
      authConfigs: ['default.ldap', 'default.other'],
      port: 8081,
    }),
  );
  const order: string[] = [];
  let endpoints: string[] = [];
  for (;;) {
    const r = await c.next();
    order.push(r.type_url);
    if (r.type_url === T.route) break;
    if (r.type_url === T.endpoint) endpoints = names(r.resources);
    // As Envoy: the endpoints of every EDS cluster it has are asked for.
    c.ack(r, r.type_url === T.endpoint ? ['web', 'web2'] : r.type_url === T.route ? ['http-8080'] : []);
  }
  // The new routes name web2: they go once CDS and EDS with web2 are ACKed; the AuthConfig, which names no cluster, does not wait.
  expect([...new Set(order.filter((t) => t !== T.authConfig))]).toEqual([T.cluster, T.endpoint, T.listener, T.route]);
  expect(order).toContain(T.authConfig);
  expect(endpoints).toEqual(['web', 'web2']);
});

test('initial requests sent before the first snapshot are answered in ADS order once it exists', async () => {
  const empty = await startServer();
  try {
    const c = new SotwClient(empty.port);
    clients.push(c);
    const all = [T.route, T.listener, T.endpoint, T.cluster];
    for (const type of all) {
      const done = handled(empty.server);
      c.send({ type_url: type, resource_names: type === T.route ? ['http-8080'] : type === T.endpoint ? ['web'] : [] });
      await done;
    }
    expect(c.inbox.pending).toBe(0);
    empty.cache.setSnapshot(snapshotOf(BASE));
    const order = [];
    for (let i = 0; i < 4; i++) {
      // Each ACKed, as Envoy does: the routes name web, so they wait for the CDS ACK.
      const r = await c.next();
      order.push(r.type_url);
      c.ack(r, r.type_url === T.endpoint ? ['web'] : r.type_url === T.route ? ['http-8080'] : []);
    }
    expect(order).toEqual([T.cluster, T.endpoint, T.listener, T.route]);
  } finally {
    await empty.server.close();
  }
});

test('removed resources disappear from the next state of the world', async () => {
  const c = client();
  await subscribeAll(c);
  cache.setSnapshot(snapshotOf({ ...BASE, clusters: { web: '10.0.0.1:80' } }));
  const cds = await c.expect(T.cluster);
  expect(names(cds.resources)).toEqual(['web']);
});

test('a NACK is recorded and the rejected version is never resent to that node', async () => {
  const c = client('nacker');
  const got = await subscribeAll(c);
  const good = got[T.route].version_info;
  cache.setSnapshot(snapshotOf(CHANGED));
  const bad = await c.expect(T.route);
  const nacked = new Promise((resolve) => server.once('nack', resolve));
  c.nack(bad, good, 'route: unknown cluster', ['http-8080']);
  const record = (await nacked) as { node: string; typeUrl: string; version: string; errorDetail: { message: string } };
  expect(record).toMatchObject({
    node: 'nacker',
    typeUrl: T.route,
    version: bad.version_info,
    errorDetail: { code: 3, message: 'route: unknown cluster' },
  });
  expect(cache.lastNack('nacker', T.route)?.version).toBe(bad.version_info);
  expect([...cache.lastNack('nacker', T.route)!.resources]).toEqual([
    ['http-8080', cache.current!.type(T.route)!.resources.get('http-8080')!.version],
  ]);
  expect(server.status()[0].types[T.route].nacked?.errorDetail.message).toBe('route: unknown cluster');

  // A change elsewhere (CDS only) does not resend the rejected routes.
  const withCluster: Shape = { ...CHANGED, clusters: { ...CHANGED.clusters, extra: 'extra.example:80' } };
  cache.setSnapshot(snapshotOf(withCluster));
  const cds = await c.expect(T.cluster);
  c.ack(cds);
  // Barrier: a new EDS name set is answered at once; a resent RDS would have come before it.
  c.send({
    type_url: T.endpoint,
    version_info: got[T.endpoint].version_info,
    response_nonce: got[T.endpoint].nonce,
    resource_names: ['web', 'other'],
  });
  await c.expect(T.endpoint);
  // Reconnecting with the last good version does not get it either.
  c.close();
  const again = client('nacker');
  const done = handled(server);
  again.send({ type_url: T.route, version_info: good, resource_names: ['http-8080'] });
  await done;
  expect(again.inbox.pending).toBe(0);
  // Another node is not affected.
  const other = client('other');
  other.send({ type_url: T.route, resource_names: ['http-8080'] });
  expect((await other.expect(T.route)).version_info).toBe(bad.version_info);
  // A new version is sent.
  cache.setSnapshot(snapshotOf({ ...withCluster, vhosts: { 'default.web': ['/v2', 'web'] } }));
  const fixed = await again.expect(T.route);
  expect(fixed.version_info).not.toBe(bad.version_info);
  expect(fixed.resources[0].virtual_hosts[0].routes[0].match.prefix).toBe('/v2');

  // Once the node has ACKed another version, the content it once rejected is a new push, not a loop.
  const ackHandled = handled(server);
  again.ack(fixed, ['http-8080']);
  await ackHandled;
  expect(cache.lastNack('nacker', T.route)).toBeUndefined();
  expect(cache.allNacks()).toHaveLength(1);
  cache.setSnapshot(snapshotOf(withCluster));
  expect((await again.expect(T.route)).version_info).toBe(bad.version_info);
});

test('a late client gets the current snapshot; a reconnecting client with the current version is held, with an old one updated', async () => {
  const first = client();
  const got = await subscribeAll(first);
  cache.setSnapshot(snapshotOf(CHANGED));
  const current = await first.expect(T.route);
  first.close();

  const late = client();
  late.send({ type_url: T.route, resource_names: ['http-8080'] });
  expect((await late.expect(T.route)).version_info).toBe(current.version_info);

  const upToDate = client();
  let done = handled(server);
  upToDate.send({ type_url: T.route, version_info: current.version_info, resource_names: ['http-8080'] });
  await done;
  expect(upToDate.inbox.pending).toBe(0);

  const behind = client();
  done = handled(server);
  behind.send({ type_url: T.route, version_info: got[T.route].version_info, resource_names: ['http-8080'] });
  await done;
  expect((await behind.expect(T.route)).version_info).toBe(current.version_info);
});

test('the node (id and proxy) comes from the first request of a stream only', async () => {
  cache.setSnapshot(snapshotOf({ ...BASE, clusters: { web: '10.0.0.1:80', only_a: '10.0.0.3:80' } }), 'proxy-a');
  const c = client('node-a', 'ns~proxy-a');
  c.send({ type_url: T.cluster });
  const cds = await c.expect(T.cluster);
  expect(names(cds.resources)).toEqual(['only_a', 'web']);
  c.ack(cds);
  // A later request naming another node and proxy changes nothing: still proxy-a's snapshot.
  c.send({
    type_url: T.listener,
    node: { id: 'node-b', metadata: { fields: { role: { stringValue: 'proxy-b' } } } } as never,
  });
  await c.expect(T.listener);
  expect(server.status()[0].node).toMatchObject({ id: 'node-a', proxy: 'proxy-a' });
  cache.setSnapshot(snapshotOf(CHANGED), 'proxy-b');
  cache.setSnapshot(snapshotOf({ ...BASE, clusters: { web: '10.0.0.1:80', only_a2: '10.0.0.4:80' } }), 'proxy-a');
  const r = await c.expect(T.cluster);
  expect(names(r.resources)).toEqual(['only_a2', 'web']);
});

test('sidecar resource types are served by wildcard', async () => {
  const c = client('extauth');
  c.send({ type_url: T.authConfig });
  const r = await c.expect(T.authConfig);
  expect(r.resources).toEqual([
    {
      name: 'default.ldap',
      configs: [{ ldap: { address: 'ldap://ldap:389', user_dn_template: 'uid=%s,ou=people,dc=example,dc=org' } }],
    },
  ]);
});

test('close() ends the streams with status OK', async () => {
  const c = client();
  c.send({ type_url: T.cluster });
  await c.expect(T.cluster);
  await server.close();
  expect((await c.finished).code).toBe(0);
});
