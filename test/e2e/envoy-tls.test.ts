/**
 * End to end against a real Envoy: HTTPS by SNI. An ssl Gateway serves two
 * VirtualServices with their own certificates; the client's SNI picks the
 * certificate Envoy presents, one host requires a client certificate, and an
 * SNI no sslConfig names fails the handshake. Runs when ENVOY_BIN or `envoy`
 * on PATH exists; otherwise says so and skips. The compiled static bootstrap
 * (Secrets inlined) is checked either way. Certificates are made with openssl
 * for each run.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { staticBootstrap } from '../../compiler/emit/bootstrap.js';
import { serialize } from '../../compiler/emit/write.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS, type CompileOptions, type Json } from '../../compiler/translate/output.js';
import { verifyBootstrap } from '../../compiler/verify/verify.js';
import { closedPort } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';
import { testCa } from '../../harness/certs.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/envoy-tls.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

interface Pki {
  ca: string;
  a: { crt: string; key: string };
  b: { crt: string; key: string };
  client: { crt: string; key: string };
}

/** A CA and certificates it signs for a.example.com, b.example.com and a client, made in `dir`. */
function makePki(dir: string): Pki {
  const { ca, issue } = testCa(dir);
  return {
    a: issue('a', 'a.example.com'),
    b: issue('b', 'b.example.com'),
    client: issue('client', 'client.example.com'),
    ca: ca.crt,
  };
}

const indent = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

function resources(pki: Pki, ports: { echo: number; listener: number }): string {
  const secret = (name: string, pair: { crt: string; key: string }, ca?: string) => `apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: e2e}
type: kubernetes.io/tls
stringData:
  tls.crt: |
${indent(pair.crt)}
  tls.key: |
${indent(pair.key)}
${ca ? `  ca.crt: |\n${indent(ca)}\n` : ''}`;
  const vs = (name: string) => `apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: ${name}, namespace: e2e}
spec:
  sslConfig: {secretRef: {name: ${name}-tls}, sniDomains: [${name}.example.com]}
  virtualHost:
    domains: [${name}.example.com]
    routes:
      - routeAction: {single: {upstream: {name: echo}}}
`;
  return [
    `apiVersion: gateway.gateway.example/v1
kind: Gateway
metadata: {name: https, namespace: e2e}
spec:
  ssl: true
  bindAddress: 127.0.0.1
  bindPort: ${ports.listener}
  httpGateway: {}
`,
    `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: {name: echo, namespace: e2e}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: ${ports.echo}}]}
`,
    secret('a-tls', pki.a),
    // ca.crt: b.example.com requires a client certificate this CA signed.
    secret('b-tls', pki.b, pki.ca),
    vs('a'),
    vs('b'),
  ].join('---\n');
}

async function compileBootstrap(
  dir: string,
  pki: Pki,
  ports: { echo: number; listener: number; admin: number },
): Promise<Json> {
  writeFileSync(path.join(dir, 'resources.yaml'), resources(pki, ports));
  const options: CompileOptions = { ...DEFAULT_OPTIONS, adminPort: ports.admin };
  const result = await compileFiles([path.join(dir, 'resources.yaml')], options);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  const bootstrap = staticBootstrap(result.xds!, options);
  expect(verifyBootstrap(bootstrap).map(formatDiagnostic)).toEqual([]);
  return bootstrap;
}

test('the HTTPS configuration compiles to a static bootstrap with its Secrets inlined (with or without Envoy)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-tls-config-'));
  try {
    const bootstrap = await compileBootstrap(dir, makePki(dir), { echo: 1, listener: 2, admin: 3 });
    const secrets = ((bootstrap.static_resources as Json).secrets as Json[]).map((s) => s.name);
    expect(secrets).toEqual(['e2e/a-tls', 'e2e/b-tls', 'e2e/b-tls/ca.crt']);
    const text = serialize(bootstrap, 'yaml');
    // Static Secrets are named, not fetched over SDS.
    expect(text).not.toContain('sds_config');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Reply {
  status: number;
  body: string;
  /** CN of the certificate Envoy presented. */
  servedCn: string;
}

function get(port: number, sni: string, ca: string, client?: { crt: string; key: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/hello',
        servername: sni,
        ca,
        headers: { host: sni },
        ...(client ? { cert: client.crt, key: client.key } : {}),
        agent: false,
      },
      (res) => {
        const servedCn = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, servedCn }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describeWithEnvoy('Envoy serves HTTPS by SNI', () => {
  let dir: string;
  let pki: Pki;
  let envoy: RunningEnvoy | undefined;
  let echo: Server;
  let port = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-tls-'));
    pki = makePki(dir);
    echo = createServer((req, res) => res.end(`echo ${req.headers.host} ${req.url}`));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    port = await closedPort();
    const admin = await closedPort();
    const bootstrap = await compileBootstrap(dir, pki, {
      echo: (echo.address() as AddressInfo).port,
      listener: port,
      admin,
    });
    writeFileSync(path.join(dir, 'envoy.yaml'), serialize(bootstrap, 'yaml'));
    envoy = await startEnvoy(ENVOY!, path.join(dir, 'envoy.yaml'), admin);
  });

  afterAll(async () => {
    await envoy?.stop();
    echo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("SNI a.example.com: a.example.com's certificate, routed to the upstream", async () => {
    const r = await get(port, 'a.example.com', pki.ca);
    expect(r).toEqual({ status: 200, body: 'echo a.example.com /hello', servedCn: 'a.example.com' });
  });

  test("SNI b.example.com with a client certificate the CA signed: served with b.example.com's certificate", async () => {
    const r = await get(port, 'b.example.com', pki.ca, pki.client);
    expect(r).toEqual({ status: 200, body: 'echo b.example.com /hello', servedCn: 'b.example.com' });
  });

  test('SNI b.example.com without a client certificate: the connection is refused', async () => {
    await expect(get(port, 'b.example.com', pki.ca)).rejects.toThrow();
  });

  test('an SNI no sslConfig names: the handshake fails', async () => {
    await expect(get(port, 'c.example.com', pki.ca)).rejects.toThrow();
  });
});
