/**
 * passThroughAuth's tlsConfig against real TLS servers on 127.0.0.1 (an
 * HTTPS server and a gRPC server, each asking for a client certificate),
 * with a CA and certificates made for the test: the sidecar verifies the
 * service against the config's CA and presents its client certificate.
 * Without the client certificate, with only the system's roots, or over
 * plain text, the check fails closed (503).
 */
import * as grpc from '@grpc/grpc-js';
import https from 'node:https';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { authorizationService } from '../../extauth-server/protos.js';
import { testCa } from '../../harness/certs.js';
import { writeConfig } from '../../harness/extauth-check.js';
import { testLogger } from '../../harness/log-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { checker, httpStatus, type Checker } from './helpers.js';

let web: https.Server;
let rpc: grpc.Server;
let sidecar: RunningExtauth;
let check: Checker;

beforeAll(async () => {
  const { ca, issue } = testCa(tempDir('pass-through-tls'));
  const server = issue('server', '127.0.0.1');
  const client = issue('client', 'sluice-extauth');
  web = https.createServer(
    { cert: server.crt, key: server.key, ca: ca.crt, requestCert: true, rejectUnauthorized: true },
    (req, res) => void req.resume().on('end', () => res.end()),
  );
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  rpc = new grpc.Server();
  rpc.addService(authorizationService(), {
    Check: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { status: { code: 0 } }),
  });
  const rpcPort = await new Promise<number>((resolve, reject) =>
    rpc.bindAsync(
      '127.0.0.1:0',
      grpc.ServerCredentials.createSsl(
        Buffer.from(ca.crt),
        [{ cert_chain: Buffer.from(server.crt), private_key: Buffer.from(server.key) }],
        true,
      ),
      (err, p) => (err ? reject(err) : resolve(p)),
    ),
  );
  const url = `https://127.0.0.1:${(web.address() as { port: number }).port}/check`;
  const mtls = { ca_pem: ca.crt, cert_pem: client.crt, key_pem: client.key };
  const service = (name: string, protocol: Record<string, unknown>) => ({
    name,
    configs: [{ pass_through_auth: protocol }],
  });
  const grpcAddress = `127.0.0.1:${rpcPort}`;
  const file = await writeConfig([
    service('default.https-mtls', { http: { url, tls: mtls } }),
    service('default.https-tls13', { http: { url, tls: { ...mtls, min_version: 'TLSv1.3' } } }),
    service('default.https-no-client-cert', { http: { url, tls: { ca_pem: ca.crt } } }),
    service('default.https-system-roots', { http: { url, tls: { cert_pem: client.crt, key_pem: client.key } } }),
    service('default.grpc-mtls', { grpc: { address: grpcAddress, tls: mtls } }),
    service('default.grpc-no-client-cert', { grpc: { address: grpcAddress, tls: { ca_pem: ca.crt } } }),
    service('default.grpc-plain', { grpc: { address: grpcAddress, timeout_ms: 2000 } }),
  ]);
  sidecar = await startExtauth({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: testLogger(),
  });
  check = checker(sidecar.port);
});

afterAll(async () => {
  check?.close();
  await sidecar?.close();
  rpc?.forceShutdown();
  web?.closeAllConnections();
  await new Promise((r) => web?.close(r));
});

test.each([
  ['default.https-mtls', 200],
  ['default.https-tls13', 200],
  ['default.https-no-client-cert', 503],
  ['default.https-system-roots', 503],
  ['default.grpc-mtls', 200],
  ['default.grpc-no-client-cert', 503],
  ['default.grpc-plain', 503],
])('%s: %s', async (config, expected) => {
  expect(httpStatus(await check(config, {}))).toBe(expected);
});
