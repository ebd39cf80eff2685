/**
 * oauth2.oidcAuthorizationCode end to end: a browser (cookie jar, redirects
 * followed, the provider's forms submitted) logs in at a real OpenID
 * provider through sluice-extauth asked over gRPC as Envoy asks it; the
 * session in an encrypted cookie or in a real Redis; refresh, expiry and
 * logout; the bad inputs a test each; nothing secret in the log.
 */
import { SHORT_TTL_S } from '../../harness/oidc-provider.js';
import { compileConfig, httpStatus, startSidecar } from './helpers.js';
import {
  APP,
  headerOf,
  KEY_1,
  KEY_2,
  logIn,
  OTHER_APP,
  resources,
  sessionCookie,
  startWorld,
  upstreamHeaders,
  type World,
} from './oidc-fixture.js';

let world: World;
let forgedAnswer: Record<string, unknown> = {};

beforeAll(async () => {
  world = await startWorld(() => forgedAnswer);
});

afterAll(async () => {
  await world?.close();
});

const remember = (...values: (string | undefined)[]) => values.forEach((v) => v && world.secrets.add(v));

test('login: 302 to the provider with state, nonce and PKCE; login and consent there; back to the page first asked for with a session; tokens and claims upstream', async () => {
  const browser = world.browser('default.cookie');
  const first = await browser.go(`${APP}/pets?sort=name`).then(() => browser.visited[0]!);
  expect(first.status).toBe(302);
  const auth = new URL(headerOf(first, 'location')!);
  expect(auth.origin).toBe(world.provider.issuer);
  for (const p of ['state', 'nonce', 'code_challenge']) expect(auth.searchParams.get(p)).toMatch(/^[\w-]{20,}$/);
  expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
  expect(auth.searchParams.get('scope')).toBe('openid email');
  expect(auth.searchParams.get('redirect_uri')).toBe(`${APP}/callback`);
  const page = await browser.login(browser.visited.at(-1)!, 'alice');
  expect(page.status).toBe(200);
  expect(page.url).toBe(`${APP}/pets?sort=name`);
  const seen = upstreamHeaders(page);
  expect(seen['x-user']).toBe('alice');
  expect(seen['x-email']).toBe('alice@example.org');
  expect(seen.authorization).toMatch(/^Bearer \S+$/);
  expect(seen['x-id-token']!.split('.')).toHaveLength(3);
  const callback = browser.visited.find((p) => p.url.startsWith(`${APP}/callback`))!;
  const setCookies = callback.headers.filter(([k]) => k === 'set-cookie').map(([, v]) => v);
  expect(setCookies.find((c) => c.startsWith('__session='))).toMatch(
    /; Path=\/; Max-Age=2592000; Secure; HttpOnly; SameSite=Lax$/,
  );
  remember(
    seen.authorization!.slice(7),
    seen['x-id-token'],
    await sessionCookie(browser),
    new URL(callback.url).searchParams.get('code')!,
  );
  // The session holds: the next request is allowed without the provider.
  const again = await browser.go(`${APP}/pets`);
  expect(again.status).toBe(200);
  expect(upstreamHeaders(again)['x-user']).toBe('alice');
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Logs in up to the provider's redirect to the callback, without following it: the callback URL. */
async function upToCallback(configRef: string, start = `${APP}/pets`) {
  const browser = world.browser(configRef, [`${APP}/callback`]);
  const stopped = await browser.login(await browser.go(start), 'bob');
  expect(stopped.status).toBe(0);
  return { browser, callback: stopped.url };
}

test('refresh: once the access token expires, the refresh token gets new tokens and a renewed cookie; the request is allowed', async () => {
  const browser = world.browser('default.refreshing');
  const page = await logIn(browser, 'carol');
  expect(page.status).toBe(200);
  const before = upstreamHeaders(page).authorization;
  const cookieBefore = await sessionCookie(browser);
  await sleep(SHORT_TTL_S * 1000 + 500);
  const after = await browser.go(`${APP}/pets`);
  expect(after.status).toBe(200);
  expect(browser.visited.at(-1)!.url).toBe(`${APP}/pets`); // no trip to the provider's pages
  expect(upstreamHeaders(after).authorization).not.toBe(before);
  expect(headerOf(after, 'set-cookie')).toMatch(/^__session=/);
  const cookieAfter = await sessionCookie(browser);
  expect(cookieAfter).not.toBe(cookieBefore);
  remember(before?.slice(7), upstreamHeaders(after).authorization?.slice(7), cookieBefore, cookieAfter);
});

test('expired token: without refreshing, a session whose tokens expired is a new login (302 to the provider, the cookie cleared)', async () => {
  const browser = world.browser('default.expiring');
  expect((await logIn(browser)).status).toBe(200);
  remember(await sessionCookie(browser));
  await sleep(SHORT_TTL_S * 1000 + 500);
  const res = await world.check(
    'default.expiring',
    { ':path': '/pets', cookie: `__session=${await sessionCookie(browser)}` },
    { host: 'app.example.test' },
  );
  expect(httpStatus(res)).toBe(302);
  const headers = (res.denied_response?.headers ?? []).map((h) => h.header);
  expect(headers.find((h) => h.key === 'location')!.value.startsWith(world.provider.issuer)).toBe(true);
  expect(headers.some((h) => h.key === 'set-cookie' && /^__session=; .*Max-Age=0/.test(h.value))).toBe(true);
});

test('logout: the session ends (cookie cleared) and the browser goes to afterLogoutUrl; the next request logs in again', async () => {
  const browser = world.browser('default.cookie', [`${APP}/bye`]);
  expect((await logIn(browser)).status).toBe(200);
  remember(await sessionCookie(browser));
  const out = await browser.go(`${APP}/logout`);
  expect(out.url).toBe(`${APP}/bye`);
  expect(browser.visited.at(-1)!.status).toBe(302);
  expect(await sessionCookie(browser)).toBeUndefined();
  await browser.go(`${APP}/pets`).catch(() => undefined);
  const next = browser.visited.find((p, i) => i > 0 && p.url === `${APP}/pets`)!;
  expect(next.status).toBe(302);
  expect(headerOf(next, 'location')!.startsWith(world.provider.issuer)).toBe(true);
});

test('Redis sessions: the cookie holds a random id, the tokens are in Redis; logout deletes them there', async () => {
  const browser = world.browser('default.redis', [`${APP}/bye`]);
  const page = await logIn(browser, 'dave');
  expect(page.status).toBe(200);
  expect(upstreamHeaders(page)['x-user']).toBe('dave');
  const id = (await sessionCookie(browser))!;
  expect(id).toMatch(/^[\w-]{43}$/);
  const { Redis } = await import('ioredis');
  const redis = new Redis({ port: world.redis.port, host: '127.0.0.1' });
  try {
    const stored = await redis.get(`sluice:${id}`);
    expect(stored).toBeTruthy();
    // Sealed there too: no token readable in Redis.
    expect(stored).not.toContain(upstreamHeaders(page)['x-id-token']!.split('.')[1]);
    expect((await browser.go(`${APP}/pets`)).status).toBe(200);
    await browser.go(`${APP}/logout`);
    expect(await redis.get(`sluice:${id}`)).toBeNull();
  } finally {
    redis.disconnect();
  }
  remember(id, upstreamHeaders(page)['x-id-token'], upstreamHeaders(page).authorization?.slice(7));
});

test('key rotation, any replica: another sidecar given a new key first and the old one as previous-key opens the session cookie; one without the old key does not', async () => {
  const browser = world.browser('default.cookie');
  expect((await logIn(browser)).status).toBe(200);
  const cookie = (await sessionCookie(browser))!;
  remember(cookie);
  const rotated = await compileConfig(
    resources(world.provider.issuer, world.redis.address, 'http://127.0.0.1:1/token', {
      key: KEY_2,
      'previous-key': KEY_1,
    }),
  );
  const replaced = await compileConfig(
    resources(world.provider.issuer, world.redis.address, 'http://127.0.0.1:1/token', { key: KEY_2 }),
  );
  for (const [file, status] of [
    [rotated, 200],
    [replaced, 302],
  ] as const) {
    const other = await startSidecar(file);
    try {
      const res = await other.check(
        'default.cookie',
        { ':path': '/pets', cookie: `__session=${cookie}` },
        { host: 'app.example.test' },
      );
      expect(httpStatus(res)).toBe(status);
    } finally {
      other.check.close();
      await other.sidecar.close();
    }
  }
});

test('malformed or tampered session cookie: no session, a new login (302), never an error or an allow', async () => {
  const browser = world.browser('default.cookie');
  expect((await logIn(browser)).status).toBe(200);
  const cookie = (await sessionCookie(browser))!;
  remember(cookie);
  const flipped = cookie.slice(0, 30) + (cookie[30] === 'A' ? 'B' : 'A') + cookie.slice(31);
  for (const value of ['garbage', '', '%%%', flipped, cookie.slice(0, 40), 'A'.repeat(5000)]) {
    const res = await world.check(
      'default.cookie',
      { ':path': '/pets', cookie: `__session=${value}` },
      { host: 'app.example.test' },
    );
    expect(httpStatus(res)).toBe(302);
  }
  const redis = await world.check(
    'default.redis',
    { ':path': '/pets', cookie: '__session=../../etc' },
    { host: 'app.example.test' },
  );
  expect(httpStatus(redis)).toBe(302);
});

test('forged state: a callback whose state is not the one of the login in progress is refused (403), and without a login cookie too', async () => {
  const { browser, callback } = await upToCallback('default.cookie');
  const url = new URL(callback);
  remember(url.searchParams.get('code')!);
  url.searchParams.set('state', 'forged-state-value-0123456789');
  const res = await browser.go(url.href);
  expect(res.status).toBe(403);
  const bare = await world.check(
    'default.cookie',
    { ':path': new URL(callback).pathname + new URL(callback).search },
    { host: 'app.example.test' },
  );
  expect(httpStatus(bare)).toBe(403);
});

test('replayed code: the same callback again (login cookie kept by an attacker) is refused: the provider does not take a code twice', async () => {
  const { browser, callback } = await upToCallback('default.cookie');
  const loginCookie = (await browser.jar.getCookieString(`${APP}/callback`))
    .split('; ')
    .find((c) => c.startsWith('__session_login='))!;
  remember(new URL(callback).searchParams.get('code')!, loginCookie.split('=')[1]);
  expect((await browser.go(callback)).status).toBe(200);
  const path = new URL(callback).pathname + new URL(callback).search;
  const replay = await world.check(
    'default.cookie',
    { ':path': path, cookie: loginCookie },
    { host: 'app.example.test' },
  );
  expect(httpStatus(replay)).toBe(403);
  expect(replay.status?.message).toMatch(/invalid_grant/);
});

test('ID token for another audience: a token the provider signed for another client is refused (403)', async () => {
  // The provider's own ID token for client `other`, with the nonce of the sidecar's login in progress.
  const { browser, callback } = await upToCallback('default.forged-token');
  const nonce = new URL(
    browser.visited.find((p) => p.url.startsWith(world.provider.issuer + '/auth'))!.url,
  ).searchParams.get('nonce')!;
  const other = world.browser('none', [OTHER_APP]);
  const params = new URLSearchParams({
    client_id: 'other',
    response_type: 'code',
    scope: 'openid',
    redirect_uri: OTHER_APP,
    nonce,
    state: 'x'.repeat(20),
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const stopped = await other.login(await other.go(`${world.provider.issuer}/auth?${params}`), 'bob');
  const code = new URL(stopped.url).searchParams.get('code')!;
  const tokens = (await (
    await fetch(`${world.provider.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('other:other-secret-0123456789').toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: OTHER_APP,
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      }),
    })
  ).json()) as Record<string, unknown>;
  expect(typeof tokens.id_token).toBe('string');
  forgedAnswer = tokens;
  remember(tokens.id_token as string, tokens.access_token as string, tokens.refresh_token as string, code);
  const path = new URL(callback).pathname + new URL(callback).search;
  const res = await world.check(
    'default.forged-token',
    { ':path': path, cookie: await browser.jar.getCookieString(`${APP}/callback`) },
    { host: 'app.example.test' },
  );
  expect(httpStatus(res)).toBe(403);
  expect(res.status?.message).toMatch(/aud/);
});

test('no open redirect: a login started at //evil.example/x comes back to appUrl, not elsewhere', async () => {
  const browser = world.browser('default.cookie');
  const page = await logIn(browser, 'alice', `${APP}//evil.example/x`);
  expect(page.status).toBe(200);
  const back = browser.visited.find((p) => p.url.startsWith(`${APP}/callback`))!;
  expect(headerOf(back, 'location')).toBe(`${APP}/`);
});

test('nothing secret is logged: no token, code, cookie, client secret or key in the sidecar log', () => {
  const log = world.log();
  expect(log).toContain('check denied');
  expect(world.secrets.size).toBeGreaterThan(10);
  for (const s of world.secrets) expect(log.includes(s) ? s : '').toBe('');
});
