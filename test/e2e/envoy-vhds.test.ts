/**
 * End to end against a real Envoy with `sluice serve --vhds`: an Envoy on
 * delta ADS (`sluice bootstrap --delta`) gets its listener, an empty route
 * configuration carrying `vhds`, and the virtual hosts over VHDS. Both hosts
 * are routed before the first request (the listener warms with them); an
 * edit of one host's route reaches Envoy; a removed host answers 404. Runs
 * when ENVOY_BIN or `envoy` on PATH exists; otherwise says so and skips. The
 * bootstrap is checked either way.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { serialize } from '../../compiler/emit/write.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { verifyBootstrap } from '../../compiler/verify/verify.js';
import { adsBootstrap } from '../../control-plane/bootstrap.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { closedPort } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';
import { httpGet } from '../../harness/http.js';
import { testLogger } from '../../harness/log-check.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/envoy-vhds.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

const UPSTREAM = (port: number) => `apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: echo, namespace: shop}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: ${port}}]}
`;

const HOST = (name: string, prefix: string) => `apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: ${name}, namespace: shop}
spec:
  virtualHost:
    domains: [${name}.example.com]
    routes:
      - matchers: [{prefix: ${prefix}}]
        routeAction: {single: {upstream: {name: echo}}}
`;

function bootstrap(xds: number, admin: number) {
  return adsBootstrap({
    xdsAddress: { host: '127.0.0.1', port: xds },
    nodeId: 'vhds-e2e',
    nodeCluster: 'sluice-gateway',
    adminPort: admin,
    delta: true,
  });
}

test('the delta bootstrap VHDS needs passes the Envoy proto check (with or without Envoy)', () => {
  const b = bootstrap(18000, 19000);
  expect((b.dynamic_resources as { ads_config: { api_type: string } }).ads_config.api_type).toBe('DELTA_GRPC');
  expect(verifyBootstrap(b).map(formatDiagnostic)).toEqual([]);
});

/** Retries until `check` holds (an edit reaches Envoy some milliseconds after the save). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the change never reached Envoy');
}

describeWithEnvoy('an Envoy on delta ADS, routes over VHDS', () => {
  let dir: string;
  let serving: Serving;
  let envoy: RunningEnvoy | undefined;
  let server: Server;
  let listenerPort = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-vhds-'));
    server = createServer((req, res) => res.end(`${req.headers.host} ${req.url}`));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    writeFileSync(path.join(dir, 'upstream.yaml'), UPSTREAM((server.address() as AddressInfo).port));
    writeFileSync(path.join(dir, 'a.yaml'), HOST('a', '/a'));
    writeFileSync(path.join(dir, 'b.yaml'), HOST('b', '/b'));
    listenerPort = await closedPort();
    serving = await startServe({
      paths: [dir],
      compileOptions: { ...DEFAULT_OPTIONS, listenerAddress: '127.0.0.1', listenerPort, vhds: true },
      host: '127.0.0.1',
      xdsPort: 0,
      adminPort: 0,
      logger: testLogger(),
    });
    const admin = await closedPort();
    writeFileSync(path.join(dir, 'envoy.yaml'), serialize(bootstrap(serving.xdsPort, admin), 'yaml'));
    envoy = await startEnvoy(ENVOY!, path.join(dir, 'envoy.yaml'), admin);
  });

  afterAll(async () => {
    await envoy?.stop();
    await serving?.close();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every host is routed from the first request', async () => {
    expect(await httpGet(listenerPort, 'a.example.com', '/a/1')).toEqual({ status: 200, body: 'a.example.com /a/1' });
    expect(await httpGet(listenerPort, 'b.example.com', '/b/1')).toEqual({ status: 200, body: 'b.example.com /b/1' });
  });

  test("an edit of one host's route reaches Envoy; a removed host answers 404", async () => {
    writeFileSync(path.join(dir, 'a.yaml'), HOST('a', '/new'));
    await eventually(async () => (await httpGet(listenerPort, 'a.example.com', '/new/1')).status === 200);
    expect((await httpGet(listenerPort, 'a.example.com', '/a/1')).status).toBe(404);
    rmSync(path.join(dir, 'b.yaml'));
    await eventually(async () => (await httpGet(listenerPort, 'b.example.com', '/b/1')).status === 404);
  });
});
