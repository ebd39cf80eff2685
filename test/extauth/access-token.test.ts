/**
 * oauth2.accessTokenValidation from AuthConfig resources to a decision:
 * `sluice compile`'s extauth.json drives the real sluice-extauth, asked over
 * its gRPC Check API as Envoy asks it. The tokens are real: oidc-provider
 * (harness/token-issuer.ts) issues them on loopback, introspects the opaque
 * ones and serves the keys of its JWTs at /jwks. A userinfo endpoint is an
 * HTTP server written here.
 */
import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { stringify } from 'yaml';
import { type RunningExtauth } from '../../extauth-server/server.js';
import { ISSUER_CLIENTS, startTokenIssuer, type TokenIssuer } from '../../harness/token-issuer.js';
import { closedPort, header, httpStatus, type Checker, compileConfig, startSidecar } from './helpers.js';

const INTROSPECTION = '/token/introspection';
const AUDIENCE = 'urn:petstore';

let issuer: TokenIssuer;
let server: RunningExtauth;
let check: Checker;
let log: () => string;
let userinfo: { port: number; seen: string[]; refuse: boolean; close(): Promise<void> };
/** The inline JWKS's private key and its kid. */
let localKey: { privateKey: CryptoKey; kid: string };
/** Every token a test used, to look for in the log. */
const tokens: string[] = [];

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const remember = (token: string) => (tokens.push(token), token);
const token = async (client: { id: string; secret: string }, options?: { scope?: string; resource?: string }) =>
  remember(await issuer.token(client, options));

/** A userinfo endpoint: 200 with the user's claims for a bearer token, 401 while `refuse` is set. */
async function userinfoServer(): Promise<typeof userinfo> {
  const seen: string[] = [];
  const srv = http.createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    if (!req.headers.authorization?.startsWith('Bearer ') || state.refuse) res.writeHead(401).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ email: 'ops@example.org' }));
  });
  const state: typeof userinfo = {
    port: 0,
    seen,
    refuse: false,
    close: () => new Promise((r) => (srv.closeAllConnections(), srv.close(() => r()))),
  };
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  state.port = (srv.address() as { port: number }).port;
  return state;
}

const authConfig = (name: string, accessTokenValidation: Record<string, unknown>) => ({
  apiVersion: 'enterprise.gloo.solo.io/v1',
  kind: 'AuthConfig',
  metadata: { name, namespace: 'default' },
  spec: { configs: [{ oauth2: { accessTokenValidation } }] },
});

async function resources(): Promise<string> {
  const closed = await closedPort();
  const introspection = {
    introspectionUrl: `${issuer.url}${INTROSPECTION}`,
    clientId: ISSUER_CLIENTS.gateway.id,
    clientSecretRef: { name: 'gateway-client' },
  };
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  localKey = { privateKey: privateKey as CryptoKey, kid: 'local-1' };
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: localKey.kid, alg: 'ES256' }] });
  const docs = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'gateway-client', namespace: 'default' },
      type: 'extauth.solo.io/oauth',
      stringData: { 'client-secret': ISSUER_CLIENTS.gateway.secret },
    },
    authConfig('introspected', {
      introspection: { ...introspection, userIdAttributeName: 'client_id' },
      requiredScopes: { scope: ['read', 'write'] },
      claimsToHeaders: [{ claim: 'scope', header: 'x-scopes' }],
    }),
    authConfig('uncached', { introspection, cacheTimeout: '0s' }),
    authConfig('cached', { introspection, cacheTimeout: '10m' }),
    authConfig('with-userinfo', { introspection, userinfoUrl: `http://127.0.0.1:${userinfo.port}/me` }),
    authConfig('jwt', {
      jwt: { remoteJwks: { url: `${issuer.url}/jwks` }, issuer: issuer.url, audiences: [AUDIENCE] },
      claimsToHeaders: [{ claim: 'client_id', header: 'x-client' }],
    }),
    authConfig('jwt-local', { jwt: { localJwks: { inlineString: jwks }, issuer: 'https://local.example' } }),
    authConfig('introspection-down', {
      introspection: { ...introspection, introspectionUrl: `http://127.0.0.1:${closed}${INTROSPECTION}` },
    }),
    authConfig('jwt-down', { jwt: { remoteJwks: { url: `http://127.0.0.1:${closed}/jwks` } } }),
  ];
  return docs.map((d) => stringify(d)).join('---\n');
}

beforeAll(async () => {
  [issuer, userinfo] = await Promise.all([startTokenIssuer(), userinfoServer()]);
  ({ sidecar: server, check, log } = await startSidecar(await compileConfig(await resources())));
});

afterAll(async () => {
  check?.close();
  await server?.close();
  await issuer?.close();
  await userinfo?.close();
});

describe('introspection (RFC 7662, with the gateway client credentials from the Secret)', () => {
  test('a token the provider issued: allowed, its client as x-user-id (userIdAttributeName), its scope as a header', async () => {
    const res = await check('default.introspected', bearer(await token(ISSUER_CLIENTS.api, { scope: 'read write' })));
    expect(httpStatus(res)).toBe(200);
    expect(header(res, 'x-user-id')).toBe(ISSUER_CLIENTS.api.id);
    expect(header(res, 'x-scopes')).toBe('read write');
  });

  test('a token the provider never issued: 403', async () => {
    expect(httpStatus(await check('default.introspected', bearer(remember('not-a-token-it-issued'))))).toBe(403);
  });

  test('no bearer token (none, or Basic credentials): 403, and the provider is not asked', async () => {
    const before = issuer.hits.get(INTROSPECTION) ?? 0;
    expect(httpStatus(await check('default.introspected'))).toBe(403);
    expect(httpStatus(await check('default.introspected', { authorization: 'Basic YTpi' }))).toBe(403);
    expect(issuer.hits.get(INTROSPECTION) ?? 0).toBe(before);
  });

  test('a token without one of the required scopes: 403', async () => {
    const res = await check('default.introspected', bearer(await token(ISSUER_CLIENTS.api, { scope: 'read' })));
    expect(httpStatus(res)).toBe(403);
  });

  test('an expired token: 403 (the provider says it is no longer active)', async () => {
    const t = await token(ISSUER_CLIENTS.shortLived, { scope: 'read' });
    expect(httpStatus(await check('default.uncached', bearer(t)))).toBe(200);
    await new Promise((r) => setTimeout(r, 3100));
    expect(httpStatus(await check('default.uncached', bearer(t)))).toBe(403);
  });

  test('cacheTimeout: a valid token is introspected once while it is kept; with 0s every time', async () => {
    const t = await token(ISSUER_CLIENTS.api);
    const asked = () => issuer.hits.get(INTROSPECTION) ?? 0;
    let before = asked();
    for (let i = 0; i < 3; i++) expect(httpStatus(await check('default.cached', bearer(t)))).toBe(200);
    expect(asked() - before).toBe(1);
    before = asked();
    for (let i = 0; i < 3; i++) expect(httpStatus(await check('default.uncached', bearer(t)))).toBe(200);
    expect(asked() - before).toBe(3);
  });

  test('userinfoUrl: asked with the valid token; its refusal is 403', async () => {
    const t = await token(ISSUER_CLIENTS.api);
    expect(httpStatus(await check('default.with-userinfo', bearer(t)))).toBe(200);
    expect(userinfo.seen).toContain(`Bearer ${t}`);
    userinfo.refuse = true;
    try {
      // Another token: a valid one's result is kept (cacheTimeout's default), userinfo's answer with it.
      expect(httpStatus(await check('default.with-userinfo', bearer(await token(ISSUER_CLIENTS.api))))).toBe(403);
    } finally {
      userinfo.refuse = false;
    }
  });

  test('the provider down: 503 (never OK), and allowed again within 5 s of its return', async () => {
    const t = await token(ISSUER_CLIENTS.api);
    await issuer.stop();
    try {
      expect(httpStatus(await check('default.uncached', bearer(t)))).toBe(503);
      expect(httpStatus(await check('default.introspection-down', bearer(t)))).toBe(503);
    } finally {
      await issuer.start();
    }
    const back = Date.now();
    let status = 0;
    while (status !== 200 && Date.now() - back < 5000) {
      status = httpStatus(await check('default.uncached', bearer(t)));
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });
});

describe('JWT access tokens', () => {
  test('a JWT the provider signed, checked against its JWKS (served at /jwks): allowed, a claim as a header', async () => {
    const res = await check('default.jwt', bearer(await token(ISSUER_CLIENTS.api, { resource: AUDIENCE })));
    expect(httpStatus(res)).toBe(200);
    expect(header(res, 'x-client')).toBe(ISSUER_CLIENTS.api.id);
  });

  test('a JWT for another audience: 403', async () => {
    const res = await check('default.jwt', bearer(await token(ISSUER_CLIENTS.api, { resource: 'urn:other' })));
    expect(httpStatus(res)).toBe(403);
  });

  test('an expired JWT: 403', async () => {
    const t = await token(ISSUER_CLIENTS.shortLived, { resource: AUDIENCE });
    await new Promise((r) => setTimeout(r, 3100));
    expect(httpStatus(await check('default.jwt', bearer(t)))).toBe(403);
  });

  test('an inline JWKS: a token its key signed is allowed; one signed by another key, or of another issuer, is 403', async () => {
    const sign = (key: CryptoKey, iss: string) =>
      new SignJWT({ scope: 'read' })
        .setProtectedHeader({ alg: 'ES256', kid: localKey.kid })
        .setIssuer(iss)
        .setExpirationTime('5m')
        .sign(key)
        .then(remember);
    const other = (await generateKeyPair('ES256')).privateKey as CryptoKey;
    expect(
      httpStatus(await check('default.jwt-local', bearer(await sign(localKey.privateKey, 'https://local.example')))),
    ).toBe(200);
    expect(httpStatus(await check('default.jwt-local', bearer(await sign(other, 'https://local.example'))))).toBe(403);
    expect(
      httpStatus(await check('default.jwt-local', bearer(await sign(localKey.privateKey, 'https://evil.example')))),
    ).toBe(403);
    expect(httpStatus(await check('default.jwt-local', bearer(remember('not.a.jwt'))))).toBe(403);
  });

  test('the JWKS unreachable: 503, never OK', async () => {
    const t = await token(ISSUER_CLIENTS.api, { resource: AUDIENCE });
    expect(httpStatus(await check('default.jwt-down', bearer(t)))).toBe(503);
  });
});

test('no token and no client secret is ever logged', () => {
  const text = log();
  expect(tokens.length).toBeGreaterThan(10);
  for (const t of tokens) expect(text).not.toContain(t);
  expect(text).not.toContain(ISSUER_CLIENTS.gateway.secret);
});
