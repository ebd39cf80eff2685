/**
 * `sluice check` (the built binary) against a running serve with real ADS
 * clients, one of which NACKs, and a real sluice-extauth: one line per
 * problem, exit 1; --output json; a sidecar that is not there; an Envoy left
 * behind an edit; a rejected resource; all clear once the problems are gone.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { TYPE_URL } from '../../contract/names.js';
import { freePort } from '../../harness/slapd.js';
import { SotwClient } from '../../harness/xds-client.js';
import {
  edit,
  NACK_TEXT,
  nextCompile,
  startScene,
  statusWhen,
  virtualService,
  type StatusScene,
} from './status-fixture.js';

const run = promisify(execFile);

async function check(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    // A generous timeout: on a loaded machine serve's /status may take seconds, and that is not what is tested.
    const { stdout, stderr } = await run(process.execPath, ['bin/sluice.js', 'check', '--timeout', '60', ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let scene: StatusScene;
let sidecarFlags: string[];
const admin = () => `http://127.0.0.1:${scene.serving.adminPort}`;

beforeAll(async () => {
  scene = await startScene();
  sidecarFlags = [
    '--extauth-admin',
    `http://127.0.0.1:${scene.extauth.adminPort}`,
    '--graphql-admin',
    'none',
    '--ratelimit-admin',
    'none',
  ];
});
afterAll(async () => {
  await scene?.close();
});

test('the NACKing Envoy is one line with its error text; the ACKing Envoy and the ready sidecar are none; exit 1', async () => {
  const { code, stdout } = await check(['--admin', admin(), ...sidecarFlags]);
  expect(code).toBe(1);
  expect(stdout.trimEnd().split('\n')).toEqual([
    expect.stringMatching(
      /^nack: Envoy "envoy-<b>nacking<\/b>" \(127\.0\.0\.1:\d+, stream \d+\) NACKed Cluster version [0-9a-f]+: /,
    ),
  ]);
  expect(stdout).toContain(NACK_TEXT);
});

test('--output json: the report with each problem and each sidecar asked', async () => {
  const { code, stdout } = await check(['--admin', admin(), ...sidecarFlags, '--output', 'json']);
  expect(code).toBe(1);
  const report = JSON.parse(stdout);
  expect(report.ok).toBe(false);
  expect(report.problems).toEqual([{ kind: 'nack', message: expect.stringContaining(NACK_TEXT) }]);
  expect(report.sidecars).toEqual([
    { name: 'sluice-extauth', url: `http://127.0.0.1:${scene.extauth.adminPort}`, ready: true, detail: 'ready' },
  ]);
});

test('a sidecar whose admin port does not answer, and a serve that is not there', async () => {
  const closed = await freePort();
  const missing = await check([
    '--admin',
    admin(),
    '--extauth-admin',
    'none',
    '--graphql-admin',
    `http://127.0.0.1:${closed}`,
    '--ratelimit-admin',
    'none',
  ]);
  expect(missing.stdout).toContain(
    `sidecar: sluice-graphql at http://127.0.0.1:${closed} is not ready: unreachable: ECONNREFUSED`,
  );
  const noServe = await check([
    '--admin',
    `http://127.0.0.1:${closed}`,
    '--extauth-admin',
    'none',
    '--graphql-admin',
    'none',
    '--ratelimit-admin',
    'none',
  ]);
  expect(noServe.code).toBe(1);
  expect(noServe.stdout).toBe(
    `not-ready: serve's admin port http://127.0.0.1:${closed} does not answer /status (ECONNREFUSED): is sluice serve running there? (--admin)\n`,
  );
});

test('an Envoy that has not ACKed an edit for longer than --stale-after; a proxy without Envoys; a rejected resource; then all clear', async () => {
  const { serving, good, nacking, vsFile } = scene;
  // The NACKing Envoy goes away: its proxy keeps the good one.
  nacking.close();
  await statusWhen(serving.adminPort, (s) => s.proxies[0].envoys.length === 1);

  // An edit of the clusters, which the good Envoy is sent and does not ACK (yet).
  const compiled = nextCompile(serving, true);
  edit(vsFile, virtualService('/v2', 9090));
  await compiled;
  const pushed = await good.expect(TYPE_URL.cluster);
  const behind = await statusWhen(serving.adminPort, (s) => s.proxies[0].envoys[0].types[0].behindSince !== undefined);
  expect(behind.proxies[0].envoys[0].types[0]).toMatchObject({ type: 'Cluster', upToDate: false });
  // Within the limit it is no problem; past it (0 s) it is one.
  expect((await check(['--admin', admin(), ...sidecarFlags, '--stale-after', '3600'])).code).toBe(0);
  const stale = await check(['--admin', admin(), ...sidecarFlags, '--stale-after', '0']);
  expect(stale.code).toBe(1);
  expect(stale.stdout).toMatch(
    /^stale: Envoy "envoy-good" \(127\.0\.0\.1:\d+, stream \d+\) has Cluster version [0-9a-f]+, not [0-9a-f]+, for \d+ s\n$/,
  );
  good.ack(pushed);
  await statusWhen(serving.adminPort, (s) => s.proxies[0].envoys[0].types[0].upToDate);

  // A broken resource: rejected with the CLI's message; the last good snapshot stays.
  const failed = nextCompile(serving, false);
  writeFileSync(
    path.join(scene.dir, 'broken.yaml'),
    `apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: broken, namespace: default}
spec:
  virtualHost:
    domains: [broken.example.com]
    routes:
      - matchers: [{prefix: /}]
        routeAction: {single: {upstream: {name: nowhere}}}
`,
  );
  await failed;
  const rejected = await check(['--admin', admin(), ...sidecarFlags]);
  expect(rejected.code).toBe(1);
  expect(rejected.stdout).toMatch(
    /^rejected: .*broken\.yaml:\d+: error\[resolve\]: VirtualService default\/broken: .*nowhere/m,
  );

  // Every Envoy gone: the proxy has none.
  good.close();
  await statusWhen(serving.adminPort, (s) => s.proxies[0].envoys.length === 0);
  expect((await check(['--admin', admin(), ...sidecarFlags])).stdout).toContain(
    'no-envoy: proxy gateway-proxy: no Envoy connected\n',
  );

  // Fixed, and an Envoy back on the current version: nothing to report.
  const fixed = nextCompile(serving, true);
  edit(
    path.join(scene.dir, 'broken.yaml'),
    virtualService('/v3')
      .replace('name: petstore, namespace', 'name: fixed, namespace')
      .replace('petstore.example.com', 'fixed.example.com'),
  );
  await fixed;
  const back = new SotwClient(serving.xdsPort, 'envoy-back');
  back.send({ type_url: TYPE_URL.cluster });
  back.ack(await back.expect(TYPE_URL.cluster));
  await statusWhen(serving.adminPort, (s) => s.proxies[0].envoys[0]?.types[0]?.upToDate);
  const clear = await check(['--admin', admin(), ...sidecarFlags]);
  back.close();
  expect(clear).toMatchObject({ code: 0, stdout: `ok: serve at ${admin()} and sluice-extauth report no problem\n` });
});
