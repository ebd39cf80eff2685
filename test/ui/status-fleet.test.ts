/**
 * /status's view of a fleet: the proxies the Gateways name, each with the
 * Envoys whose node metadata `role` names it (Gloo's `namespace~name`), a
 * proxy with none, an Envoy naming a proxy no Gateway lists, and a client
 * that asks only for a sidecar's type counted as a sidecar. Real serve, real
 * gRPC ADS clients; the problems are those `sluice check` prints.
 */
import { cpSync } from 'node:fs';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { TYPE_URL } from '../../contract/names.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { problemsOf } from '../../control-plane/status/problems.js';
import { testLogger } from '../../harness/log-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { SotwClient } from '../../harness/xds-client.js';
import { statusWhen } from './status-fixture.js';

let serving: Serving;
const clients: SotwClient[] = [];

beforeAll(async () => {
  const dir = tempDir('fleet-status');
  cpSync('golden/gateway-proxies/input', dir, { recursive: true });
  serving = await startServe({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
  });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await serving?.close();
});

async function connect(nodeId: string, role: string | undefined, typeUrl: string): Promise<void> {
  const c = new SotwClient(serving.xdsPort, nodeId, role);
  clients.push(c);
  c.send({ type_url: typeUrl });
  c.ack(await c.expect(typeUrl));
}

test('each proxy with its Envoys, one without, an unknown role under its own name, the sidecar apart', async () => {
  await connect('ext-1', 'gloo-system~external', TYPE_URL.cluster);
  await connect('ghost-1', 'ghost', TYPE_URL.cluster);
  await connect('extauth-1', undefined, TYPE_URL.authConfig);
  const status = await statusWhen(
    serving.adminPort,
    (s) => s.sidecars.length === 1 && s.proxies.reduce((n: number, p: any) => n + p.envoys.length, 0) === 2,
  );
  const summary = status.proxies.map((p: any) => ({
    name: p.name,
    served: typeof p.version === 'string',
    envoys: p.envoys.map((e: any) => `${e.nodeId}: ${e.types.map((t: any) => `${t.type} ${t.upToDate}`).join()}`),
  }));
  expect(summary).toEqual([
    { name: 'external', served: true, envoys: ['ext-1: Cluster true'] },
    { name: 'internal', served: true, envoys: [] },
    // Served the shared snapshot (the sidecars' types, no clusters), which it holds: up to date, and useless.
    { name: 'ghost', served: false, envoys: ['ghost-1: Cluster true'] },
  ]);
  expect(status.sidecars.map((s: any) => [s.nodeId, s.ready])).toEqual([['extauth-1', true]]);
  expect(status.resources.every((r: any) => r.state === 'accepted')).toBe(true);
  expect(status.resources.map((r: any) => r.resource)).toContain('Gateway gloo-system/internal');
  expect(problemsOf(status, 30).map((p) => p.message)).toEqual([
    'proxy internal: no Envoy connected',
    'proxy ghost: "ghost-1" name it (node metadata role) but no Gateway lists it: served no listeners',
  ]);
});
