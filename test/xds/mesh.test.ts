/**
 * Mesh mode under `sluice serve --mesh`: real gRPC clients subscribe as an
 * Envoy that owns its listeners would: RDS, CDS and ECDS by name, over ADS
 * and over the discovery services of one type. No listener is served; every
 * cluster and filter name carries the prefix; an edit reaches RDS only.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { MESH_FILTERS } from '../../compiler/translate/mesh.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { SotwClient } from '../../harness/xds-client.js';
import { TYPE_URL as T } from './fixtures.js';
import { testLogger } from '../../harness/log-check.js';

const MESH = { routeConfigName: 'team-a-routes', namePrefix: 'sluice-' };
const FILTERS = MESH_FILTERS.map((f) => `sluice-${f}`);

let serving: Serving | undefined;
const clients: SotwClient[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await serving?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  serving = dir = undefined;
});

async function serve(): Promise<Serving> {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-mesh-'));
  cpSync('golden/mesh-mode/input', dir, { recursive: true });
  serving = await startServe({
    paths: [dir],
    compileOptions: { ...DEFAULT_OPTIONS, mesh: MESH },
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
    debounceMs: 20,
  });
  return serving;
}

function client(port: number, via?: 'Routes' | 'Clusters' | 'ExtensionConfigs'): SotwClient {
  const c = new SotwClient(port, `envoy-${clients.length}`, undefined, via);
  clients.push(c);
  return c;
}

test('over ADS: RDS, CDS and ECDS by name; no listener; every name prefixed', async () => {
  const s = await serve();
  expect(s.firstCompile.ok).toBe(true);
  const c = client(s.xdsPort);
  c.send({ type_url: T.cluster });
  const cds = await c.expect(T.cluster);
  const clusters = cds.resources.map((r) => r.name).sort();
  // The idle filters' sidecars too: ext_authz's and the rate limit filters'.
  expect(clusters).toEqual(['sluice-default-petstore-8080', 'sluice-extauth', 'sluice-ratelimit']);
  c.ack(cds);
  c.send({ type_url: T.extensionConfig, resource_names: FILTERS });
  const ecds = await c.expect(T.extensionConfig);
  expect(ecds.resources.map((r) => r.name).sort()).toEqual([...FILTERS].sort());
  c.ack(ecds, FILTERS);
  const extauth = ecds.resources.find((r) => r.name === 'sluice-envoy.filters.http.ext_authz')!;
  expect(extauth.typed_config.grpc_service.envoy_grpc.cluster_name).toBe('sluice-extauth');
  c.send({ type_url: T.route, resource_names: [MESH.routeConfigName] });
  const rds = await c.expect(T.route);
  expect(rds.resources.map((r) => r.name)).toEqual([MESH.routeConfigName]);
  const routeClusters = new Set(
    rds.resources[0].virtual_hosts.flatMap((vh: { routes: { route?: { cluster?: string } }[] }) =>
      vh.routes.map((r) => r.route?.cluster),
    ),
  );
  expect([...routeClusters].every((name) => clusters.includes(name as string))).toBe(true);
  const perFilter = Object.keys(rds.resources[0].virtual_hosts[0].typed_per_filter_config);
  expect(perFilter.length).toBeGreaterThan(0);
  expect(perFilter.every((name) => FILTERS.includes(name))).toBe(true);
  c.ack(rds, [MESH.routeConfigName]);
  c.send({ type_url: T.listener });
  expect((await c.expect(T.listener)).resources).toEqual([]);
});

test('over the discovery services of one type; an edit of a host reaches RDS, not ECDS', async () => {
  const s = await serve();
  const routes = client(s.xdsPort, 'Routes');
  routes.send({ type_url: T.route, resource_names: [MESH.routeConfigName] });
  const rds = await routes.expect(T.route);
  routes.ack(rds, [MESH.routeConfigName]);
  const filters = client(s.xdsPort, 'ExtensionConfigs');
  filters.send({ type_url: T.extensionConfig, resource_names: ['sluice-envoy.filters.http.jwt_authn'] });
  const ecds = await filters.expect(T.extensionConfig);
  expect(ecds.resources.map((r) => r.name)).toEqual(['sluice-envoy.filters.http.jwt_authn']);
  expect(Object.keys(ecds.resources[0].typed_config.providers)).toEqual(['default.petstore.corp']);
  filters.ack(ecds, ['sluice-envoy.filters.http.jwt_authn']);
  const clustersStream = client(s.xdsPort, 'Clusters');
  clustersStream.send({ type_url: T.cluster });
  expect((await clustersStream.expect(T.cluster)).resources.map((r) => r.name).sort()).toEqual([
    'sluice-default-petstore-8080',
    'sluice-extauth',
    'sluice-ratelimit',
  ]);

  const file = path.join(dir!, 'extauth.yaml');
  const before = readFileSync(file, 'utf8');
  const domain = /domains:\s*\[?\s*['"]?([a-z0-9.-]+)/.exec(before)![1]!;
  writeFileSync(file, before.replace(domain, `renamed.${domain}`));
  const next = await routes.expect(T.route);
  expect(JSON.stringify(next.resources[0].virtual_hosts.map((vh: { domains: string[] }) => vh.domains))).toContain(
    `renamed.${domain}`,
  );
  expect(filters.inbox.pending).toBe(0);
});

test('a Gateway in mesh mode is an error at the Gateway: the team owns the listeners', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-mesh-'));
  writeFileSync(
    path.join(dir, 'gateway.yaml'),
    'apiVersion: gateway.solo.io/v1\nkind: Gateway\nmetadata: {name: public, namespace: gloo-system}\nspec:\n  bindPort: 8080\n  httpGateway: {}\n',
  );
  serving = await startServe({
    paths: [dir],
    compileOptions: { ...DEFAULT_OPTIONS, mesh: MESH },
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
    debounceMs: 20,
  });
  expect(serving.firstCompile.ok).toBe(false);
  const errors = serving.firstCompile.ok ? [] : serving.firstCompile.diagnostics;
  expect(
    errors.filter((d) => d.severity !== 'warning').map((d) => `${d.line} ${d.resource} ${d.field}: ${d.message}`),
  ).toEqual([
    '2 Gateway gloo-system/public kind: mesh mode (serve --mesh) serves routes, clusters and HTTP filters into listeners your Envoy owns; a Gateway declares a listener',
  ]);
});

test('the binary: `sluice bootstrap --mesh` prints the pieces serve --mesh answers to, with the same names', () => {
  const out = execFileSync(
    process.execPath,
    [
      'bin/sluice.js',
      'bootstrap',
      '--mesh',
      '--xds-address',
      'sluice:18000',
      '--route-config-name',
      MESH.routeConfigName,
      '--name-prefix',
      MESH.namePrefix,
    ],
    { encoding: 'utf8' },
  );
  expect(out).toContain('# 4. In the same http_connection_manager, before your router');
  const pieces = parse(out);
  const cluster = pieces.static_resources.clusters[0];
  expect(cluster.name).toBe('sluice-xds');
  const sources = [
    pieces.dynamic_resources.cds_config,
    pieces.rds.config_source,
    ...pieces.http_filters.map(
      (f: { config_discovery: { config_source: unknown } }) => f.config_discovery.config_source,
    ),
  ];
  for (const source of sources)
    expect(source.api_config_source.grpc_services[0].envoy_grpc.cluster_name).toBe(cluster.name);
  expect(pieces.rds.route_config_name).toBe(MESH.routeConfigName);
  expect(pieces.http_filters.map((f: { name: string }) => f.name)).toEqual(FILTERS);
});
