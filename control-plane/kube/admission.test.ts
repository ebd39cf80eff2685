/**
 * The admission webhook as the API server uses it: AdmissionReview v1 JSON
 * posted over HTTPS to /validate, the server's certificate checked against
 * the CA written into the caBundle, for the Service's DNS name.
 */
import https from 'node:https';
import { Compiler } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { testLogger } from '../../harness/log-check.js';
import type { AdmissionRequest, AdmissionReview, KubeObject } from './admission-review.js';
import { startWebhook, type Webhook } from './admission-server.js';
import { selfSignedCertificate, serviceDnsNames } from './admission-tls.js';
import { compileObjects } from './compile-objects.js';

const SERVICE = 'sluice-webhook.sluice-system.svc';

const upstream = (name: string, loadBalancerConfig: object): KubeObject => ({
  apiVersion: 'gloo.solo.io/v1',
  kind: 'Upstream',
  metadata: { name, namespace: 'shop', generation: 1, resourceVersion: '7' },
  spec: { static: { hosts: [{ addr: '10.0.1.1', port: 9080 }] }, loadBalancerConfig },
});
const virtualService = (name: string, upstreamName: string, options?: object): KubeObject => ({
  apiVersion: 'gateway.solo.io/v1',
  kind: 'VirtualService',
  // An update's object carries the stored version's resourceVersion, whatever its content.
  metadata: { name, namespace: 'shop', resourceVersion: '9' },
  spec: {
    virtualHost: {
      domains: [`${name}.example.com`],
      routes: [
        {
          matchers: [{ prefix: '/' }],
          routeAction: { single: { upstream: { name: upstreamName } } },
          ...(options ? { options } : {}),
        },
      ],
    },
  },
});

let cluster: KubeObject[] = [];
let webhook: Webhook;
let ca = '';
const checks: number[] = [];

beforeAll(async () => {
  const certificate = await selfSignedCertificate(serviceDnsNames('sluice-webhook', 'sluice-system'));
  ca = certificate.ca;
  const compiler = new Compiler(DEFAULT_OPTIONS);
  webhook = await startWebhook({
    host: '127.0.0.1',
    port: 0,
    certificate,
    cluster: () => cluster,
    check: async (objects) => {
      checks.push(objects.length);
      return compileObjects(compiler, objects).diagnostics;
    },
    logger: testLogger(),
  });
});
afterAll(() => webhook.close());
beforeEach(() => {
  cluster = [
    upstream('ring', { ringHash: {} }),
    upstream('least', { leastRequest: {} }),
    virtualService('shop', 'ring'),
  ];
});

/** POSTs an AdmissionReview as the API server does: TLS verified against the CA, for the Service's name. */
function post(body: unknown, path = '/validate'): Promise<{ status: number; body: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: webhook.port,
        path,
        method: 'POST',
        ca,
        servername: SERVICE,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

let uid = 0;
const request = (
  operation: AdmissionRequest['operation'],
  object: KubeObject,
  extra: Partial<AdmissionRequest> = {},
) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: `uid-${++uid}`,
    kind: { group: object.apiVersion.split('/')[0], version: 'v1', kind: object.kind },
    resource: { group: object.apiVersion.split('/')[0], version: 'v1', resource: 'virtualservices' },
    name: object.metadata.name,
    namespace: object.metadata.namespace,
    operation,
    ...(operation === 'DELETE' ? { oldObject: object, object: null } : { object }),
    ...extra,
  },
});

async function verdict(body: unknown): Promise<AdmissionReview['response']> {
  const { status, body: review } = await post(body);
  expect(status).toBe(200);
  expect([review.apiVersion, review.kind]).toEqual(['admission.k8s.io/v1', 'AdmissionReview']);
  expect(review.response.uid).toBe((body as { request: { uid: string } }).request.uid);
  return review.response;
}

describe('the admission webhook', () => {
  test('refuses a VirtualService that names a missing Upstream, with the CLI message naming resource and field', async () => {
    const response = await verdict(request('CREATE', virtualService('cart', 'nowhere')));
    expect(response.allowed).toBe(false);
    expect(response.status!.code).toBe(422);
    const lines = response.status!.message.split('\n');
    expect(lines[0]).toBe("VirtualService shop/cart does not compile with the cluster's resources:");
    expect(lines[1]).toMatch(
      /^error\[resolve\]: VirtualService shop\/cart: spec\.virtualHost\.routes\[0\]\.routeAction\.single\.upstream: Upstream shop\/nowhere not found/,
    );
    // The resource and field stand where the CLI prints file and line.
    expect(response.status!.message).not.toMatch(/\.yaml|:\d+:/);
  });

  test('accepts a good VirtualService, with no warnings', async () => {
    const response = await verdict(request('CREATE', virtualService('cart', 'least')));
    expect(response).toEqual({ uid: expect.any(String), allowed: true });
  });

  test("returns the object's warnings as admission warnings, and allows it", async () => {
    const response = await verdict(
      request('UPDATE', virtualService('shop', 'least', { lbHash: { hashPolicies: [{ header: 'x-user' }] } })),
    );
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual([
      expect.stringMatching(
        /^warning\[resolve\]: VirtualService shop\/shop: spec\.virtualHost\.routes\[0\]\.options\.lbHash: Envoy ignores hash policies for Upstream shop\/least \(leastRequest\)/,
      ),
    ]);
    expect(response.warnings![0]!.length).toBeLessThanOrEqual(256);
  });

  test('a dry run gets the same answer, and changes nothing', async () => {
    const before = JSON.stringify(cluster);
    const bad = virtualService('cart', 'nowhere');
    const real = await verdict(request('CREATE', bad));
    const dry = await verdict(request('CREATE', bad, { dryRun: true }));
    expect({ ...dry, uid: '' }).toEqual({ ...real, uid: '' });
    expect(JSON.stringify(cluster)).toBe(before);
  });

  test('an update that breaks a resource is refused; the same update fixing it is allowed', async () => {
    cluster[2] = virtualService('shop', 'nowhere');
    expect((await verdict(request('UPDATE', virtualService('shop', 'nowhere')))).allowed).toBe(false);
    expect((await verdict(request('UPDATE', virtualService('shop', 'ring')))).allowed).toBe(true);
  });

  test('an edit unrelated to a resource the cluster already has broken is allowed', async () => {
    cluster.push(virtualService('broken', 'nowhere'));
    expect((await verdict(request('CREATE', virtualService('cart', 'ring')))).allowed).toBe(true);
  });

  test('deleting an Upstream a VirtualService routes to is refused with the broken reference; an unused one may go', async () => {
    const refused = await verdict(request('DELETE', cluster[0]!));
    expect(refused.allowed).toBe(false);
    expect(refused.status!.message).toMatch(/^deleting Upstream shop\/ring does not compile/);
    expect(refused.status!.message).toMatch(/VirtualService shop\/shop: .*Upstream shop\/ring not found/);
    expect((await verdict(request('DELETE', cluster[1]!))).allowed).toBe(true);
  });

  test('kinds Sluice does not read are allowed without a compile', async () => {
    const before = checks.length;
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'shop' } };
    expect((await verdict(request('CREATE', configMap))).allowed).toBe(true);
    expect(checks.length).toBe(before);
  });

  test('what is not an AdmissionReview v1 is a 400; another path a 404', async () => {
    expect((await post({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} })).status).toBe(
      400,
    );
    expect((await post(request('CREATE', virtualService('cart', 'ring')), '/mutate')).status).toBe(404);
  });
});
