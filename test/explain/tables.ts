/**
 * The resources and request tables the explain tests share with the Envoy
 * end-to-end comparison (test/e2e/explain-envoy.test.ts): every status and
 * body of docs/envoy-behaviour.md, with the answer the docs give. The unit
 * test holds explain to these answers; the e2e test holds Envoy to explain's.
 */
import { createPublicKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey as JoseKey, type JWK } from 'jose';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import type { TestCase } from '../../compiler/explain/request-test.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { keyId } from '../../compiler/resolve/pem.js';
import { DEFAULT_OPTIONS, type CompileOptions } from '../../compiler/translate/output.js';
import { tempDir } from '../../harness/temp-dir.js';

export const LOCAL_ISSUER = 'https://local.issuer.test';
export const REMOTE_ISSUER = 'https://remote.issuer.test';
export const REMOTE_KID = 'remote-key-1';

export interface Keys {
  local: { publicKey: JoseKey; privateKey: JoseKey };
  remote: { publicKey: JoseKey; privateKey: JoseKey };
  stranger: { publicKey: JoseKey; privateKey: JoseKey };
  localPem: string;
  /** The key set a JWKS server serves for the remote provider. */
  remoteJwks: { keys: JWK[] };
}

export async function makeKeys(): Promise<Keys> {
  const local = await generateKeyPair('RS256', { extractable: true });
  const remote = await generateKeyPair('ES256', { extractable: true });
  const stranger = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(remote.publicKey)), kid: REMOTE_KID, alg: 'ES256', use: 'sig' };
  return { local, remote, stranger, localPem: await exportSPKI(local.publicKey), remoteJwks: { keys: [jwk] } };
}

const indent = (text: string, spaces: number) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');

const RBAC = `
      rbac:
        policies:
          pet-readers:
            permissions: { methods: [GET], pathPrefix: /pets }
            principals:
              - jwtPrincipal: { claims: { sub: alice } }`;

/** Hosts: local.test (inline key + RBAC), remote.test (remote key set + RBAC), both.test (either provider), open.test (nothing), csrf.test (a csrf policy; /shadow only counts). */
export function resources(keys: Keys, ports: { echo: number; jwks: number }): string {
  const route = `
    routes:
      - matchers: [{ prefix: / }]
        routeAction: { single: { upstream: { name: echo, namespace: e2e } } }`;
  const inline = `
          inline:
            issuer: ${LOCAL_ISSUER}
            jwks:
              local:
                key: |
${indent(keys.localPem, 18)}`;
  const keyserver = `
          keyserver:
            issuer: ${REMOTE_ISSUER}
            jwks:
              remote:
                url: http://127.0.0.1:${ports.jwks}/keys.json
                upstreamRef: { name: jwks, namespace: e2e }`;
  const vs = (name: string, providers: string, rbac: string) => `---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: ${name}, namespace: e2e }
spec:
  virtualHost:
    domains: [${name}.test]${route}
    options:
      jwt:
        providers:${providers}${rbac}
`;
  const csrf = `---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: csrf, namespace: e2e }
spec:
  virtualHost:
    domains: [csrf.test]
    routes:
      - matchers: [{ prefix: /shadow }]
        routeAction: { single: { upstream: { name: echo, namespace: e2e } } }
        options: { csrf: { shadowEnabled: { defaultValue: { numerator: 100 } } } }
      - matchers: [{ prefix: / }]
        routeAction: { single: { upstream: { name: echo, namespace: e2e } } }
    options:
      csrf:
        filterEnabled: { defaultValue: { numerator: 100, denominator: HUNDRED } }
        additionalOrigins: [{ exact: trusted.test }, { suffix: .partner.test }]
`;
  return `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: { name: echo, namespace: e2e }
spec: { static: { hosts: [{ addr: 127.0.0.1, port: ${ports.echo} }] } }
---
apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: { name: jwks, namespace: e2e }
spec: { static: { hosts: [{ addr: 127.0.0.1, port: ${ports.jwks} }] } }
${vs('local', inline, RBAC)}${vs('remote', keyserver, RBAC)}${vs('both', inline + keyserver, '')}---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: open, namespace: e2e }
spec:
  virtualHost:
    domains: [open.test]${route}
${csrf}`;
}

/** Compiles `yaml` as `sluice compile` does and returns what explain reads. */
export async function compileYaml(yaml: string, options: Partial<CompileOptions> = {}): Promise<GatewayConfig> {
  const dir = tempDir('explain');
  writeFileSync(path.join(dir, 'resources.yaml'), yaml);
  const result = await compileFiles([path.join(dir, 'resources.yaml')], {
    ...DEFAULT_OPTIONS,
    listenerAddress: '127.0.0.1',
    ...options,
  });
  const config = fromCompileResult(result);
  if (!config) throw new Error(result.diagnostics.map(formatDiagnostic).join('\n'));
  return config;
}

type Sign = {
  key?: JoseKey;
  alg?: string;
  kid?: string | null;
  iss?: string;
  sub?: string;
  exp?: number;
  nbf?: number;
};

/** The request tables: docs/envoy-behaviour.md's answers for each case. */
export async function jwtRbacCases(keys: Keys): Promise<TestCase[]> {
  const now = Math.floor(Date.now() / 1000);
  const hosts = [
    {
      host: 'local.test',
      issuer: LOCAL_ISSUER,
      key: keys.local.privateKey,
      alg: 'RS256',
      kid: keyId(createPublicKey(keys.localPem)),
      stranger: keys.stranger.privateKey,
    },
    {
      host: 'remote.test',
      issuer: REMOTE_ISSUER,
      key: keys.remote.privateKey,
      alg: 'ES256',
      kid: REMOTE_KID,
      stranger: (await generateKeyPair('ES256')).privateKey,
    },
  ];
  const cases: TestCase[] = [];
  for (const h of hosts) {
    const token = (o: Sign = {}) => {
      const kid = o.kid === null ? undefined : (o.kid ?? h.kid);
      const alg = o.alg ?? h.alg;
      const jwt = new SignJWT({ sub: o.sub ?? 'alice', ...(o.nbf ? { nbf: o.nbf } : {}) })
        .setProtectedHeader(kid ? { alg, kid } : { alg })
        .setIssuer(o.iss ?? h.issuer)
        .setIssuedAt(now - 60)
        .setExpirationTime(o.exp ?? now + 600);
      return jwt.sign(o.key ?? h.key);
    };
    const at = (p: string) => `http://${h.host}${p}`;
    const add = (
      name: string,
      method: string,
      url: string,
      jwt: string | undefined,
      expect: TestCase['expect'],
      headers?: Record<string, string>,
    ) =>
      cases.push({
        name: `${h.host}: ${name}`,
        request: { method, url, ...(jwt ? { jwt } : {}), ...(headers ? { headers } : {}) },
        expect,
      });
    add('no token: 401 Jwt is missing', 'GET', at('/pets/1'), undefined, { status: 401, body: 'Jwt is missing' });
    add(
      'Basic credentials are not a token',
      'GET',
      at('/pets/1'),
      undefined,
      { status: 401, body: 'Jwt is missing' },
      { Authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` },
    );
    add('good token in the header', 'GET', at('/pets/1'), await token(), { status: 'upstream' });
    add('good token without kid', 'GET', at('/pets/1'), await token({ kid: null }), { status: 'upstream' });
    add('good token in access_token', 'GET', at(`/pets/1?access_token=${await token()}`), undefined, {
      status: 'upstream',
    });
    add('wrong method: 403', 'DELETE', at('/pets/1'), await token(), { status: 403, body: 'RBAC: access denied' });
    add('path outside the prefix: 403', 'GET', at('/owners/1'), await token(), {
      status: 403,
      body: 'RBAC: access denied',
    });
    add('a dot segment does not escape the prefix: 403', 'GET', at('/pets/../owners/1'), await token(), {
      status: 403,
      body: 'RBAC: access denied',
    });
    add('an escaped slash is a redirect', 'GET', at('/pets%2F..%2Fowners/1'), await token(), { status: 307 });
    add('claims not matching: 403', 'GET', at('/pets/1'), await token({ sub: 'mallory' }), {
      status: 403,
      body: 'RBAC: access denied',
    });
    add('bad signature: 401', 'GET', at('/pets/1'), await token({ key: h.stranger }), {
      status: 401,
      body: 'Jwt verification fails',
    });
    add('no key with the kid: 401', 'GET', at('/pets/1'), await token({ kid: 'another-key' }), {
      status: 401,
      body: "Jwks doesn't have key to match kid or alg from Jwt",
    });
    add('wrong issuer: 401', 'GET', at('/pets/1'), await token({ iss: 'https://someone.else.test' }), {
      status: 401,
      body: 'Jwt issuer is not configured',
    });
    add('expired beyond the clock skew: 401', 'GET', at('/pets/1'), await token({ exp: now - 3600 }), {
      status: 401,
      body: 'Jwt is expired',
    });
    add('expired within the clock skew: accepted', 'GET', at('/pets/1'), await token({ exp: now - 20 }), {
      status: 'upstream',
    });
    add('not yet valid: 401', 'GET', at('/pets/1'), await token({ nbf: now + 3600 }), {
      status: 401,
      body: 'Jwt not yet valid',
    });
    add('not a JWT: 401', 'GET', at('/pets/1'), 'abc', {
      status: 401,
      body: 'Jwt is not in the form of Header.Payload.Signature with two dots and 3 sections',
    });
  }
  const both = async (iss: string, key: JoseKey, alg: string, exp = now + 600) =>
    new SignJWT({ sub: 'carol' }).setProtectedHeader({ alg }).setIssuer(iss).setExpirationTime(exp).sign(key);
  const add = (name: string, jwt: string | undefined, expect: TestCase['expect']) =>
    cases.push({
      name: `both.test: ${name}`,
      request: { method: 'GET', url: 'http://both.test/anything', ...(jwt ? { jwt } : {}) },
      expect,
    });
  add('a token of the inline provider', await both(LOCAL_ISSUER, keys.local.privateKey, 'RS256'), {
    status: 'upstream',
  });
  add('a token of the remote provider', await both(REMOTE_ISSUER, keys.remote.privateKey, 'ES256'), {
    status: 'upstream',
  });
  add('no token', undefined, { status: 401, body: 'Jwt is missing' });
  add('an issuer of neither provider', await both('https://someone.else.test', keys.local.privateKey, 'RS256'), {
    status: 401,
    body: 'Jwt issuer is not configured',
  });
  add('a forged token of the inline provider', await both(LOCAL_ISSUER, keys.stranger.privateKey, 'RS256'), {
    status: 401,
    body: 'Jwt verification fails',
  });
  add(
    'an expired token of the remote provider',
    await both(REMOTE_ISSUER, keys.remote.privateKey, 'ES256', now - 3600),
    { status: 401, body: 'Jwt is expired' },
  );
  cases.push({
    name: 'open.test: no options, any method',
    request: { method: 'DELETE', url: 'http://open.test/anything' },
    expect: { status: 'upstream' },
  });
  cases.push({
    name: 'open.test: a token is passed through',
    request: { method: 'GET', url: 'http://open.test/x', headers: { Authorization: 'Bearer not-even-a-jwt' } },
    expect: { status: 'upstream' },
  });
  cases.push({
    name: 'no virtual host claims the host: catch-all missing, 404',
    request: { method: 'GET', url: 'http://nobody.test/' },
    expect: { status: 404 },
  });
  return cases;
}

/** The csrf table: docs/envoy-behaviour.md's 403 `Invalid origin` and what passes the check. */
export function csrfCases(): TestCase[] {
  const denied = { status: 403, body: 'Invalid origin' } as const;
  const upstream = { status: 'upstream' } as const;
  const rows: [string, string, string, Record<string, string>, TestCase['expect']][] = [
    ['a POST from the same origin', 'POST', '/transfer', { Origin: 'http://csrf.test' }, upstream],
    ['a POST from another origin: 403', 'POST', '/transfer', { Origin: 'http://evil.test' }, denied],
    ['a DELETE from another origin: 403', 'DELETE', '/accounts/1', { Origin: 'http://evil.test' }, denied],
    ['a GET from another origin is not checked', 'GET', '/accounts/1', { Origin: 'http://evil.test' }, upstream],
    ['an OPTIONS from another origin is not checked', 'OPTIONS', '/transfer', { Origin: 'http://evil.test' }, upstream],
    ['a POST without Origin or Referer: 403', 'POST', '/transfer', {}, denied],
    [
      'a Referer of the same origin stands in for Origin',
      'POST',
      '/transfer',
      { Referer: 'http://csrf.test/form?x=1' },
      upstream,
    ],
    [
      'Origin comes before Referer',
      'POST',
      '/transfer',
      { Origin: 'http://evil.test', Referer: 'http://csrf.test/form' },
      denied,
    ],
    ['Origin null: 403', 'POST', '/transfer', { Origin: 'null' }, denied],
    ['another port is another origin: 403', 'POST', '/transfer', { Origin: 'http://csrf.test:8080' }, denied],
    ["the scheme's default port is no port", 'POST', '/transfer', { Origin: 'http://csrf.test:80' }, upstream],
    ['the host in capitals is the same origin', 'POST', '/transfer', { Origin: 'http://CSRF.test' }, upstream],
    [
      'an additional origin (exact), whatever its scheme',
      'POST',
      '/transfer',
      { Origin: 'https://trusted.test' },
      upstream,
    ],
    ['an additional origin (suffix)', 'PUT', '/transfer', { Origin: 'http://app.partner.test' }, upstream],
    [
      'a route whose policy only counts lets another origin through',
      'POST',
      '/shadow/transfer',
      { Origin: 'http://evil.test' },
      upstream,
    ],
  ];
  return rows.map(([name, method, path, headers, expect]) => ({
    name: `csrf.test: ${name}`,
    request: { method, url: `http://csrf.test${path}`, headers },
    expect,
  }));
}
