/**
 * `serve --kube` writing status and answering admission reviews, through
 * the real @kubernetes/client-node against the API server double, with a
 * real gRPC ADS client and an HTTPS client posting AdmissionReview JSON as
 * the API server does.
 */
import https from 'node:https';
import type { Serving } from '../../control-plane/run.js';
import { KubeApiServer, type KubeObject } from '../../harness/kube-apiserver.js';
import { testLogger } from '../../harness/log-check.js';
import { SotwClient } from '../../harness/xds-client.js';
import { TYPE_URL as T } from '../xds/fixtures.js';
import { crdTypes, endpointSlice, serveKube, service, virtualService } from './cluster.js';

const INSTALL = 'sluice-system';
const TIMING = { leaseDurationMs: 1_000, renewDeadlineMs: 700, retryPeriodMs: 100 };
const WEBHOOK_TYPE = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  plural: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
  unconditionalUpdate: true,
};

let double: KubeApiServer;
const servings: Serving[] = [];
const clients: SotwClient[] = [];

beforeEach(async () => {
  double = await KubeApiServer.start({ types: [...crdTypes(), WEBHOOK_TYPE] });
  double.put(service('web', 'shop', 8080, { app: 'shop' }));
  double.put(endpointSlice('web', 'shop', 8080, [{ ip: '10.1.0.1' }]));
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(servings.splice(0).map((s) => s.close()));
  await double.close();
});

async function serve(identity: string, webhook = false): Promise<Serving> {
  const serving = await serveKube(double, {
    logger: testLogger(),
    status: { lease: 'sluice-status', identity, timing: TIMING },
    ...(webhook ? { webhook: { port: 0, selfSigned: 'sluice-webhook' } } : {}),
  });
  servings.push(serving);
  return serving;
}

/** A VirtualService routing `/` to an Upstream in the install namespace (discovered ones are named `<ns>-<svc>-<port>`). */
const shopTo = (upstream: string) =>
  virtualService('web', 'shop', 'shop.example', [{ prefix: '/', upstream, upstreamNamespace: INSTALL }]);
const GOOD = 'web-shop-8080';

const vsStatus = () =>
  (double.object('gateway.solo.io/v1', 'VirtualService', 'web', 'shop')?.status as any)?.statuses?.[INSTALL];
const statusWrites = () => double.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/status')).length;

async function until<T>(what: string, probe: () => T | undefined | false, limitMs = 30_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Routes an ADS client is served now: the route configuration's clusters. */
async function servedClusters(s: Serving): Promise<string[]> {
  const client = new SotwClient(s.xdsPort, `status-${clients.length}`);
  clients.push(client);
  client.send({ type_url: T.listener });
  const lds = await client.expect(T.listener);
  const routeName = lds.resources[0].filter_chains[0].filters[0].typed_config.rds.route_config_name;
  client.send({ type_url: T.route, resource_names: [routeName] });
  const rds = await client.expect(T.route);
  return rds.resources[0].virtual_hosts.flatMap((v: any) => v.routes.map((r: any) => r.route.cluster));
}

test('a broken edit is Rejected in status with the message and the last good stays served; the fix is Accepted at its generation; nothing unchanged is written', async () => {
  double.put(shopTo(GOOD));
  const s = await serve('serve-a');
  await until('Accepted', () => vsStatus()?.state === 'Accepted');
  expect(vsStatus()).toEqual({ state: 'Accepted', reportedBy: 'sluice', observedGeneration: 1 });
  const served = await servedClusters(s);
  expect(served).toHaveLength(1);

  double.put(shopTo('nowhere'));
  await until('Rejected', () => vsStatus()?.state === 'Rejected');
  expect(vsStatus()).toEqual({
    state: 'Rejected',
    reason: expect.stringMatching(
      /^error\[resolve\]: VirtualService web\/shop: spec\.virtualHost\.routes\[0\]\.routeAction\.single\.upstream: Upstream sluice-system\/nowhere not found/,
    ),
    reportedBy: 'sluice',
    observedGeneration: 2,
  });
  // The last good configuration is what Envoy still gets.
  expect(await servedClusters(s)).toEqual(served);

  // Our own status writes come back through the watch and are compiled again: no further write.
  const writes = statusWrites();
  await s.control.recompile();
  await s.status!.writer.idle();
  expect(statusWrites()).toBe(writes);

  double.put(shopTo(GOOD));
  await until('Accepted again', () => vsStatus()?.observedGeneration === 3);
  expect(vsStatus()).toEqual({ state: 'Accepted', reportedBy: 'sluice', observedGeneration: 3 });
  expect(statusWrites()).toBe(writes + 1);
});

test('two serve replicas: exactly one writes status; when it stops, the other takes the Lease and writes', async () => {
  double.put(shopTo(GOOD));
  const a = await serve('serve-a');
  const b = await serve('serve-b');
  await until('Accepted', () => vsStatus()?.state === 'Accepted');
  const [holder, other] = await until('a holder', () =>
    a.status!.elector.leading ? [a, b] : b.status!.elector.leading ? [b, a] : undefined,
  );
  double.put(shopTo('nowhere'));
  await until('Rejected', () => vsStatus()?.state === 'Rejected');
  await Promise.all([holder.status!.writer.idle(), other.status!.writer.idle()]);
  expect(other.status!.writer.writes).toBe(0);
  expect(holder.status!.writer.writes).toBe(statusWrites());

  await holder.close();
  servings.splice(servings.indexOf(holder), 1);
  await until('the other replica holding the Lease', () => other.status!.elector.leading);
  double.put(shopTo(GOOD));
  await until('Accepted by the new holder', () => vsStatus()?.observedGeneration === 3);
  // The API server stores the status before its answer reaches the writer, which counts the write on the answer.
  await other.status!.writer.idle();
  expect(vsStatus().state).toBe('Accepted');
  expect(other.status!.writer.writes).toBe(1);
});

/** POSTs an AdmissionReview to serve's webhook as the API server does: TLS checked against the caBundle for the Service's name. */
function admissionReview(s: Serving, request: object): Promise<any> {
  const configuration = double.object(
    'admissionregistration.k8s.io/v1',
    'ValidatingWebhookConfiguration',
    undefined,
    'sluice-webhook',
  ) as any;
  const ca = Buffer.from(configuration.webhooks[0].clientConfig.caBundle, 'base64').toString();
  const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: s.admission!.webhook.port,
        path: '/validate',
        method: 'POST',
        ca,
        servername: `sluice-webhook.${INSTALL}.svc`,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString()).response));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const review = (uid: string, object: KubeObject, dryRun = false) => ({
  uid,
  kind: { group: 'gateway.solo.io', version: 'v1', kind: 'VirtualService' },
  resource: { group: 'gateway.solo.io', version: 'v1', resource: 'virtualservices' },
  name: object.metadata.name,
  namespace: object.metadata.namespace,
  operation: 'UPDATE',
  object,
  oldObject: double.object('gateway.solo.io/v1', 'VirtualService', 'web', 'shop'),
  dryRun,
});

test("the webhook refuses a bad VirtualService with the CLI's message, accepts a good one, honours dryRun, against what the watch holds", async () => {
  double.put({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'sluice-webhook' },
    webhooks: [
      {
        name: 'resources.sluice.gateway.example',
        clientConfig: { service: { name: 'sluice-webhook', namespace: INSTALL } },
      },
    ],
  } as never);
  double.put(shopTo(GOOD));
  const s = await serve('serve-a', true);

  const bad = await admissionReview(s, review('u1', shopTo('nowhere')));
  expect(bad.uid).toBe('u1');
  expect(bad.allowed).toBe(false);
  expect(bad.status.message).toMatch(
    /^VirtualService web\/shop does not compile with the cluster's resources:\nerror\[resolve\]: VirtualService web\/shop: spec\.virtualHost\.routes\[0\]\.routeAction\.single\.upstream: Upstream sluice-system\/nowhere not found/,
  );
  // The discovered Upstream exists only in the watch's view of the cluster (its Service): accepted.
  expect(await admissionReview(s, review('u2', shopTo(GOOD)))).toEqual({ uid: 'u2', allowed: true });

  const before = JSON.stringify(double.object('gateway.solo.io/v1', 'VirtualService', 'web', 'shop'));
  const dry = await admissionReview(s, review('u3', shopTo('nowhere'), true));
  expect({ ...dry, uid: 'u1' }).toEqual(bad);
  expect(JSON.stringify(double.object('gateway.solo.io/v1', 'VirtualService', 'web', 'shop'))).toBe(before);
});
