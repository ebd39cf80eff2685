/**
 * `serve --kube` through the real @kubernetes/client-node against the API
 * server double (harness/kube-apiserver.ts), with a real gRPC ADS client:
 * what changes in the cluster reaches the client, and only that.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CompileOutcome } from '../../control-plane/control.js';
import { diagnosticsPerObject } from '../../control-plane/kube/per-object.js';
import type { Serving } from '../../control-plane/run.js';
import { KubeApiServer } from '../../harness/kube-apiserver.js';
import { testLogger } from '../../harness/log-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { SotwClient, type Response } from '../../harness/xds-client.js';
import { TYPE_URL as T } from '../xds/fixtures.js';
import {
  crdTypes,
  endpointSlice,
  pod,
  serveKube,
  service,
  subsetUpstream,
  virtualService,
  type EndpointSpec,
} from './cluster.js';

const INSTALL = 'sluice-system';
const SHOP = 'web-shop-8080';
const shopRoute = (prefix = '/') => ({ prefix, upstream: SHOP, upstreamNamespace: INSTALL });

let double: KubeApiServer;
let serving: Serving | undefined;
const clients: SotwClient[] = [];

beforeEach(async () => {
  double = await KubeApiServer.start({ types: crdTypes() });
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await serving?.close();
  serving = undefined;
  await double.close();
});

function endpoints(n: number, from = 1): EndpointSpec[] {
  return Array.from({ length: n }, (_, i) => ({ ip: `10.1.0.${from + i}` }));
}

function shop(n: number): void {
  double.put(service('web', 'shop', 8080, { app: 'shop' }));
  double.put(endpointSlice('web', 'shop', 8080, endpoints(n)));
}

/** An ADS client subscribed to every cluster, their endpoints, the listeners and their routes, each first response ACKed. */
async function subscribed(
  s: Serving,
): Promise<{ client: SotwClient; clusters: Response; endpoints: Response; routeName: string; routes: Response }> {
  const client = new SotwClient(s.xdsPort, `kube-${clients.length}`);
  clients.push(client);
  client.send({ type_url: T.cluster });
  const clusters = await client.expect(T.cluster);
  client.ack(clusters);
  const edsNames = clusters.resources.filter((c) => c.type === 'EDS').map((c) => c.name);
  client.send({ type_url: T.endpoint, resource_names: edsNames });
  const endpoints = await client.expect(T.endpoint);
  client.ack(endpoints, edsNames);
  client.send({ type_url: T.listener });
  const lds = await client.expect(T.listener);
  client.ack(lds);
  const routeName = lds.resources[0].filter_chains[0].filters[0].typed_config.rds.route_config_name;
  client.send({ type_url: T.route, resource_names: [routeName] });
  const routes = await client.expect(T.route);
  client.ack(routes, [routeName]);
  return { client, clusters, endpoints, routeName, routes };
}

const addresses = (eds: Response, cluster: string) =>
  eds.resources
    .find((r) => r.cluster_name === cluster)!
    .endpoints.flatMap((l: any) => l.lb_endpoints.map((e: any) => e.endpoint.address.socket_address.address))
    .sort();
const prefixes = (rds: Response) =>
  rds.resources[0].virtual_hosts.flatMap((v: any) => v.routes.map((r: any) => r.match.prefix));
const versions = (s: Serving) =>
  [T.cluster, T.listener, T.route].map((url) => `${url}=${s.control.snapshot!.type(url)?.version}`);

function nextCompile(s: Serving, ok: boolean): Promise<CompileOutcome> {
  return new Promise((resolve) => {
    const on = (o: CompileOutcome) => {
      if (o.ok !== ok) return;
      s.control.off('compiled', on);
      resolve(o);
    };
    s.control.on('compiled', on);
  });
}

const lists = (plural: string) =>
  double.requests.filter((r) => r.path.endsWith(`/${plural}`) && r.query.watch === undefined).length;

test('a Service scaled up and down changes EDS only', async () => {
  shop(2);
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute()]));
  serving = await serveKube(double, { logger: testLogger() });
  expect(serving.firstCompile.ok).toBe(true);
  const { client } = await subscribed(serving);
  const before = versions(serving);

  double.put(endpointSlice('web', 'shop', 8080, endpoints(5)));
  const up = await client.expect(T.endpoint);
  expect(addresses(up, SHOP)).toEqual(['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4', '10.1.0.5']);
  client.ack(up, [SHOP]);
  double.put(endpointSlice('web', 'shop', 8080, endpoints(1, 4)));
  const down = await client.expect(T.endpoint);
  expect(addresses(down, SHOP)).toEqual(['10.1.0.4']);
  client.ack(down, [SHOP]);

  expect(versions(serving)).toEqual(before);
  expect(client.inbox.pending).toBe(0);
});

test("a pod's label change moves its endpoint to the other subset", async () => {
  double.put(service('web', 'reviews', 9080, { app: 'reviews' }));
  double.put(pod('web', 'reviews-a', { app: 'reviews', version: 'v1' }, '10.2.0.1'));
  double.put(pod('web', 'reviews-b', { app: 'reviews', version: 'v2' }, '10.2.0.2'));
  double.put(
    endpointSlice('web', 'reviews', 9080, [
      { ip: '10.2.0.1', pod: 'reviews-a' },
      { ip: '10.2.0.2', pod: 'reviews-b' },
    ]),
  );
  double.put(subsetUpstream(INSTALL, 'reviews', { namespace: 'web', name: 'reviews', port: 9080 }, ['version']));
  double.put(
    virtualService('web', 'reviews', 'reviews.example', [
      { prefix: '/v2', upstream: 'reviews', upstreamNamespace: INSTALL, subset: { version: 'v2' } },
      { prefix: '/', upstream: 'reviews', upstreamNamespace: INSTALL, subset: { version: 'v1' } },
    ]),
  );
  serving = await serveKube(double, { logger: testLogger() });
  const { client, clusters, endpoints: initial } = await subscribed(serving);
  const cluster = clusters.resources.find((c) => c.lb_subset_config)!.name;
  const subsets = (eds: Response) =>
    Object.fromEntries(
      eds.resources
        .find((r) => r.cluster_name === cluster)!
        .endpoints.flatMap((l: any) => l.lb_endpoints)
        .map((e: any) => [
          e.endpoint.address.socket_address.address,
          e.metadata.filter_metadata['envoy.lb'].fields.version.stringValue,
        ]),
    );
  expect(subsets(initial)).toEqual({ '10.2.0.1': 'v1', '10.2.0.2': 'v2' });
  const before = versions(serving);

  double.put(pod('web', 'reviews-b', { app: 'reviews', version: 'v1' }, '10.2.0.2'));
  const moved = await client.expect(T.endpoint);
  expect(subsets(moved)).toEqual({ '10.2.0.1': 'v1', '10.2.0.2': 'v1' });
  expect(versions(serving)).toEqual(before);
});

test('a VirtualService edited with client-node reaches the ADS client', async () => {
  shop(1);
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/api')]));
  serving = await serveKube(double, { logger: testLogger() });
  const { client, routeName } = await subscribed(serving);
  const api = double.kubeConfig().makeApiClient(CustomObjectsApi);
  await api.patchNamespacedCustomObject(
    {
      group: 'gateway.solo.io',
      version: 'v1',
      plural: 'virtualservices',
      namespace: 'web',
      name: 'shop',
      body: [{ op: 'replace', path: '/spec/virtualHost/routes/0/matchers/0/prefix', value: '/v2' }],
    },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
  const rds = await client.expect(T.route);
  expect(rds.resources[0].name).toBe(routeName);
  expect(prefixes(rds)).toEqual(['/v2']);
});

test('a broken edit keeps the last good snapshot served and names Kind namespace/name and the field; its repair is pushed', async () => {
  shop(1);
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/api')]));
  serving = await serveKube(double, { logger: testLogger() });
  const { client } = await subscribed(serving);
  const served = serving.control.snapshot!.version;

  const failed = nextCompile(serving, false);
  const broken = virtualService('web', 'shop', 'shop.example', [shopRoute('/api')]) as any;
  broken.spec.virtualHost.routes[0].matchers[0].prefix = 42;
  double.put(broken);
  const outcome = await failed;
  expect(outcome.ok).toBe(false);
  const errors = serving.kube!.last!.diagnostics.filter((d) => d.severity !== 'warning');
  expect(errors).toEqual([
    expect.objectContaining({
      resource: 'VirtualService web/shop',
      field: 'spec.virtualHost.routes[0].matchers[0].prefix',
      file: undefined,
      line: undefined,
    }),
  ]);
  expect(serving.kube!.last!.ok).toBe(false);
  const perObject = diagnosticsPerObject(serving.kube!.last!.objects, serving.kube!.last!.diagnostics);
  expect(perObject.byObject.get('gateway.solo.io/v1|VirtualService|web/shop')).toEqual(errors);
  expect(perObject.byObject.get('v1|Service|web/shop')).toEqual([]);
  expect(perObject.unattributed).toEqual([]);
  expect(serving.control.snapshot!.version).toBe(served);

  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/fixed')]));
  expect(prefixes(await client.expect(T.route))).toEqual(['/fixed']);
  expect(client.inbox.pending).toBe(0);
});

test('watches dropped and resumed, and dropped while the history is compacted (410): nothing made meanwhile is lost', async () => {
  shop(2);
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/a')]));
  serving = await serveKube(double, { logger: testLogger() });
  const { client } = await subscribed(serving);
  const slicesListed = lists('endpointslices');

  // Dropped: the watches resume from their resourceVersion, without listing again.
  double.dropWatches();
  double.put(endpointSlice('web', 'shop', 8080, endpoints(3)));
  const resumed = await client.expect(T.endpoint);
  expect(addresses(resumed, SHOP)).toEqual(['10.1.0.1', '10.1.0.2', '10.1.0.3']);
  client.ack(resumed, [SHOP]);
  expect(lists('endpointslices')).toBe(slicesListed);

  // Dropped, changed while no watch is open, and compacted: each watch is told 410 and lists again.
  double.dropWatches();
  double.put(endpointSlice('web', 'shop', 8080, endpoints(1, 7)));
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/b')]));
  double.compact();
  const routes: string[] = [];
  const seen: string[] = [];
  while (routes.length === 0 || seen.length === 0) {
    const r = await client.next();
    if (r.type_url === T.route) routes.push(...prefixes(r));
    if (r.type_url === T.endpoint) seen.push(...addresses(r, SHOP));
    client.ack(r, r.type_url === T.endpoint ? [SHOP] : [r.resources[0]?.name].filter(Boolean));
  }
  expect(routes).toEqual(['/b']);
  expect(seen).toEqual(['10.1.0.7']);
  expect(lists('endpointslices')).toBe(slicesListed + 1);
});

test('the first list is paged, and serve is ready only once every kind is listed', async () => {
  shop(1);
  for (let i = 0; i < 120; i++) {
    double.put(virtualService('web', `vs-${String(i).padStart(3, '0')}`, `h${i}.example`, [shopRoute(`/p${i}`)]));
  }
  serving = await serveKube(double, { logger: testLogger() });
  const pages = double.requests.filter((r) => r.path === '/apis/gateway.solo.io/v1/virtualservices' && !r.query.watch);
  expect(pages.map((p) => [p.query.limit, p.query.continue !== undefined])).toEqual([
    ['50', false],
    ['50', true],
    ['50', true],
  ]);
  const ready = await fetch(`http://127.0.0.1:${serving.adminPort}/readyz`);
  expect(ready.status).toBe(200);
  const { routes } = await subscribed(serving);
  expect(serving.kube!.last!.objects.size).toBe(122);
  expect(routes.resources[0].virtual_hosts).toHaveLength(120);
});

test("bookmarks move a quiet kind's resourceVersion on: after a compaction its watch resumes without a new list", async () => {
  shop(1);
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/a')]));
  serving = await serveKube(double, { logger: testLogger() });
  const { client } = await subscribed(serving);
  const watches = double.requests.filter((r) => r.query.watch !== undefined);
  expect(watches.length).toBeGreaterThan(0);
  expect(watches.every((r) => r.query.allowWatchBookmarks === 'true' && Number(r.query.timeoutSeconds) >= 300)).toBe(
    true,
  );
  // Other kinds change: the VirtualServices' watch sees nothing but the bookmark.
  double.put(pod('web', 'idle', { app: 'idle' }, '10.9.0.1'));
  double.put(pod('web', 'idle-2', { app: 'idle' }, '10.9.0.2'));
  const marked = String(double.store.resourceVersion);
  double.bookmark();
  double.dropWatches();
  double.compact();
  const vsListed = lists('virtualservices');
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/after')]));
  expect(prefixes(await client.expect(T.route))).toEqual(['/after']);
  const resumed = double.requests.filter((r) => r.path === '/apis/gateway.solo.io/v1/virtualservices' && r.query.watch);
  expect(resumed[resumed.length - 1].query.resourceVersion).toBe(marked);
  expect(lists('virtualservices')).toBe(vsListed);
});

test('--namespaces limits what is listed and watched', async () => {
  shop(1);
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/web')]));
  double.put(virtualService('other', 'elsewhere', 'other.example', [shopRoute('/other')]));
  serving = await serveKube(double, { logger: testLogger(), namespaces: ['web'] });
  const { client, routes } = await subscribed(serving);
  expect(routes.resources[0].virtual_hosts.flatMap((v: any) => v.domains)).toEqual(['shop.example']);
  const objectRequests = double.requests.filter((r) => /^\/apis?\//.test(r.path) && r.path.split('/').length > 4);
  expect(objectRequests.length).toBeGreaterThan(0);
  expect(objectRequests.every((r) => r.path.includes('/namespaces/web/'))).toBe(true);
  // A change in a namespace not watched changes nothing; one in a watched namespace does.
  double.put(virtualService('other', 'elsewhere', 'other.example', [shopRoute('/other-2')]));
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/web-2')]));
  expect(prefixes(await client.expect(T.route))).toEqual(['/web-2']);
});

test('a kind whose CRD is not installed is skipped, and watched once it is', async () => {
  await double.close();
  double = await KubeApiServer.start({ types: crdTypes(/solo\.io$/) });
  shop(1);
  double.put(virtualService('web', 'shop', 'shop.example', [shopRoute('/gloo')]));
  serving = await serveKube(double, { logger: testLogger() });
  expect(serving.firstCompile.ok).toBe(true);
  const { client } = await subscribed(serving);
  for (const type of crdTypes(/gateway\.example$/)) double.addType(type);
  double.put(virtualService('web', 'own', 'own.example', [shopRoute('/own')], 'gateway.gateway.example/v1'));
  const rds = await client.expect(T.route);
  expect(prefixes(rds).sort()).toEqual(['/gloo', '/own']);
});

test('the binary: serve --kube --kubeconfig lists and watches, its install namespace from POD_NAMESPACE; flag misuse is refused', async () => {
  shop(1);
  // Discovered Upstreams live in the install namespace: the route finds shop's in "edge".
  double.put(
    virtualService('web', 'shop', 'shop.example', [{ prefix: '/', upstream: SHOP, upstreamNamespace: 'edge' }]),
  );
  const kubeconfig = path.join(tempDir('kube-bin'), 'kubeconfig');
  writeFileSync(kubeconfig, double.kubeconfigYaml());
  const child = spawn(
    process.execPath,
    ['bin/sluice.js', 'serve', '--kube', '--kubeconfig', kubeconfig, '--xds-port', '0', '--admin-port', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, POD_NAMESPACE: 'edge' } },
  );
  try {
    let admin: number | undefined;
    for await (const line of createInterface({ input: child.stdout! })) {
      const log = JSON.parse(line);
      if (log.msg === 'sluice serve listening') {
        admin = Number(log.admin.split(':')[1]);
        break;
      }
    }
    expect((await fetch(`http://127.0.0.1:${admin}/readyz`)).status).toBe(200);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  const misuse = (args: string[]) =>
    spawnSync(process.execPath, ['bin/sluice.js', 'serve', ...args], { encoding: 'utf8' });
  const both = misuse(['--kube', '-f', 'examples']);
  expect(both.status).toBe(2);
  expect(both.stderr).toMatch(/-f and --kube cannot be used together/);
  const stray = misuse(['-f', 'examples', '--namespaces', 'a,b']);
  expect(stray.status).toBe(2);
  expect(stray.stderr).toMatch(/--kubeconfig and --namespaces go with --kube/);
});
