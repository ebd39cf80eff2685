/**
 * The webhook's certificate as serve runs it: self-signed replicas adding
 * their CAs to the ValidatingWebhookConfiguration's caBundle (through
 * client-node against the API server double), and a certificate directory
 * reloaded when cert-manager renews the Secret.
 */
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { KubeApiServer } from '../../harness/kube-apiserver.js';
import { testLogger } from '../../harness/log-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { startAdmission, type Admission } from './admission.js';
import { selfSignedCertificate, serviceDnsNames } from './admission-tls.js';

const NS = 'sluice-system';
const SERVICE = `sluice-webhook.${NS}.svc`;
const WEBHOOKS = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  plural: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
  unconditionalUpdate: true,
};

let double: KubeApiServer;
const running: Admission[] = [];

beforeEach(async () => {
  double = await KubeApiServer.start({ types: [WEBHOOKS] });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
  await double.close();
});

async function admission(
  source: { selfSigned: string } | { certDir: string },
  logger = testLogger(),
): Promise<Admission> {
  const a = await startAdmission({
    host: '127.0.0.1',
    port: 0,
    namespace: NS,
    ...source,
    kubeConfig: double.kubeConfig(),
    cluster: () => [],
    compileOptions: DEFAULT_OPTIONS,
    logger,
  });
  running.push(a);
  return a;
}

/** Whether a TLS client trusting `ca` (a PEM bundle) accepts the webhook's certificate for the Service's name. */
function trusted(port: number, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: '/validate', method: 'POST', ca, servername: SERVICE, agent: false },
      (res) => {
        res.resume();
        resolve(true);
      },
    );
    req.on('error', () => resolve(false));
    req.end('{}');
  });
}

const caBundles = () =>
  (
    (
      double.object(
        'admissionregistration.k8s.io/v1',
        'ValidatingWebhookConfiguration',
        undefined,
        'sluice-webhook',
      ) as any
    ).webhooks as any[]
  ).map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString());
const count = (bundle: string) => bundle.split('BEGIN CERTIFICATE').length - 1;

async function until(what: string, probe: () => Promise<boolean>, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("--webhook-self-signed: each replica's CA joins the caBundle of every webhook, and the API server's client trusts both", async () => {
  const webhook = (name: string) => ({
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    clientConfig: { service: { name: 'sluice-webhook', namespace: NS, path: '/validate' } },
  });
  double.put({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'sluice-webhook' },
    webhooks: [webhook('resources.sluice.gateway.example'), webhook('other.sluice.gateway.example')],
  } as never);
  const a = await admission({ selfSigned: 'sluice-webhook' });
  expect(caBundles().map(count)).toEqual([1, 1]);
  expect(await trusted(a.webhook.port, caBundles()[0]!)).toBe(true);

  const b = await admission({ selfSigned: 'sluice-webhook' });
  const [bundle, other] = caBundles();
  expect([count(bundle!), other]).toEqual([2, bundle]);
  expect([await trusted(a.webhook.port, bundle!), await trusted(b.webhook.port, bundle!)]).toEqual([true, true]);
  // A CA that is not in the bundle is not trusted: the check above can fail.
  const stranger = await selfSignedCertificate(serviceDnsNames('sluice-webhook', NS));
  expect(await trusted(a.webhook.port, stranger.ca)).toBe(false);
});

test('--webhook-cert-dir: tls.crt and tls.key served, and the renewed pair served once the directory changes', async () => {
  const dir = tempDir('webhook-certs');
  const write = (c: { cert: string; key: string }) => {
    writeFileSync(path.join(dir, 'tls.crt'), c.cert);
    writeFileSync(path.join(dir, 'tls.key'), c.key);
  };
  const first = await selfSignedCertificate(serviceDnsNames('sluice-webhook', NS));
  const renewed = await selfSignedCertificate(serviceDnsNames('sluice-webhook', NS));
  write(first);
  const warnings: string[] = [];
  const a = await admission(
    { certDir: dir },
    testLogger('warn', { write: (line: string) => void warnings.push(line) }),
  );
  expect([await trusted(a.webhook.port, first.ca), await trusted(a.webhook.port, renewed.ca)]).toEqual([true, false]);
  // The renewed certificate before its key: a pair that does not match is not taken, and serving goes on.
  writeFileSync(path.join(dir, 'tls.crt'), renewed.cert);
  await until('the mismatched pair refused', async () => warnings.some((w) => w.includes('not reloaded')));
  expect(await trusted(a.webhook.port, first.ca)).toBe(true);
  write(renewed);
  await until('the renewed certificate', () => trusted(a.webhook.port, renewed.ca));
  expect(await trusted(a.webhook.port, first.ca)).toBe(false);
});
