/**
 * End to end against a real Envoy: Gloo routing through a Gateway of its own
 * bound to 127.0.0.1. One VirtualService has a regex matcher, a weighted
 * `multi` split (100/0, so the answer is deterministic), a `prefixRewrite`
 * and a prefix delegated to a RouteTable; each request reaches the upstream
 * its route names, which echoes its name, the Host and the path it saw. Runs
 * when ENVOY_BIN or `envoy` on PATH exists; otherwise says so and skips. The
 * compiled route configuration is checked either way.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
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
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../fixtures/envoy.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/gloo-routing.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

const UPSTREAMS = ['orders', 'stable', 'canary', 'legacy', 'reports'] as const;
type Upstream = (typeof UPSTREAMS)[number];
interface Ports {
  listener: number;
  admin: number;
  echo: Record<Upstream, number>;
}

const HOST = 'routing.example.com';

/** Gloo's API groups and shapes (as in golden/gloo-matchers, gloo-multi, gloo-route-options, gloo-delegation). */
function resources(ports: Ports): string {
  const upstream = (name: Upstream) => `apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: ${name}, namespace: e2e}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: ${ports.echo[name]}}]}
`;
  return [
    `apiVersion: gateway.solo.io/v1
kind: Gateway
metadata: {name: http, namespace: e2e}
spec:
  bindAddress: 127.0.0.1
  bindPort: ${ports.listener}
  httpGateway: {}
`,
    ...UPSTREAMS.map(upstream),
    `apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: routing, namespace: e2e}
spec:
  virtualHost:
    domains: [${HOST}]
    routes:
    - matchers: [{regex: '/orders/[0-9]+'}]
      routeAction: {single: {upstream: {name: orders}}}
    - matchers: [{prefix: /split}]
      routeAction:
        multi:
          destinations:
          - {weight: 100, destination: {upstream: {name: stable}}}
          - {weight: 0, destination: {upstream: {name: canary}}}
    - matchers: [{prefix: /legacy}]
      routeAction: {single: {upstream: {name: legacy}}}
      options: {prefixRewrite: /api/v2}
    - matchers: [{prefix: /reports}]
      delegateAction: {ref: {name: reports, namespace: e2e}}
`,
    `apiVersion: gateway.solo.io/v1
kind: RouteTable
metadata: {name: reports, namespace: e2e}
spec:
  routes:
  - matchers: [{prefix: /reports/daily}]
    routeAction: {single: {upstream: {name: reports}}}
`,
  ].join('---\n');
}

async function compileBootstrap(dir: string, ports: Ports): Promise<Json> {
  writeFileSync(path.join(dir, 'resources.yaml'), resources(ports));
  const options: CompileOptions = { ...DEFAULT_OPTIONS, adminPort: ports.admin };
  const result = await compileFiles([path.join(dir, 'resources.yaml')], options);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  const bootstrap = staticBootstrap(result.xds!, options);
  expect(verifyBootstrap(bootstrap).map(formatDiagnostic)).toEqual([]);
  return bootstrap;
}

test('the Gloo routes compile to a regex route, weighted clusters, a prefix_rewrite and the delegated route, in order (with or without Envoy)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-gloo-routing-config-'));
  try {
    const echo = Object.fromEntries(UPSTREAMS.map((u, i) => [u, 9100 + i])) as Record<Upstream, number>;
    const bootstrap = await compileBootstrap(dir, { listener: 8080, admin: 19000, echo });
    const listeners = (bootstrap.static_resources as Json).listeners as Json[];
    expect(listeners.map((l) => l.address)).toEqual([{ socket_address: { address: '127.0.0.1', port_value: 8080 } }]);
    const hcm = JSON.parse(JSON.stringify(listeners[0])).filter_chains[0].filters[0].typed_config;
    const vhosts = hcm.route_config.virtual_hosts as Json[];
    expect(vhosts.map((v) => v.domains)).toEqual([[HOST]]);
    const routes = vhosts[0]!.routes as Json[];
    expect(routes.map((r) => r.match)).toEqual([
      expect.objectContaining({ safe_regex: { regex: '/orders/[0-9]+' } }),
      expect.objectContaining({ prefix: '/split' }),
      expect.objectContaining({ prefix: '/legacy' }),
      expect.objectContaining({ prefix: '/reports/daily' }),
    ]);
    expect(routes[0]!.route).toMatchObject({ cluster: 'orders' });
    expect(routes[1]!.route).toMatchObject({ weighted_clusters: { clusters: [{ name: 'stable', weight: 100 }, { name: 'canary', weight: 0 }] } });
    expect(routes[2]!.route).toMatchObject({ cluster: 'legacy', prefix_rewrite: '/api/v2' });
    expect(routes[3]!.route).toMatchObject({ cluster: 'reports' });
    expect(routes[3]!.route).not.toHaveProperty('prefix_rewrite');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function get(port: number, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: urlPath, headers: { host: HOST }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describeWithEnvoy('Envoy serves Gloo routing through a Gateway on 127.0.0.1', () => {
  let dir: string;
  let envoy: RunningEnvoy | undefined;
  const servers: Server[] = [];
  let port = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-gloo-routing-'));
    const echo = {} as Record<Upstream, number>;
    for (const name of UPSTREAMS) {
      const server = createServer((req, res) => res.end(`${name} ${req.headers.host} ${req.url}`));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      servers.push(server);
      echo[name] = (server.address() as AddressInfo).port;
    }
    port = await closedPort();
    const admin = await closedPort();
    const bootstrap = await compileBootstrap(dir, { listener: port, admin, echo });
    writeFileSync(path.join(dir, 'envoy.yaml'), serialize(bootstrap, 'yaml'));
    envoy = await startEnvoy(ENVOY!, path.join(dir, 'envoy.yaml'), admin);
  }, 30_000);

  afterAll(async () => {
    await envoy?.stop();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a regex matcher: /orders/42 reaches orders; /orders/abc matches no route', async () => {
    expect(await get(port, '/orders/42')).toEqual({ status: 200, body: `orders ${HOST} /orders/42` });
    expect((await get(port, '/orders/abc')).status).toBe(404);
  });

  test('a 100/0 multi destination: stable answers, and the 0-weight canary never does over 20 requests', async () => {
    const replies = [];
    for (let i = 0; i < 20; i++) replies.push(await get(port, '/split'));
    expect(new Set(replies.map((r) => `${r.status} ${r.body}`))).toEqual(new Set([`200 stable ${HOST} /split`]));
  });

  test('prefixRewrite: the upstream sees the rewritten path', async () => {
    expect(await get(port, '/legacy/users?id=1')).toEqual({ status: 200, body: `legacy ${HOST} /api/v2/users?id=1` });
  });

  test("a delegated prefix reaches the RouteTable's upstream with the path unchanged", async () => {
    expect(await get(port, '/reports/daily/7')).toEqual({ status: 200, body: `reports ${HOST} /reports/daily/7` });
    // The RouteTable only routes /reports/daily: the rest of the delegated prefix matches nothing.
    expect((await get(port, '/reports/weekly')).status).toBe(404);
  });
});
