/**
 * End to end against a real Envoy: the JWT and RBAC answers of
 * docs/envoy-behaviour.md, including the cases the resource reference leaves open. Runs when ENVOY_BIN
 * or `envoy` on PATH exists; otherwise says so and skips. The compiled
 * configuration itself is checked either way.
 *
 * Everything runs on 127.0.0.1: Envoy, an upstream echo server, and a static
 * file server for the remote key set. Tokens are signed here with jose.
 */
import { createPublicKey } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey as JoseKey, type JWK } from 'jose';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { staticBootstrap } from '../../compiler/emit/bootstrap.js';
import { serialize } from '../../compiler/emit/write.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS, type CompileOptions, type Json } from '../../compiler/translate/output.js';
import { keyId } from '../../compiler/resolve/pem.js';
import { verifyBootstrap } from '../../compiler/verify/verify.js';
// Envoy cannot report an ephemeral port back, so it gets ports that were free a moment ago.
import { closedPort } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/envoy-jwt.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

const LOCAL_ISSUER = 'https://local.issuer.test';
const REMOTE_ISSUER = 'https://remote.issuer.test';
const REMOTE_KID = 'remote-key-1';

interface Keys {
  local: { publicKey: JoseKey; privateKey: JoseKey };
  remote: { publicKey: JoseKey; privateKey: JoseKey };
  stranger: { publicKey: JoseKey; privateKey: JoseKey };
}

async function makeKeys(): Promise<Keys> {
  return {
    local: await generateKeyPair('RS256', { extractable: true }),
    remote: await generateKeyPair('ES256', { extractable: true }),
    stranger: await generateKeyPair('RS256', { extractable: true }),
  };
}

const indent = (text: string, spaces: number) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');

/** The one RBAC policy both protected hosts carry: alice may GET under /pets. */
const RBAC = `
      rbac:
        policies:
          pet-readers:
            permissions:
              methods: [GET]
              pathPrefix: /pets
            principals:
              - jwtPrincipal:
                  claims:
                    sub: alice`;

function resources(localPem: string, echoPort: number, jwksPort: number): string {
  const route = `
    routes:
      - matchers: [{ prefix: / }]
        routeAction:
          single:
            upstream: { name: echo, namespace: e2e }`;
  return `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: { name: echo, namespace: e2e }
spec:
  static:
    hosts: [{ addr: 127.0.0.1, port: ${echoPort} }]
---
apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: { name: jwks, namespace: e2e }
spec:
  static:
    hosts: [{ addr: 127.0.0.1, port: ${jwksPort} }]
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: local, namespace: e2e }
spec:
  virtualHost:
    domains: [local.test]${route}
    options:
      jwt:
        providers:
          inline:
            issuer: ${LOCAL_ISSUER}
            jwks:
              local:
                key: |
${indent(localPem, 18)}${RBAC}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: remote, namespace: e2e }
spec:
  virtualHost:
    domains: [remote.test]${route}
    options:
      jwt:
        providers:
          keyserver:
            issuer: ${REMOTE_ISSUER}
            jwks:
              remote:
                url: http://jwks.test:${jwksPort}/keys.json
                upstreamRef: { name: jwks, namespace: e2e }${RBAC}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: both, namespace: e2e }
spec:
  virtualHost:
    domains: [both.test]${route}
    options:
      jwt:
        providers:
          inline:
            issuer: ${LOCAL_ISSUER}
            jwks:
              local:
                key: |
${indent(localPem, 18)}
          keyserver:
            issuer: ${REMOTE_ISSUER}
            jwks:
              remote:
                url: http://jwks.test:${jwksPort}/keys.json
                upstreamRef: { name: jwks, namespace: e2e }
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: open, namespace: e2e }
spec:
  virtualHost:
    domains: [open.test]${route}
`;
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function send(
  port: number,
  host: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: target, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Compiles the e2e resources as `sluice compile` would, with the listener and admin on loopback ports. */
async function compileBootstrap(
  dir: string,
  localPem: string,
  ports: { echo: number; jwks: number; listener: number; admin: number },
): Promise<Json> {
  writeFileSync(path.join(dir, 'resources.yaml'), resources(localPem, ports.echo, ports.jwks));
  // Tests bind loopback only (the default, 0.0.0.0, is what a pod needs).
  const options: CompileOptions = {
    ...DEFAULT_OPTIONS,
    listenerAddress: '127.0.0.1',
    listenerPort: ports.listener,
    adminPort: ports.admin,
  };
  const result = await compileFiles([path.join(dir, 'resources.yaml')], options);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  const bootstrap = staticBootstrap(result.xds!, options);
  expect(verifyBootstrap(bootstrap).map(formatDiagnostic)).toEqual([]);
  return bootstrap;
}

test('the end-to-end configuration compiles and passes the verifier (with or without Envoy)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-jwt-config-'));
  try {
    const keys = await makeKeys();
    const bootstrap = await compileBootstrap(dir, await exportSPKI(keys.local.publicKey), {
      echo: 1,
      jwks: 2,
      listener: 3,
      admin: 4,
    });
    const text = serialize(bootstrap, 'yaml');
    expect(text).toContain('envoy.filters.http.jwt_authn');
    expect(text).toContain('envoy.filters.http.rbac');
    expect(text).toContain('address: 127.0.0.1');
    expect(text).not.toContain('0.0.0.0');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describeWithEnvoy('Envoy answers JWT and RBAC requests as docs/envoy-behaviour.md says', () => {
  let dir: string;
  let keys: Keys;
  let envoy: RunningEnvoy | undefined;
  const servers: Server[] = [];
  let port = 0;
  let localPem = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-jwt-'));
    keys = await makeKeys();

    // Upstream: echoes what it received, so a test can tell the upstream answered and what it saw.
    const echo = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          upstream: 'echo',
          method: req.method,
          url: req.url,
          authorization: req.headers.authorization ?? null,
        }),
      );
    });
    // Static file server for the key set document (a plain static file server is enough).
    const jwk: JWK = { ...(await exportJWK(keys.remote.publicKey)), kid: REMOTE_KID, alg: 'ES256', use: 'sig' };
    writeFileSync(path.join(dir, 'keys.json'), JSON.stringify({ keys: [jwk] }));
    const jwks = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/keys.json') {
        res.setHeader('content-type', 'application/json');
        res.end(readFileSync(path.join(dir, 'keys.json')));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    servers.push(echo, jwks);
    const ports = {
      echo: await listen(echo),
      jwks: await listen(jwks),
      listener: await closedPort(),
      admin: await closedPort(),
    };
    port = ports.listener;

    localPem = await exportSPKI(keys.local.publicKey);
    const bootstrap = await compileBootstrap(dir, localPem, ports);
    const config = path.join(dir, 'envoy.yaml');
    writeFileSync(config, serialize(bootstrap, 'yaml'));

    // LIVE only after the initial remote key set fetch (async_fetch without fast_listener).
    envoy = await startEnvoy(ENVOY!, config, ports.admin);
  });

  afterAll(async () => {
    await envoy?.stop();
    for (const server of servers) server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const hosts = [
    // The local host's tokens name the key by the kid sluice derives from the PEM (Kubernetes' key id).
    {
      host: 'local.test',
      issuer: LOCAL_ISSUER,
      signer: () => keys.local.privateKey,
      alg: 'RS256',
      kid: () => keyId(createPublicKey(localPem)),
    },
    {
      host: 'remote.test',
      issuer: REMOTE_ISSUER,
      signer: () => keys.remote.privateKey,
      alg: 'ES256',
      kid: () => REMOTE_KID,
    },
  ];

  describe.each(hosts)('virtual host $host', ({ host, issuer, signer, alg, kid }) => {
    async function token(
      options: { sub?: string; iss?: string; key?: JoseKey; alg?: string; kid?: string | null; exp?: number } = {},
    ): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      const useKid = options.kid === null ? undefined : (options.kid ?? kid());
      const signAlg = options.alg ?? alg;
      return new SignJWT({ sub: options.sub ?? 'alice' })
        .setProtectedHeader(useKid ? { alg: signAlg, kid: useKid } : { alg: signAlg })
        .setIssuer(options.iss ?? issuer)
        .setIssuedAt(now - 60)
        .setExpirationTime(options.exp ?? now + 600)
        .sign(options.key ?? signer());
    }

    const expectLocalReply = (reply: Reply, status: number, body: string) => {
      expect({ status: reply.status, body: reply.body.toString('utf8') }).toEqual({ status, body });
      expect(reply.body.length).toBe(Buffer.byteLength(body));
      expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(reply.headers['content-type']).toBe('text/plain');
    };

    test('no token: 401 "Jwt is missing" (14 bytes)', async () => {
      const reply = await send(port, host, 'GET', '/pets/1');
      expectLocalReply(reply, 401, 'Jwt is missing');
      expect(reply.body.length).toBe(14);
    });

    test('Basic credentials are not a token: 401 "Jwt is missing"', async () => {
      const reply = await send(port, host, 'GET', '/pets/1', {
        authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}`,
      });
      expectLocalReply(reply, 401, 'Jwt is missing');
    });

    test('good token in the Authorization header: 200 from the upstream, which does not see the token', async () => {
      const reply = await send(port, host, 'GET', '/pets/1', { authorization: `Bearer ${await token()}` });
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body.toString('utf8'))).toEqual({
        upstream: 'echo',
        method: 'GET',
        url: '/pets/1',
        authorization: null,
      });
    });

    test('good token without kid (every key is tried): 200 from the upstream', async () => {
      const reply = await send(port, host, 'GET', '/pets/1', { authorization: `Bearer ${await token({ kid: null })}` });
      expect(reply.status).toBe(200);
    });

    test('good token in the access_token parameter: 200 from the upstream', async () => {
      const reply = await send(port, host, 'GET', `/pets/1?access_token=${await token()}`);
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({ upstream: 'echo', method: 'GET' });
    });

    test('wrong method: 403 "RBAC: access denied" (19 bytes)', async () => {
      const reply = await send(port, host, 'DELETE', '/pets/1', { authorization: `Bearer ${await token()}` });
      expectLocalReply(reply, 403, 'RBAC: access denied');
      expect(reply.body.length).toBe(19);
    });

    test('path outside the prefix: 403 "RBAC: access denied"', async () => {
      const reply = await send(port, host, 'GET', '/owners/1', { authorization: `Bearer ${await token()}` });
      expectLocalReply(reply, 403, 'RBAC: access denied');
    });

    test('a path that only looks like it is under the prefix (normalize_path): 403', async () => {
      const reply = await send(port, host, 'GET', '/pets/../owners/1', { authorization: `Bearer ${await token()}` });
      expectLocalReply(reply, 403, 'RBAC: access denied');
    });

    test('an escaped slash is redirected to the decoded path, never passed to the upstream', async () => {
      const reply = await send(port, host, 'GET', '/pets%2F..%2Fowners/1', {
        authorization: `Bearer ${await token()}`,
      });
      expect(reply.status).toBe(307);
      expect(reply.headers.location).not.toMatch(/%2f/i);
    });

    test('claims not matching: 403 "RBAC: access denied"', async () => {
      const reply = await send(port, host, 'GET', '/pets/1', {
        authorization: `Bearer ${await token({ sub: 'mallory' })}`,
      });
      expectLocalReply(reply, 403, 'RBAC: access denied');
    });

    test('bad signature: 401 "Jwt verification fails"', async () => {
      // Same kid and alg as the real key, so Envoy tries the key and the signature check fails.
      const reply = await send(port, host, 'GET', '/pets/1', {
        authorization: `Bearer ${await token({ key: alg === 'RS256' ? keys.stranger.privateKey : (await generateKeyPair('ES256')).privateKey })}`,
      });
      expectLocalReply(reply, 401, 'Jwt verification fails');
    });

    test('wrong issuer: 401 "Jwt issuer is not configured"', async () => {
      const reply = await send(port, host, 'GET', '/pets/1', {
        authorization: `Bearer ${await token({ iss: 'https://someone.else.test' })}`,
      });
      expectLocalReply(reply, 401, 'Jwt issuer is not configured');
    });

    test('expired (beyond the 60 s clock skew): 401 "Jwt is expired"', async () => {
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      const reply = await send(port, host, 'GET', '/pets/1', {
        authorization: `Bearer ${await token({ exp: hourAgo })}`,
      });
      expectLocalReply(reply, 401, 'Jwt is expired');
    });
  });

  describe('virtual host both.test: two providers, a token of either is accepted (requires_any)', () => {
    async function token(
      issuer: string,
      key: JoseKey,
      alg: string,
      exp = Math.floor(Date.now() / 1000) + 600,
    ): Promise<string> {
      return new SignJWT({ sub: 'carol' })
        .setProtectedHeader({ alg })
        .setIssuer(issuer)
        .setExpirationTime(exp)
        .sign(key);
    }
    const get = async (jwt?: string) =>
      send(port, 'both.test', 'GET', '/anything', jwt ? { authorization: `Bearer ${jwt}` } : {});
    const text = (reply: Reply) => ({
      status: reply.status,
      body: reply.status === 200 ? 'upstream' : reply.body.toString('utf8'),
    });

    test('a token of the inline provider: 200', async () => {
      expect(text(await get(await token(LOCAL_ISSUER, keys.local.privateKey, 'RS256')))).toEqual({
        status: 200,
        body: 'upstream',
      });
    });

    test('a token of the remote provider: 200', async () => {
      expect(text(await get(await token(REMOTE_ISSUER, keys.remote.privateKey, 'ES256')))).toEqual({
        status: 200,
        body: 'upstream',
      });
    });

    test('no token: 401 "Jwt is missing"', async () => {
      expect(text(await get())).toEqual({ status: 401, body: 'Jwt is missing' });
    });

    test('an issuer of neither provider: 401 "Jwt issuer is not configured"', async () => {
      expect(text(await get(await token('https://someone.else.test', keys.local.privateKey, 'RS256')))).toEqual({
        status: 401,
        body: 'Jwt issuer is not configured',
      });
    });

    // The provider the token was meant for gives the answer, not the other one's "issuer is not configured"
    // (Envoy pull requests 10385 and 15194, docs/envoy-behaviour.md).
    test('a forged token of the inline provider: 401 "Jwt verification fails"', async () => {
      expect(text(await get(await token(LOCAL_ISSUER, keys.stranger.privateKey, 'RS256')))).toEqual({
        status: 401,
        body: 'Jwt verification fails',
      });
    });

    test('an expired token of the remote provider: 401 "Jwt is expired"', async () => {
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      expect(text(await get(await token(REMOTE_ISSUER, keys.remote.privateKey, 'ES256', hourAgo)))).toEqual({
        status: 401,
        body: 'Jwt is expired',
      });
    });
  });

  test('a virtual host without options.jwt serves requests without a token', async () => {
    const reply = await send(port, 'open.test', 'DELETE', '/anything');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({
      upstream: 'echo',
      method: 'DELETE',
      url: '/anything',
    });
  });

  test('a token on a host without options.jwt is passed through untouched', async () => {
    const reply = await send(port, 'open.test', 'GET', '/x', { authorization: 'Bearer not-even-a-jwt' });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({ authorization: 'Bearer not-even-a-jwt' });
  });
});
