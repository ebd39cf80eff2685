/**
 * Status writing as serve's admin port shows it (`serve --kube
 * --status-lease` with its timing and write-rate flags): /status and
 * /metrics say whether this replica holds the Lease, how many writes it
 * made, how many failed and the last failure, against the API server double
 * through the real @kubernetes/client-node; a write the API server refuses
 * (403, as RBAC without `update` on the status subresource answers) counts
 * as failed with its message.
 */
import type { Serving } from '../../control-plane/run.js';
import { KubeApiServer } from '../../harness/kube-apiserver.js';
import { testLogger } from '../../harness/log-check.js';
import { crdTypes, endpointSlice, serveKube, service, virtualService } from './cluster.js';

const INSTALL = 'sluice-system';
const TIMING = { leaseDurationMs: 1_000, renewDeadlineMs: 700, retryPeriodMs: 100 };
const RATE = { perSecond: 40, burst: 3 };

let double: KubeApiServer;
const servings: Serving[] = [];

beforeEach(async () => {
  double = await KubeApiServer.start({ types: crdTypes() });
  double.put(service('web', 'shop', 8080, { app: 'shop' }));
  double.put(endpointSlice('web', 'shop', 8080, [{ ip: '10.1.0.1' }]));
});
afterEach(async () => {
  await Promise.all(servings.splice(0).map((s) => s.close()));
  await double.close();
});

async function serve(identity: string): Promise<Serving> {
  const serving = await serveKube(double, {
    logger: testLogger(),
    status: { lease: 'sluice-status', identity, timing: TIMING, rate: RATE },
  });
  servings.push(serving);
  return serving;
}

const shopTo = (upstream: string) =>
  virtualService('web', 'shop', 'shop.example', [{ prefix: '/', upstream, upstreamNamespace: INSTALL }]);
const vsStatus = () =>
  (double.object('gateway.solo.io/v1', 'VirtualService', 'web', 'shop')?.status as any)?.statuses?.[INSTALL];
const statusWrites = () => double.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/status')).length;

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const admin = async (s: Serving, path: string) => {
  const response = await fetch(`http://127.0.0.1:${s.adminPort}${path}`);
  return path === '/metrics' ? response.text() : response.json();
};
/** The value of a Prometheus series without labels. */
const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

test('/status and /metrics show the Lease holder, the writes, the timing and rate in use; the other replica writes nothing', async () => {
  double.put(shopTo('web-shop-8080'));
  const a = await serve('serve-a');
  const b = await serve('serve-b');
  await until('Accepted', () => vsStatus()?.state === 'Accepted');
  const [holder, other] = await until('a holder', () =>
    a.status!.elector.leading ? [a, b] : b.status!.elector.leading ? [b, a] : undefined,
  );
  await holder.status!.writer.idle();
  const writes = statusWrites();
  expect(writes).toBeGreaterThan(0);

  const shown = (await admin(holder, '/status')).statusWriting;
  expect(shown).toEqual({
    lease: {
      name: 'sluice-status',
      namespace: INSTALL,
      identity: holder === a ? 'serve-a' : 'serve-b',
      leader: true,
      renewedAt: expect.any(String),
      timing: TIMING,
    },
    rate: RATE,
    writes,
    failures: 0,
    pending: 0,
  });
  const metrics = await admin(holder, '/metrics');
  expect(metric(metrics, 'sluice_status_leader')).toBe(1);
  expect(metric(metrics, 'sluice_status_writes_total')).toBe(writes);
  expect(metric(metrics, 'sluice_status_write_failures_total')).toBe(0);
  expect(metric(metrics, 'sluice_status_last_failure_timestamp_seconds')).toBe(0);

  const others = (await admin(other, '/status')).statusWriting;
  expect(others.lease.leader).toBe(false);
  expect(others.writes).toBe(0);
  expect(metric(await admin(other, '/metrics'), 'sluice_status_leader')).toBe(0);
});

test('a status write the API server refuses is counted as failed, with its message on /status', async () => {
  double.put(shopTo('web-shop-8080'));
  const s = await serve('serve-a');
  await until('Accepted', () => vsStatus()?.state === 'Accepted');
  await s.status!.writer.idle();
  const writes = s.status!.writer.writes;
  double.refuse({
    method: 'PUT',
    pathEnd: '/status',
    code: 403,
    reason: 'Forbidden',
    message:
      'virtualservices.gateway.solo.io "web" is forbidden: User "system:serviceaccount:sluice-system:sluice" cannot update resource "virtualservices/status"',
  });
  double.put(shopTo('nowhere'));
  const shown = await until('a failed write', async () => {
    const status = (await admin(s, '/status')).statusWriting;
    return status.failures > 0 && status;
  });
  expect(shown.writes).toBe(writes);
  expect(shown.lastFailure).toEqual({
    resource: 'gateway.solo.io/v1|VirtualService|web/shop',
    message:
      '403 Forbidden: virtualservices.gateway.solo.io "web" is forbidden: User "system:serviceaccount:sluice-system:sluice" cannot update resource "virtualservices/status"',
    at: expect.any(String),
  });
  const metrics = await admin(s, '/metrics');
  expect(metric(metrics, 'sluice_status_write_failures_total')).toBe(shown.failures);
  expect(metric(metrics, 'sluice_status_last_failure_timestamp_seconds')).toBeCloseTo(
    Date.parse(shown.lastFailure.at) / 1000,
  );
  // Allowed again: the next change is written.
  double.refuse();
  double.put(shopTo('web-shop-8080'));
  await until('Accepted again', () => vsStatus()?.state === 'Accepted' && vsStatus().observedGeneration === 3);
});
