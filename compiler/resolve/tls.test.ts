/**
 * TLS Secrets through the real pipeline: base64 `data` is read and its errors
 * point at the data key's line; the IR dump and the written files keep the
 * private key to their owner; certificate names cover IP and wildcard domains.
 * Certificates are made with openssl for each run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.js';
import { renderOutput, writeFiles } from '../emit/write.js';
import { dumpIr } from '../ir/dump.js';
import { compileFiles } from '../pipeline.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sluice-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function certificate(name: string, san: string): { crt: string; key: string } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${san}`,
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  return {
    crt: readFileSync(path.join(dir, `${name}.crt`), 'utf8'),
    key: readFileSync(path.join(dir, `${name}.key`), 'utf8'),
  };
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

function input(name: string, secret: { crt: string; key: string }, domains: string[]): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `apiVersion: gateway.gateway.example/v1
kind: Gateway
metadata: {name: https, namespace: t}
spec: {ssl: true, bindPort: 8443, httpGateway: {}}
---
apiVersion: v1
kind: Secret
metadata: {name: tls, namespace: t}
type: kubernetes.io/tls
data:
  tls.crt: ${b64(secret.crt)}
  tls.key: ${b64(secret.key)}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: vs, namespace: t}
spec:
  sslConfig: {secretRef: {name: tls}}
  virtualHost:
    domains: [${domains.map((d) => JSON.stringify(d)).join(', ')}]
    routes: [{directResponseAction: {status: 200}}]
`,
  );
  return file;
}

const keyLines = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----'));

test('a Secret in base64 data: compiled, the key redacted in --dump-ir, the bootstrap written for its owner only', async () => {
  const good = certificate('good', 'DNS:*.example.com,IP:10.0.0.1');
  const result = await compileFiles(
    [input('good', good, ['shop.example.com', '*.example.com', '10.0.0.1'])],
    DEFAULT_OPTIONS,
  );
  // IP and wildcard domains are covered: no warning.
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  const ir = dumpIr(result.ir!);
  expect(ir).toContain('privateKey: <redacted>');
  for (const line of keyLines(good.key)) expect(ir).not.toContain(line);

  const out = path.join(dir, 'out');
  await writeFiles(out, renderOutput(result.xds!, DEFAULT_OPTIONS, 'yaml'));
  expect(readFileSync(path.join(out, 'envoy.yaml'), 'utf8')).toContain(keyLines(good.key)[0]);
  expect(statSync(path.join(out, 'envoy.yaml')).mode & 0o777).toBe(0o600);
});

test("a key of another certificate in base64 data: an error at the data key's line that shows no key", async () => {
  const good = certificate('good2', 'DNS:shop.example.com');
  const other = certificate('other', 'DNS:shop.example.com');
  const file = input('mismatch', { crt: good.crt, key: other.key }, ['shop.example.com']);
  const result = await compileFiles([file], DEFAULT_OPTIONS);
  const errors = result.diagnostics.map(formatDiagnostic);
  expect(errors).toEqual([
    `${file}:12: error[resolve]: Secret t/tls: data["tls.key"]: tls.key does not match the certificate in tls.crt (the first one, the server's own) — put the private key of that certificate in tls.key, or its certificate first in tls.crt`,
  ]);
});

test('a certificate not covering a domain is a warning naming it', async () => {
  const narrow = certificate('narrow', 'DNS:shop.example.com');
  const file = input('narrow', narrow, ['shop.example.com', 'api.example.com']);
  const result = await compileFiles([file], DEFAULT_OPTIONS);
  expect(result.xds).toBeDefined();
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([
    `${file}:18: warning[resolve]: VirtualService t/vs: spec.sslConfig.secretRef: the certificate of Secret t/tls does not cover "api.example.com": clients will refuse the connection — issue a certificate whose subject alternative names include every domain and sniDomain of the VirtualService`,
  ]);
});
