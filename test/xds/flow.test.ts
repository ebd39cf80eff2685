/**
 * Flow control: a client that stops answering holds at most one response
 * per type, whatever the number of edits; what changed meanwhile reaches it
 * merged into one response once it answers; a live client on the same
 * server gets every edit all along. Counts, never time.
 */
import { DeltaClient, SotwClient, type DeltaResponse, type Response } from '../../harness/xds-client.js';
import { TYPE_URL as T, snapshotOf, startServer, type Shape } from './fixtures.js';
import type { XdsServer } from '../../control-plane/server/server.js';
import type { SnapshotCache } from '../../control-plane/cache/cache.js';

const EDITS = 30;
let server: XdsServer;
let cache: SnapshotCache;
let port: number;
const clients: Array<{ close(): void }> = [];

beforeEach(async () => {
  ({ server, cache, port } = await startServer());
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.close();
});

/** Edit `i`: the route prefix is /v<i>; every third edit also moves the endpoints of web and adds a cluster. */
function edit(i: number): Shape {
  const clusters: Record<string, string> = {
    web: `10.0.${i % 3 === 0 ? 1 : 0}.${1 + (i % 200)}:80`,
    dns: 'dns.example:80',
  };
  if (i % 3 === 0) clusters[`extra${i}`] = `extra${i}.example:80`;
  return { vhosts: { 'default.web': [`/v${i}`, 'web'] }, clusters };
}

/** Pushes (responses written) per stream and type, from the server's own events. */
function countPushes(): Map<string, number> {
  const counts = new Map<string, number>();
  server.on('push', (e: { stream: number; typeUrl: string }) =>
    counts.set(`${e.stream} ${e.typeUrl}`, (counts.get(`${e.stream} ${e.typeUrl}`) ?? 0) + 1),
  );
  return counts;
}

const prefixOf = (json: any): string => json.virtual_hosts[0].routes[0].match.prefix;

async function deltaSubscribe(c: DeltaClient): Promise<void> {
  for (const [type, names] of [
    [T.cluster, []],
    [T.endpoint, ['web']],
    [T.listener, []],
    [T.route, ['http-8080']],
  ] as const) {
    c.send({ type_url: type, resource_names_subscribe: [...names] });
    c.ack(await c.expect(type));
  }
}

test('delta: a client that stops ACKing holds one response per type; the live one gets every edit; the changes reach the stuck one merged', async () => {
  cache.setSnapshot(snapshotOf(edit(0)));
  const stuck = new DeltaClient(port, 'stuck');
  const live = new DeltaClient(port, 'live');
  clients.push(stuck, live);
  await deltaSubscribe(stuck);
  await deltaSubscribe(live);
  const [stuckId, liveId] = server.status().map((s) => s.id);
  const pushes = countPushes();

  // The stuck client reads but never answers again.
  for (let i = 1; i <= EDITS; i++) {
    cache.setSnapshot(snapshotOf(edit(i)));
    let rds: DeltaResponse;
    do {
      rds = await live.next();
      live.ack(rds);
    } while (rds.type_url !== T.route);
    expect(prefixOf(rds.resources[0].json)).toBe(`/v${i}`);
  }
  expect(pushes.get(`${liveId} ${T.route}`)).toBe(EDITS);
  for (const type of [T.cluster, T.endpoint, T.route]) expect(pushes.get(`${stuckId} ${type}`)).toBe(1);
  expect(pushes.get(`${stuckId} ${T.listener}`)).toBeUndefined();
  const held = stuck.inbox.pending;
  expect(held).toBe(3);

  // Answering each held response brings one merged response per type: the last edit's state, removals included.
  const first = new Map<string, DeltaResponse>();
  for (let i = 0; i < held; i++) {
    const r = await stuck.next();
    first.set(r.type_url, r);
  }
  expect(prefixOf(first.get(T.route)!.resources[0].json)).toBe('/v1');
  for (const r of first.values()) stuck.ack(r);
  const merged = new Map<string, DeltaResponse>();
  while (merged.size < 3) {
    const r = await stuck.next();
    merged.set(r.type_url, r);
    stuck.ack(r);
  }
  expect(prefixOf(merged.get(T.route)!.resources[0].json)).toBe(`/v${EDITS}`);
  // The held CDS removed extra0 (edit 1); extra3 ... extra27 came and went since: only extra30, of the last edit, is sent.
  expect(first.get(T.cluster)!.removed_resources).toEqual(['extra0']);
  const cds = merged.get(T.cluster)!;
  expect(cds.resources.map((r) => r.name)).toEqual([`extra${EDITS}`]);
  expect(cds.removed_resources).toEqual([]);
  expect(
    merged.get(T.endpoint)!.resources[0].json.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.address,
  ).toBe(edit(EDITS).clusters.web.split(':')[0]);
  for (const type of [T.cluster, T.endpoint, T.route]) expect(pushes.get(`${stuckId} ${type}`)).toBe(2);
});

test('SotW: a client that stops ACKing holds one response per type; the live one gets every edit', async () => {
  cache.setSnapshot(snapshotOf(edit(0)));
  const stuck = new SotwClient(port, 'stuck');
  const live = new SotwClient(port, 'live');
  clients.push(stuck, live);
  const subs: Array<[string, string[]]> = [
    [T.cluster, []],
    [T.endpoint, ['web']],
    [T.listener, []],
    [T.route, ['http-8080']],
  ];
  for (const c of [stuck, live])
    for (const [type, names] of subs) {
      c.send({ type_url: type, resource_names: names });
      c.ack(await c.expect(type), names);
    }
  const [stuckId, liveId] = server.status().map((s) => s.id);
  const pushes = countPushes();
  const namesOf = (r: Response) => subs.find(([t]) => t === r.type_url)![1];
  for (let i = 1; i <= EDITS; i++) {
    cache.setSnapshot(snapshotOf(edit(i)));
    let rds: Response;
    do {
      rds = await live.next();
      live.ack(rds, namesOf(rds));
    } while (rds.type_url !== T.route);
    expect(prefixOf(rds.resources[0])).toBe(`/v${i}`);
  }
  expect(pushes.get(`${liveId} ${T.route}`)).toBe(EDITS);
  for (const type of [T.cluster, T.endpoint, T.route]) expect(pushes.get(`${stuckId} ${type}`)).toBe(1);
  expect(stuck.inbox.pending).toBe(3);
});
