/**
 * VHDS under `sluice serve --vhds`: real delta gRPC clients subscribe as
 * Envoy does (the route configuration's name as a namespace of virtual
 * hosts, `<route configuration>/<host>` on demand). The route configuration
 * goes out without its hosts; an edit of one host sends that host alone; a
 * removed host is named in removed_resources; a host naming a new cluster
 * waits for that cluster's ACK.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { verifySet } from '../../compiler/verify/verify.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { DeltaClient, type DeltaResponse } from '../../harness/xds-client.js';
import { TYPE_URL as T } from './fixtures.js';
import { testLogger } from '../../harness/log-check.js';

const RC = 'http-8080';

function virtualService(name: string, domain: string, prefix: string, service = 'books'): string {
  return `apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: ${name}, namespace: shop}
spec:
  virtualHost:
    domains: [${domain}]
    routes:
      - matchers: [{prefix: ${prefix}}]
        routeAction: {single: {kube: {ref: {name: ${service}}, port: 80}}}
`;
}

const SERVICES = ['books', 'toys']
  .map((s) => `apiVersion: v1\nkind: Service\nmetadata: {name: ${s}, namespace: shop}\nspec: {ports: [{port: 80}]}\n`)
  .join('---\n');

let serving: Serving | undefined;
const clients: DeltaClient[] = [];
let dir = '';

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-vhds-'));
  writeFileSync(path.join(dir, 'services.yaml'), SERVICES);
  writeFileSync(path.join(dir, 'a.yaml'), virtualService('a', 'a.example.com', '/a'));
  writeFileSync(path.join(dir, 'b.yaml'), virtualService('b', "'*.b.example.com'", '/b'));
  writeFileSync(path.join(dir, 'c.yaml'), virtualService('c', 'c.example.com', '/c'));
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await serving?.close();
  rmSync(dir, { recursive: true, force: true });
  serving = undefined;
});

async function serve(): Promise<Serving> {
  serving = await startServe({
    paths: [dir],
    compileOptions: { ...DEFAULT_OPTIONS, vhds: true },
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
    debounceMs: 20,
  });
  expect(serving.firstCompile.ok).toBe(true);
  return serving;
}

/** A delta client that has subscribed as Envoy does and ACKed everything up to the virtual hosts. */
async function envoy(
  port: number,
  id = `envoy-${clients.length}`,
): Promise<{ c: DeltaClient; rds: DeltaResponse; vhds: DeltaResponse }> {
  const c = new DeltaClient(port, id);
  clients.push(c);
  c.send({ type_url: T.cluster });
  c.ack(await c.expect(T.cluster));
  c.send({ type_url: T.listener });
  c.ack(await c.expect(T.listener));
  c.send({ type_url: T.route, resource_names_subscribe: [RC] });
  const rds = await c.expect(T.route);
  c.ack(rds);
  c.send({ type_url: T.virtualHost, resource_names_subscribe: [RC] });
  const vhds = await c.expect(T.virtualHost);
  c.ack(vhds);
  return { c, rds, vhds };
}

const names = (r: DeltaResponse) => r.resources.map((x) => x.name).sort();

test('the route configuration goes without its hosts; the namespace subscription gets every host, named as Envoy removes them', async () => {
  const s = await serve();
  const { rds, vhds } = await envoy(s.xdsPort);
  expect(rds.resources.map((r) => r.name)).toEqual([RC]);
  expect(rds.resources[0]!.json.virtual_hosts).toBeUndefined();
  expect(rds.resources[0]!.json.vhds).toEqual({ config_source: { ads: {}, resource_api_version: 'V3' } });
  expect(names(vhds)).toEqual([`${RC}/shop.a`, `${RC}/shop.b`, `${RC}/shop.c`]);
  for (const r of vhds.resources) expect(r.json.name).toBe(r.name);
  expect(vhds.resources.find((r) => r.name === `${RC}/shop.b`)!.json.domains).toEqual(['*.b.example.com']);
});

test('an edit of one host sends that host alone, to every client; a removed host is named in removed_resources', async () => {
  const s = await serve();
  const one = await envoy(s.xdsPort);
  const two = await envoy(s.xdsPort);

  writeFileSync(path.join(dir, 'b.yaml'), virtualService('b', "'*.b.example.com'", '/b-edited'));
  for (const { c } of [one, two]) {
    const next = await c.expect(T.virtualHost);
    expect(names(next)).toEqual([`${RC}/shop.b`]);
    expect(next.resources[0]!.json.routes[0].match.prefix).toBe('/b-edited');
    expect(next.removed_resources).toEqual([]);
    c.ack(next);
  }

  rmSync(path.join(dir, 'c.yaml'));
  for (const { c } of [one, two]) {
    const next = await c.expect(T.virtualHost);
    expect(next.resources).toEqual([]);
    expect(next.removed_resources).toEqual([`${RC}/shop.c`]);
    c.ack(next);
  }
  // Nothing else was sent: no route configuration, listener or cluster changed.
  expect(one.c.inbox.pending).toBe(0);
  expect(two.c.inbox.pending).toBe(0);
});

test('on demand: a host resolves by domain matching to its virtual host with the alias; an unknown host gets an empty entry', async () => {
  const s = await serve();
  const { c } = await envoy(s.xdsPort);
  c.send({
    type_url: T.virtualHost,
    resource_names_subscribe: [`${RC}/shop.b.example.com`, `${RC}/nowhere.example.org`],
  });
  const answer = await c.expect(T.virtualHost);
  const byName = new Map(answer.resources.map((r) => [r.name, r]));
  expect(byName.get(`${RC}/shop.b`)).toMatchObject({ aliases: [`${RC}/shop.b.example.com`], hasResource: true });
  expect(byName.get(`${RC}/shop.b`)!.json.domains).toEqual(['*.b.example.com']);
  expect(byName.get(`${RC}/nowhere.example.org`)).toMatchObject({
    aliases: [`${RC}/nowhere.example.org`],
    hasResource: false,
  });
  expect(answer.resources).toHaveLength(2);
});

test('a host that names a new cluster waits until the client has ACKed that cluster (make before break)', async () => {
  const s = await serve();
  const { c } = await envoy(s.xdsPort);
  writeFileSync(path.join(dir, 'a.yaml'), virtualService('a', 'a.example.com', '/a', 'toys'));
  const cds = await c.expect(T.cluster);
  expect(names(cds)).toContain('shop-toys-80');
  // Not ACKed yet: the host that routes to it is held back.
  await new Promise((r) => setTimeout(r, 200));
  expect(c.inbox.pending).toBe(0);
  c.ack(cds);
  const next = await c.expect(T.virtualHost);
  expect(names(next)).toEqual([`${RC}/shop.a`]);
  expect(next.resources[0]!.json.routes[0].route.cluster).toBe('shop-toys-80');
});

test('a reconnecting client that has the current hosts gets an empty answer, one that has old versions gets what changed', async () => {
  const s = await serve();
  const { c, vhds } = await envoy(s.xdsPort);
  const held = Object.fromEntries(vhds.resources.map((r) => [r.name, r.version]));
  c.close();

  const again = new DeltaClient(s.xdsPort, 'envoy-again');
  clients.push(again);
  again.send({ type_url: T.virtualHost, resource_names_subscribe: [RC], initial_resource_versions: held });
  const same = await again.expect(T.virtualHost);
  expect(same.resources).toEqual([]);
  expect(same.removed_resources).toEqual([]);

  const stale = new DeltaClient(s.xdsPort, 'envoy-stale');
  clients.push(stale);
  stale.send({
    type_url: T.virtualHost,
    resource_names_subscribe: [RC],
    initial_resource_versions: { ...held, [`${RC}/shop.a`]: 'old', [`${RC}/shop.gone`]: 'old' },
  });
  const diff = await stale.expect(T.virtualHost);
  expect(names(diff)).toEqual([`${RC}/shop.a`]);
  expect(diff.removed_resources).toEqual([`${RC}/shop.gone`]);
});

test('the served set passes the proto and PGV checks: route configurations with vhds, each virtual host on its own', async () => {
  const result = await compileFiles([dir], { ...DEFAULT_OPTIONS, vhds: true });
  expect(result.xds!.virtualHosts.size).toBe(3);
  expect(verifySet(result.xds!)).toEqual([]);
});

test('the binary: serve --vhds with --mesh is refused with the reason', () => {
  const run = spawnSync(process.execPath, ['bin/sluice.js', 'serve', '--vhds', '--mesh', '-f', dir], {
    encoding: 'utf8',
  });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('--vhds and --mesh cannot be used together');
});
