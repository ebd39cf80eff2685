/**
 * `sluice serve` driving a real Envoy over ADS (SotW and delta): the
 * bootstrap from `adsBootstrap`, a route served, a file edited on disk and
 * the new route live, a broken edit not applied. Runs when ENVOY_BIN or
 * `envoy` on PATH exists; otherwise says so and skips. Loopback only.
 */
import { once } from 'node:events';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serialize } from '../../compiler/emit/write.js';
import { TYPE_URL } from '../../contract/names.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { verifyBootstrap } from '../../compiler/verify/verify.js';
import { adsBootstrap } from '../../control-plane/bootstrap.js';
import type { CompileOutcome } from '../../control-plane/control.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { closedPort } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';
import { testLogger } from '../../harness/log-check.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/xds/envoy.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

function resources(echoPort: number, prefix: string, upstream = 'echo'): string {
  return `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: {name: echo, namespace: default}
spec:
  static:
    hosts: [{addr: 127.0.0.1, port: ${echoPort}}]
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: echo, namespace: default}
spec:
  virtualHost:
    domains: ['*']
    routes:
      - matchers: [{prefix: ${prefix}}]
        routeAction:
          single:
            upstream: {name: ${upstream}}
`;
}

function get(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: target }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describeWithEnvoy.each([{ delta: false }, { delta: true }])('Envoy over ADS (delta: $delta)', ({ delta }) => {
  let dir: string;
  let file: string;
  let echo: Server;
  let echoPort: number;
  let serving: Serving;
  let envoy: RunningEnvoy | undefined;
  let listenerPort: number;

  /** Resolves when Envoy has ACKed a route version other than `not`. */
  function routeAcked(not?: string): Promise<string> {
    return new Promise((resolve) => {
      const on = (e: { typeUrl: string; version: string; node: string }) => {
        if (e.typeUrl !== TYPE_URL.route || e.version === not || e.node !== 'e2e') return;
        serving.xds.off('ack', on);
        resolve(e.version);
      };
      serving.xds.on('ack', on);
    });
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-xds-envoy-'));
    echo = createServer((req, res) => res.end(`echo ${req.url}`));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    echoPort = (echo.address() as AddressInfo).port;
    file = path.join(dir, 'resources.yaml');
    writeFileSync(file, resources(echoPort, '/one'));
    listenerPort = await closedPort();
    serving = await startServe({
      paths: [dir],
      compileOptions: { ...DEFAULT_OPTIONS, listenerAddress: '127.0.0.1', listenerPort },
      host: '127.0.0.1',
      xdsPort: 0,
      adminPort: 0,
      logger: testLogger(),
      debounceMs: 20,
    });
    const adminPort = await closedPort();
    const bootstrap = adsBootstrap({
      xdsAddress: { host: '127.0.0.1', port: serving.xdsPort },
      nodeId: 'e2e',
      nodeCluster: 'e2e',
      adminPort,
      delta,
      listenerPort,
    });
    expect(verifyBootstrap(bootstrap)).toEqual([]);
    const config = path.join(dir, 'envoy.yaml');
    writeFileSync(config, serialize(bootstrap, 'yaml'));
    const acked = routeAcked();
    // Ready (/ready 200) means the initial fetches are done and the listener is bound.
    envoy = await startEnvoy(ENVOY!, config, adminPort);
    await acked;
  });

  afterAll(async () => {
    await envoy?.stop();
    await serving?.close();
    echo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('routes come over ADS; an edit on disk is live once ACKed; a broken edit is not applied', async () => {
    expect(await get(listenerPort, '/one/x')).toEqual({ status: 200, body: 'echo /one/x' });
    expect((await get(listenerPort, '/two')).status).toBe(404);
    expect(serving.xds.status().find((s) => s.node?.id === 'e2e')?.types[TYPE_URL.cluster].nacked).toBeUndefined();

    const current = serving.control.snapshot!.type(TYPE_URL.route)!.version;
    const acked = routeAcked(current);
    writeFileSync(`${file}.tmp`, resources(echoPort, '/two'));
    renameSync(`${file}.tmp`, file);
    await acked;
    expect(await get(listenerPort, '/two/y')).toEqual({ status: 200, body: 'echo /two/y' });
    expect((await get(listenerPort, '/one')).status).toBe(404);

    const failed = new Promise<CompileOutcome>((resolve) =>
      serving.control.on('compiled', (o: CompileOutcome) => !o.ok && resolve(o)),
    );
    writeFileSync(`${file}.tmp`, resources(echoPort, '/three', 'nowhere'));
    renameSync(`${file}.tmp`, file);
    await failed;
    expect(await get(listenerPort, '/two/z')).toEqual({ status: 200, body: 'echo /two/z' });
    expect(serving.control.cache.allNacks()).toEqual([]);
  });
});
