/**
 * Certificates over SDS under `sluice serve`: a real ADS client subscribes to
 * the HTTPS listener and the Secret it names; the Secret's file edited on disk
 * changes the Secret alone (the listener keeps its version, so Envoy would
 * not drain it); and no private key reaches the log, /status or an error.
 * Certificates are made with openssl for each run.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import type { CompileOutcome } from '../../control-plane/control.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { SotwClient } from '../../harness/xds-client.js';
import { TYPE_URL as T } from './fixtures.js';
import { testLogger } from '../../harness/log-check.js';
import { selfSignedCertificate } from '../../harness/certs.js';

const indent = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

function secret(pair: { crt: string; key: string }): string {
  return `apiVersion: v1
kind: Secret
metadata: {name: shop-tls, namespace: shop}
type: kubernetes.io/tls
stringData:
  tls.crt: |
${indent(pair.crt)}
  tls.key: |
${indent(pair.key)}
`;
}

const RESOURCES = `apiVersion: gateway.gateway.example/v1
kind: Gateway
metadata: {name: https, namespace: gloo-system}
spec:
  ssl: true
  bindPort: 8443
  httpGateway: {}
---
apiVersion: v1
kind: Service
metadata: {name: shop, namespace: shop}
spec:
  ports: [{port: 8080}]
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: shop, namespace: shop}
spec:
  sslConfig: {secretRef: {name: shop-tls}, sniDomains: [shop.example.com]}
  virtualHost:
    domains: [shop.example.com]
    routes:
      - routeAction: {single: {kube: {ref: {name: shop}, port: 8080}}}
`;

/** The base64 lines of a PEM key: what must never be seen outside the Secret. */
function keyLines(pem: string): string[] {
  return pem.split('\n').filter((l) => l && !l.startsWith('-----'));
}

function edit(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

function nextCompile(serving: Serving): Promise<CompileOutcome> {
  return new Promise((resolve) => {
    const on = (o: CompileOutcome) => {
      serving.control.off('compiled', on);
      resolve(o);
    };
    serving.control.on('compiled', on);
  });
}

let serving: Serving | undefined;
let client: SotwClient | undefined;
let dir: string | undefined;
afterEach(async () => {
  client?.close();
  await serving?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  serving = client = dir = undefined;
});

test('a Secret edited on disk is pushed over SDS alone; the listener keeps its version; no key in the log, /status or errors', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-sds-'));
  const first = selfSignedCertificate(dir, 'first', 'shop.example.com');
  const second = selfSignedCertificate(dir, 'second', 'shop.example.com');
  const other = selfSignedCertificate(dir, 'other', 'shop.example.com');
  writeFileSync(path.join(dir, 'resources.yaml'), RESOURCES);
  const secretFile = path.join(dir, 'secret.yaml');
  writeFileSync(secretFile, secret(first));

  let log = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((log += String(chunk)), done()) });
  serving = await startServe({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger('trace', sink),
    debounceMs: 20,
  });
  const s = serving;
  expect(s.firstCompile.ok).toBe(true);

  const c = (client = new SotwClient(s.xdsPort, 'envoy-tls'));
  c.send({ type_url: T.cluster });
  c.ack(await c.expect(T.cluster));
  c.send({ type_url: T.listener });
  const lds = await c.expect(T.listener);
  const chain = lds.resources[0].filter_chains[0];
  expect(chain.filter_chain_match.server_names).toEqual(['shop.example.com']);
  const sdsName = chain.transport_socket.typed_config.common_tls_context.tls_certificate_sds_secret_configs[0].name;
  expect(sdsName).toBe('shop/shop-tls');
  // The listener names the certificate; it does not carry it.
  expect(JSON.stringify(lds.resources)).not.toContain('BEGIN');
  c.ack(lds);
  c.send({ type_url: T.secret, resource_names: [sdsName] });
  const sds1 = await c.expect(T.secret);
  expect(sds1.resources[0].tls_certificate.certificate_chain.inline_string).toBe(first.crt.trim() + '\n');
  c.ack(sds1, [sdsName]);
  const listenerVersion = s.control.snapshot!.type(T.listener)!.version;

  // The rotation: a new certificate and key in the Secret's file.
  edit(secretFile, secret(second));
  const sds2 = await c.expect(T.secret);
  expect(sds2.version_info).not.toBe(sds1.version_info);
  expect(sds2.resources[0].tls_certificate.certificate_chain.inline_string).toBe(second.crt.trim() + '\n');
  c.ack(sds2, [sdsName]);
  expect(s.control.snapshot!.type(T.listener)!.version).toBe(listenerVersion);
  expect(c.inbox.pending).toBe(0);

  // A key that does not match its certificate: an error at the Secret, nothing pushed, no key shown.
  const failed = nextCompile(s);
  edit(secretFile, secret({ crt: second.crt, key: other.key }));
  expect((await failed).ok).toBe(false);
  const status = await (await fetch(`http://127.0.0.1:${s.adminPort}/status`)).text();
  expect(status).toMatch(/tls.key does not match the certificate/);
  for (const line of [...keyLines(first.key), ...keyLines(second.key), ...keyLines(other.key)]) {
    expect(log).not.toContain(line);
    expect(status).not.toContain(line);
  }
  // The log did record the failed compile, with its error.
  expect(log).toMatch(/does not match the certificate/);
  expect(log).not.toMatch(/PRIVATE KEY/);
  expect(status).not.toMatch(/PRIVATE KEY/);
});
