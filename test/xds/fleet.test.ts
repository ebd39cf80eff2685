/**
 * Proxy fleets under `sluice serve`: real ADS clients, one per proxy (node
 * metadata `role`, as Gloo's bootstrap writes it), each see only their own
 * Gateways' listeners, routes and clusters; an edit to a host of one proxy
 * is pushed to that proxy's Envoys only; an Envoy of a proxy no Gateway names
 * gets no listener, and a warning in the log.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { DeltaClient, SotwClient } from '../../harness/xds-client.js';
import { TYPE_URL as T } from './fixtures.js';
import { testLogger } from '../../harness/log-check.js';

let serving: Serving | undefined;
const clients: Array<{ close(): void }> = [];
let dir: string | undefined;
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await serving?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  serving = dir = undefined;
});

/** What one client of `role` is served: cluster names, listener names, and the domains of its port-8080 routes. */
async function served(port: number, nodeId: string, role?: string) {
  const c = new SotwClient(port, nodeId, role);
  clients.push(c);
  c.send({ type_url: T.cluster });
  const cds = await c.expect(T.cluster);
  c.ack(cds);
  c.send({ type_url: T.listener });
  const lds = await c.expect(T.listener);
  c.ack(lds);
  const routeNames = lds.resources.map(
    (l) => l.filter_chains[0].filters[0].typed_config.rds.route_config_name as string,
  );
  let domains: string[] = [];
  if (routeNames.length > 0) {
    c.send({ type_url: T.route, resource_names: routeNames });
    const rds = await c.expect(T.route);
    c.ack(rds, routeNames);
    domains = rds.resources
      .filter((r) => r.name === 'listener-::-8080-routes')
      .flatMap((r) => r.virtual_hosts.flatMap((vh: { domains: string[] }) => vh.domains));
  }
  return {
    client: c,
    clusters: cds.resources.map((r) => r.name).sort(),
    listeners: lds.resources.map((l) => l.name).sort(),
    domains,
  };
}

test('each proxy of a fleet is served its own Gateways; an edit reaches only its proxy', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-fleet-'));
  cpSync('golden/gateway-proxies/input', dir, { recursive: true });
  let log = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((log += String(chunk)), done()) });
  serving = await startServe({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger('info', sink),
    debounceMs: 20,
  });
  const s = serving;
  expect(s.firstCompile.ok).toBe(true);

  const external = await served(s.xdsPort, 'edge-1', 'gloo-system~external');
  expect(external).toMatchObject({
    clusters: ['ops-status-8000', 'shop-shop-8080'],
    listeners: ['listener-::-8080', 'listener-::-9090'],
    domains: ['shop.example.com'],
  });
  const internal = await served(s.xdsPort, 'inside-1', 'internal');
  expect(internal).toMatchObject({
    clusters: ['ops-admin-9000', 'ops-status-8000'],
    listeners: ['listener-::-8080', 'listener-::-9090'],
    domains: ['admin.internal'],
  });

  // No role: gateway-proxy, which no Gateway names here.
  const stray = new DeltaClient(s.xdsPort, 'stray-1');
  clients.push(stray);
  stray.send({ type_url: T.listener, resource_names_subscribe: ['*'] });
  expect((await stray.expect(T.listener)).resources).toEqual([]);

  // The admin host changes: the internal Envoy is sent the new routes, the external one nothing.
  const pushed: string[] = [];
  s.xds.on('push', (e: { node: string }) => pushed.push(e.node));
  const file = path.join(dir, 'resources.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace('domains: [admin.internal]', 'domains: [admin.internal, ops.internal]'),
  );
  const rds = await internal.client.expect(T.route);
  expect(rds.resources.find((r) => r.name === 'listener-::-8080-routes')!.virtual_hosts[0].domains).toEqual([
    'admin.internal',
    'ops.internal',
  ]);
  expect(pushed.filter((n) => n === 'edge-1')).toEqual([]);
  expect(external.client.inbox.pending).toBe(0);

  const status = await (await fetch(`http://127.0.0.1:${s.adminPort}/status`)).json();
  expect(Object.keys(status.snapshot.proxies)).toEqual(['external', 'internal']);
  expect(status.clients.map((c: { node?: { proxy: string } }) => c.node?.proxy).sort()).toEqual([
    'external',
    'gateway-proxy',
    'internal',
  ]);
});

test('an Envoy whose proxy no Gateway names is warned about, the sidecars are not; node metadata numbers are read', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-fleet-'));
  cpSync('golden/gateway-proxies/input', dir, { recursive: true });
  let log = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((log += String(chunk)), done()) });
  serving = await startServe({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger('info', sink),
    debounceMs: 20,
  });
  const nodes = new Promise<void>((resolve) => {
    let n = 0;
    serving!.xds.on('node', () => ++n === 2 && resolve());
  });
  const envoy = new SotwClient(serving.xdsPort, 'edge-typo', 'extrenal');
  const sidecar = new SotwClient(serving.xdsPort, 'extauth-1');
  clients.push(envoy, sidecar);
  // Envoy names itself in user_agent_name; the test client sends "test" unless told.
  envoy.send({
    type_url: T.listener,
    node: {
      id: 'edge-typo',
      user_agent_name: 'envoy',
      metadata: { fields: { role: { stringValue: 'extrenal' }, 'sluice.listener_port': { numberValue: 9999 } } },
    } as never,
  });
  sidecar.send({ type_url: T.authConfig });
  await nodes;
  const warnings = log.split('\n').filter((l) => l.includes('names a proxy no Gateway lists'));
  expect(warnings).toHaveLength(1);
  expect(JSON.parse(warnings[0]!)).toMatchObject({
    node: 'edge-typo',
    proxy: 'extrenal',
    proxies: ['external', 'internal'],
  });
  // Node metadata numbers are read too: the listener port `sluice bootstrap --listener-port` sends.
  expect(log).toContain('"expected":9999');
});
