/**
 * End to end against a real Envoy: Gloo routing as a team's manifests write
 * it. A regex matcher, a weighted split, a prefix rewrite and a prefix
 * delegated to a RouteTable each reach the upstream they name, with the path
 * the upstream should see. Runs when ENVOY_BIN or `envoy` on PATH exists;
 * otherwise says so and skips. The compiled route configuration is checked
 * either way.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { staticBootstrap } from '../../compiler/emit/bootstrap.js';
import { serialize } from '../../compiler/emit/write.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS, type CompileOptions, type Json } from '../../compiler/translate/output.js';
import { verifyBootstrap } from '../../compiler/verify/verify.js';
import { closedPort } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';
import { httpGet } from '../../harness/http.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/envoy-gloo-routing.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

const UPSTREAMS = ['items', 'stable', 'canary', 'legacy', 'team'] as const;
type Ports = Record<(typeof UPSTREAMS)[number], number>;

/** Gloo's own API groups and shapes, as a team's manifests have them. */
function resources(ports: Ports): string {
  const upstream = (name: string) => `apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: ${name}, namespace: gloo-system}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: ${ports[name as keyof Ports]}}]}
`;
  return [
    ...UPSTREAMS.map(upstream),
    `apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: shop, namespace: gloo-system}
spec:
  virtualHost:
    domains: [shop.example.com]
    routes:
    - matchers: [{regex: '/items/[0-9]+'}]
      routeAction: {single: {upstream: {name: items}}}
    - matchers: [{prefix: /split}]
      routeAction:
        multi:
          destinations:
          - {weight: 100, destination: {upstream: {name: stable}}}
          - {weight: 0, destination: {upstream: {name: canary}}}
    - matchers: [{prefix: /old}]
      routeAction: {single: {upstream: {name: legacy}}}
      options: {prefixRewrite: /v2}
    - matchers: [{prefix: /team}]
      delegateAction: {ref: {name: team}}
`,
    `apiVersion: gateway.solo.io/v1
kind: RouteTable
metadata: {name: team, namespace: gloo-system}
spec:
  routes:
  - matchers: [{prefix: /team/a}]
    routeAction: {single: {upstream: {name: team}}}
`,
  ].join('---\n');
}

async function compileBootstrap(dir: string, ports: Ports, options: CompileOptions): Promise<Json> {
  writeFileSync(path.join(dir, 'resources.yaml'), resources(ports));
  const result = await compileFiles([path.join(dir, 'resources.yaml')], options);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  const bootstrap = staticBootstrap(result.xds!, options);
  expect(verifyBootstrap(bootstrap).map(formatDiagnostic)).toEqual([]);
  return bootstrap;
}

test('the Gloo routes compile to Envoy routes in the order written (with or without Envoy)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-gloo-config-'));
  try {
    const ports = Object.fromEntries(UPSTREAMS.map((u, i) => [u, 9000 + i])) as Ports;
    const bootstrap = await compileBootstrap(dir, ports, DEFAULT_OPTIONS);
    const text = JSON.stringify(bootstrap);
    const routes = (
      JSON.parse(text).static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config
        .virtual_hosts[0].routes as Json[]
    ).map((r) => ({ match: r.match, route: r.route }));
    expect(routes.map((r) => r.match)).toEqual([
      expect.objectContaining({ safe_regex: { regex: '/items/[0-9]+' } }),
      expect.objectContaining({ prefix: '/split' }),
      expect.objectContaining({ prefix: '/old' }),
      expect.objectContaining({ prefix: '/team/a' }),
    ]);
    expect((routes[1]!.route as Json).weighted_clusters).toMatchObject({
      clusters: [
        { name: 'stable', weight: 100 },
        { name: 'canary', weight: 0 },
      ],
    });
    expect(routes[2]!.route).toMatchObject({ cluster: 'legacy', prefix_rewrite: '/v2' });
    expect(routes[3]!.route).toMatchObject({ cluster: 'team' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const get = (port: number, urlPath: string) => httpGet(port, 'shop.example.com', urlPath);

describeWithEnvoy('Envoy routes Gloo manifests', () => {
  let dir: string;
  let envoy: RunningEnvoy | undefined;
  const servers: Server[] = [];
  let port = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-gloo-'));
    const ports = {} as Ports;
    for (const name of UPSTREAMS) {
      const server = createServer((req, res) => res.end(`${name} ${req.url}`));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      servers.push(server);
      ports[name] = (server.address() as AddressInfo).port;
    }
    port = await closedPort();
    const admin = await closedPort();
    const bootstrap = await compileBootstrap(dir, ports, {
      ...DEFAULT_OPTIONS,
      listenerAddress: '127.0.0.1',
      listenerPort: port,
      adminPort: admin,
    });
    writeFileSync(path.join(dir, 'envoy.yaml'), serialize(bootstrap, 'yaml'));
    envoy = await startEnvoy(ENVOY!, path.join(dir, 'envoy.yaml'), admin);
  });

  afterAll(async () => {
    await envoy?.stop();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a regex matcher: /items/42 matches, /items/abc does not', async () => {
    expect(await get(port, '/items/42')).toEqual({ status: 200, body: 'items /items/42' });
    expect((await get(port, '/items/abc')).status).toBe(404);
  });

  test('a weighted split: weight 0 never answers', async () => {
    const bodies = new Set<string>();
    for (let i = 0; i < 20; i++) bodies.add((await get(port, '/split')).body);
    expect([...bodies]).toEqual(['stable /split']);
  });

  test('prefixRewrite: the upstream sees the rewritten path', async () => {
    expect(await get(port, '/old/x')).toEqual({ status: 200, body: 'legacy /v2/x' });
  });

  test("a delegated prefix reaches the RouteTable's upstream", async () => {
    expect(await get(port, '/team/a/1')).toEqual({ status: 200, body: 'team /team/a/1' });
    expect((await get(port, '/team/b')).status).toBe(404);
  });
});
