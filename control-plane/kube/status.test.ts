/**
 * Status reporting through the real @kubernetes/client-node against the API
 * server double: verdicts written to the status subresource only when they
 * change, 409 Conflicts retried with a fresh read, and one writer at a time
 * among replicas, by the Lease.
 */
import { Compiler } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { KubeApiServer, type KubeObject, type ResourceType } from '../../harness/kube-apiserver.js';
import { testLogger } from '../../harness/log-check.js';
import { StatusReporter } from './status.js';
import { objectKey } from './kinds.js';
import type { StatusObject } from './status-desired.js';

const NS = 'sluice-system';
const TYPES: ResourceType[] = [
  {
    group: 'gateway.solo.io',
    version: 'v1',
    plural: 'virtualservices',
    kind: 'VirtualService',
    namespaced: true,
    status: true,
  },
  { group: 'gloo.solo.io', version: 'v1', plural: 'upstreams', kind: 'Upstream', namespaced: true, status: true },
];
/** Short enough for a test, in the proportions of client-go's 15 s / 10 s / 2 s. */
const TIMING = { leaseDurationMs: 1_000, renewDeadlineMs: 700, retryPeriodMs: 100 };
const RATE = { perSecond: 1_000, burst: 1_000 };

const upstream: KubeObject = {
  apiVersion: 'gloo.solo.io/v1',
  kind: 'Upstream',
  metadata: { name: 'pay', namespace: 'shop' },
  spec: { static: { hosts: [{ addr: '10.0.1.1', port: 9080 }] } },
};
const virtualService = (target: string): KubeObject => ({
  apiVersion: 'gateway.solo.io/v1',
  kind: 'VirtualService',
  metadata: { name: 'cart', namespace: 'shop' },
  spec: {
    virtualHost: {
      domains: ['cart.example.com'],
      routes: [{ matchers: [{ prefix: '/' }], routeAction: { single: { upstream: { name: target } } } }],
    },
  },
});

let double: KubeApiServer;
const reporters: StatusReporter[] = [];
const compiler = new Compiler(DEFAULT_OPTIONS);

beforeEach(async () => {
  double = await KubeApiServer.start({ types: TYPES });
});
afterEach(async () => {
  await Promise.all(reporters.splice(0).map((r) => r.stop()));
  await double.close();
});

function reporter(identity: string): StatusReporter {
  const r = new StatusReporter({
    kubeConfig: double.kubeConfig(),
    namespace: NS,
    lease: 'sluice-status',
    identity,
    timing: TIMING,
    rate: RATE,
    logger: testLogger(),
  });
  reporters.push(r);
  r.start();
  return r;
}

/** The objects of Sluice's kinds the double holds, as the watch gives them. */
const objects = (): Map<string, StatusObject> =>
  new Map(
    TYPES.flatMap((t) => double.store.current(t)).map((o): [string, StatusObject] => [
      objectKey(o.apiVersion!, o.kind!, o.metadata.namespace, o.metadata.name),
      o as unknown as StatusObject,
    ]),
  );

/** A compile of what the double holds, reported as serve does after each compile. */
function compileAndReport(...to: StatusReporter[]): void {
  const current = objects();
  const { diagnostics } = compiler.compileObjects(current);
  for (const r of to) r.report(current, diagnostics);
}

async function until<T>(what: string, probe: () => T | undefined | false, limitMs = 20_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const statusOf = (apiVersion: string, kind: string, name: string) =>
  (double.object(apiVersion, kind, 'shop', name)?.status as any)?.statuses?.[NS];
const vsStatus = () => statusOf('gateway.solo.io/v1', 'VirtualService', 'cart');
const usStatus = () => statusOf('gloo.solo.io/v1', 'Upstream', 'pay');
const statusWrites = () => double.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/status')).length;

describe('status in the cluster', () => {
  test('a broken VirtualService is Rejected with the message; fixed, it is Accepted at its new generation; unchanged, nothing is written', async () => {
    double.put(upstream);
    double.put(virtualService('nowhere'));
    const r = reporter('serve-a');
    await until('the Lease', () => r.elector.leading);
    compileAndReport(r);
    const rejected = await until('Rejected', () => vsStatus()?.state === 'Rejected' && vsStatus());
    expect(rejected).toEqual({
      state: 'Rejected',
      reason: expect.stringMatching(
        /^error\[resolve\]: VirtualService shop\/cart: spec\.virtualHost\.routes\[0\]\.routeAction\.single\.upstream: Upstream shop\/nowhere not found/,
      ),
      reportedBy: 'sluice',
      observedGeneration: 1,
    });
    await until('the Upstream Accepted', () => usStatus()?.state === 'Accepted');
    await r.writer.idle();
    expect([statusWrites(), r.writer.writes]).toEqual([2, 2]);
    // The spec is untouched: the status went through the subresource.
    expect((double.object('gateway.solo.io/v1', 'VirtualService', 'shop', 'cart') as any).spec).toEqual(
      virtualService('nowhere').spec,
    );

    // Compiled again with nothing changed (the watch brought our own status writes): no write.
    compileAndReport(r);
    compileAndReport(r);
    await r.writer.idle();
    expect(statusWrites()).toBe(2);

    double.put(virtualService('pay'));
    expect(double.object('gateway.solo.io/v1', 'VirtualService', 'shop', 'cart')!.metadata.generation).toBe(2);
    compileAndReport(r);
    await until('Accepted', () => vsStatus()?.state === 'Accepted');
    expect(vsStatus()).toEqual({ state: 'Accepted', reportedBy: 'sluice', observedGeneration: 2 });
    await r.writer.idle();
    expect(statusWrites()).toBe(3);
  });

  test("another reporter's entry is kept", async () => {
    double.put({ ...upstream, status: { statuses: { 'gloo-system': { state: 'Accepted', reportedBy: 'gloo' } } } });
    const r = reporter('serve-a');
    await until('the Lease', () => r.elector.leading);
    compileAndReport(r);
    await until('Accepted', () => usStatus()?.state === 'Accepted');
    expect(
      (double.object('gloo.solo.io/v1', 'Upstream', 'shop', 'pay')!.status as any).statuses['gloo-system'],
    ).toEqual({
      state: 'Accepted',
      reportedBy: 'gloo',
    });
  });

  test('a 409 Conflict (the object changed since the watch saw it) is retried with a fresh read', async () => {
    double.put(upstream);
    double.put(virtualService('nowhere'));
    const r = reporter('serve-a');
    await until('the Lease', () => r.elector.leading);
    const seen = objects();
    // A label added after the watch's copy: the resourceVersion the writer holds is stale, the generation unchanged.
    double.put({
      ...virtualService('nowhere'),
      metadata: { ...virtualService('nowhere').metadata, labels: { team: 'cart' } },
    });
    r.report(seen, compiler.compileObjects(seen).diagnostics);
    await until('Rejected', () => vsStatus()?.state === 'Rejected');
    await r.writer.idle();
    const vsRequests = double.requests.filter((q) => q.path.includes('/virtualservices/cart'));
    expect(vsRequests.map((q) => `${q.method} ${q.path.endsWith('/status') ? 'status' : 'object'}`)).toEqual([
      'PUT status', // 409
      'GET object',
      'PUT status',
    ]);
  });

  test('two replicas: only the Lease holder writes; when it stops, the other takes the Lease and writes', async () => {
    double.put(upstream);
    double.put(virtualService('nowhere'));
    const a = reporter('serve-a');
    const b = reporter('serve-b');
    const first = await until('a holder', () => (a.elector.leading ? a : b.elector.leading ? b : undefined));
    const second = first === a ? b : a;
    compileAndReport(a, b);
    await until('Rejected', () => vsStatus()?.state === 'Rejected');
    await first.writer.idle();
    expect([first.writer.writes, second.writer.writes]).toEqual([2, 0]);
    const lease = () => double.object('coordination.k8s.io/v1', 'Lease', NS, 'sluice-status') as any;
    expect(lease().spec.holderIdentity).toBe(first === a ? 'serve-a' : 'serve-b');
    // Both keep running for several lease durations: the holder renews, the other stays out.
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMING.leaseDurationMs));
    expect([first.elector.leading, second.elector.leading]).toEqual([true, false]);

    await first.stop();
    reporters.splice(reporters.indexOf(first), 1);
    await until('the other replica holding the Lease', () => second.elector.leading);
    expect(lease().spec.holderIdentity).toBe(first === a ? 'serve-b' : 'serve-a');
    expect(lease().spec.leaseTransitions).toBe(1);
    double.put(virtualService('pay'));
    compileAndReport(second);
    await until('Accepted', () => vsStatus()?.state === 'Accepted');
    await second.writer.idle();
    expect([first.writer.writes, second.writer.writes]).toEqual([2, 1]);
  });

  test('a holder that died without releasing the Lease is replaced once the Lease runs out', async () => {
    double.put({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'sluice-status', namespace: NS },
      spec: { holderIdentity: 'serve-gone', leaseDurationSeconds: 1, leaseTransitions: 3 },
    });
    const r = reporter('serve-a');
    await until('the Lease', () => r.elector.leading);
    const lease = double.object('coordination.k8s.io/v1', 'Lease', NS, 'sluice-status') as any;
    expect([lease.spec.holderIdentity, lease.spec.leaseTransitions]).toEqual(['serve-a', 4]);
  });

  test("a kind whose CRD has no status subresource (Gloo's own CRDs) is tried once, then skipped; the others are written", async () => {
    await double.close();
    double = await KubeApiServer.start({ types: [TYPES[0]!, { ...TYPES[1]!, status: false }] });
    double.put(upstream);
    double.put(virtualService('pay'));
    const r = reporter('serve-a');
    await until('the Lease', () => r.elector.leading);
    compileAndReport(r);
    await until('Accepted', () => vsStatus()?.state === 'Accepted');
    await r.writer.idle();
    compileAndReport(r);
    await r.writer.idle();
    const upstreamRequests = double.requests.filter((q) => q.path.includes('/upstreams/pay'));
    expect(upstreamRequests.map((q) => `${q.method} ${q.path.endsWith('/status') ? 'status' : 'object'}`)).toEqual([
      'PUT status', // 404: no such subresource
      'GET object', // the object exists: the CRD has no status subresource
    ]);
    expect([usStatus(), r.writer.writes]).toEqual([undefined, 1]);
  });
});
