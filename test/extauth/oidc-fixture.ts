/**
 * The OIDC tests' world: a real OpenID provider (oidc-provider), a real
 * Redis (redis-server), AuthConfigs compiled from resources by `sluice
 * compile`, and sluice-extauth serving them over gRPC. A Browser reaches
 * the application through the gateway as Envoy's ext_authz filter does:
 * the sidecar asked for every request, the app answering allowed ones with
 * the headers the sidecar set, the client getting the sidecar's response
 * headers (a renewed session cookie) or its denial (302, 403, 503) as is.
 */
import { stringify } from 'yaml';
import type { Json } from '../../compiler/translate/output.js';
import { type RunningExtauth } from '../../extauth-server/server.js';
import { Browser, type Page } from '../../harness/browser.js';
import { startOpenIdProvider, type OpenIdProvider, type TestClient } from '../../harness/oidc-provider.js';
import { startRedis, type RedisServer } from '../../harness/redis.js';
import { httpStatus, type Checker, type CheckResponse, compileConfig, startSidecar } from './helpers.js';

export const APP = 'https://app.example.test';
export const OTHER_APP = 'https://other.example.test/cb';
export const CLIENT_SECRET = 'client-secret-of-sluice-0123456789';
export const KEY_1 = 'first-cookie-key-0123456789abcde';
export const KEY_2 = 'second-cookie-key-0123456789abcd';

export const CLIENTS: TestClient[] = [
  { clientId: 'sluice', clientSecret: CLIENT_SECRET, redirectUri: `${APP}/callback` },
  { clientId: 'short', clientSecret: CLIENT_SECRET, redirectUri: `${APP}/callback` },
  { clientId: 'other', clientSecret: 'other-secret-0123456789', redirectUri: OTHER_APP },
];

type HeaderList = { header: { key: string; value: string } }[];

export interface World {
  provider: OpenIdProvider;
  redis: RedisServer;
  /** The compiled extauth.json. */
  configFile: string;
  sidecar: RunningExtauth;
  check: Checker;
  log: () => string;
  /** Every token, cookie value and key the tests saw: none may be logged. */
  secrets: Set<string>;
  browser(configRef: string, stopAt?: string[]): Browser;
  close(): Promise<void>;
}

/** What the app behind the gateway saw: the headers the sidecar set. */
export function upstreamHeaders(page: Page): Record<string, string> {
  return JSON.parse(page.body) as Record<string, string>;
}

export function headerOf(page: Page, name: string): string | undefined {
  return page.headers.find(([k]) => k === name)?.[1];
}

function authConfig(name: string, oidc: Json): Json {
  return {
    apiVersion: 'enterprise.gloo.solo.io/v1',
    kind: 'AuthConfig',
    metadata: { name, namespace: 'default' },
    spec: { configs: [{ oauth2: { oidcAuthorizationCode: oidc } }] },
  };
}

/** The resources: one AuthConfig per way of keeping a session. */
export function resources(issuer: string, redis: string, tokenEndpoint: string, keys: Record<string, string>): string {
  const base = (clientId = 'sluice'): Json => ({
    appUrl: APP,
    callbackPath: '/callback',
    clientId,
    clientSecretRef: { name: 'oidc-client' },
    issuerUrl: issuer,
    scopes: ['email'],
    logoutPath: '/logout',
    afterLogoutUrl: `${APP}/bye`,
    headers: { idTokenHeader: 'x-id-token', accessTokenHeader: 'authorization', useBearerSchemaForAuthorization: true },
    identityToken: {
      claimsToHeaders: [
        { claim: 'sub', header: 'x-user' },
        { claim: 'email', header: 'x-email' },
      ],
    },
    session: { cipherConfig: { keyRef: { name: 'cookie-keys' } } },
  });
  const redisSession = (failOnFetchFailure: boolean): Json => ({
    failOnFetchFailure,
    redis: { options: { host: redis }, keyPrefix: 'sluice:' },
    cipherConfig: { keyRef: { name: 'cookie-keys' } },
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'extauth.solo.io/oauth',
      metadata: { name: 'oidc-client', namespace: 'default' },
      stringData: { 'client-secret': CLIENT_SECRET },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'gloo.solo.io.EncryptionKeySecret',
      metadata: { name: 'cookie-keys', namespace: 'default' },
      stringData: keys,
    },
    authConfig('cookie', base()),
    authConfig('refreshing', {
      ...base('short'),
      session: { cookie: { allowRefreshing: true }, cipherConfig: { keyRef: { name: 'cookie-keys' } } },
    }),
    authConfig('expiring', base('short')),
    authConfig('redis', { ...base(), session: redisSession(true) }),
    authConfig('redis-lenient', { ...base(), session: redisSession(false) }),
    authConfig('forged-token', { ...base(), discoveryOverride: { tokenEndpoint } }),
  ]
    .map((d) => stringify(d))
    .join('---\n');
}

/** Envoy's ext_authz filter in front of an app that echoes the headers it receives. */
export function gateway(check: Checker, configRef: string) {
  return async (url: URL, cookie: string): Promise<Page> => {
    const res = (await check(
      configRef,
      { ':path': url.pathname + url.search, ...(cookie ? { cookie } : {}) },
      { host: url.host },
    )) as CheckResponse & { ok_response?: { response_headers_to_add?: HeaderList } };
    const status = httpStatus(res);
    const pairs = (list: HeaderList | undefined) =>
      (list ?? []).map((h) => [h.header.key, h.header.value] as [string, string]);
    if (status === 200) {
      const upstream = Object.fromEntries(pairs(res.ok_response?.headers as HeaderList));
      return {
        url: url.href,
        status,
        headers: pairs(res.ok_response?.response_headers_to_add),
        body: JSON.stringify(upstream),
      };
    }
    return {
      url: url.href,
      status,
      headers: pairs(res.denied_response?.headers as HeaderList),
      body: res.denied_response?.body ?? '',
    };
  };
}

/** A fake token endpoint for `forged-token`: answers every code exchange with `answer()`. */
export async function tokenEndpoint(answer: () => Json) {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer()));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/token`, close: () => new Promise((r) => server.close(r)) };
}

export async function startWorld(
  forgedAnswer: () => Json = () => ({}),
  sidecarOptions: { otlpEndpoint?: string } = {},
): Promise<World & { forged: { close(): unknown } }> {
  const provider = await startOpenIdProvider(CLIENTS);
  const redis = await startRedis();
  const forged = await tokenEndpoint(forgedAnswer);
  const configFile = await compileConfig(resources(provider.issuer, redis.address, forged.url, { key: KEY_1 }));
  const { sidecar, check, log } = await startSidecar(configFile, sidecarOptions);
  const secrets = new Set<string>([CLIENT_SECRET, KEY_1, KEY_2]);
  return {
    provider,
    redis,
    forged,
    configFile,
    sidecar,
    check,
    log,
    secrets,
    browser: (configRef, stopAt) => new Browser(APP, gateway(check, configRef), stopAt),
    async close() {
      check.close();
      await sidecar.close();
      await forged.close();
      await redis.close();
      await provider.close();
    },
  };
}

/** Logs in through the provider's forms; the page the app answers at the end. */
export async function logIn(browser: Browser, user = 'alice', start = `${APP}/pets?sort=name`): Promise<Page> {
  const loginPage = await browser.go(start);
  return browser.login(loginPage, user);
}

/** The session cookie's value in the browser's jar. */
export async function sessionCookie(browser: Browser): Promise<string | undefined> {
  const cookies = await browser.jar.getCookies(APP);
  return cookies.find((c) => c.key === '__session')?.value;
}
