/**
 * oauth2.oidcAuthorizationCode end to end: a browser (cookie jar, redirects
 * followed, the provider's forms submitted) logs in at a real OpenID
 * provider through sluice-extauth asked over gRPC as Envoy asks it; the
 * session in an encrypted cookie or in a real Redis; refresh, expiry and
 * logout; the bad inputs a test each; nothing secret in the log.
 */
import { SHORT_TTL_S } from '../../harness/oidc-provider.js';
import { httpStatus } from './helpers.js';
import {
  APP,
  CLIENT_SECRET,
  compileConfig,
  headerOf,
  KEY_1,
  KEY_2,
  logIn,
  OTHER_APP,
  resources,
  sessionCookie,
  startSidecar,
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
  expect(setCookies.find((c) => c.startsWith('__session='))).toMatch(/; Path=\/; Max-Age=2592000; Secure; HttpOnly; SameSite=Lax$/);
  remember(seen.authorization!.slice(7), seen['x-id-token'], await sessionCookie(browser), new URL(callback.url).searchParams.get('code')!);
  // The session holds: the next request is allowed without the provider.
  const again = await browser.go(`${APP}/pets`);
  expect(again.status).toBe(200);
  expect(upstreamHeaders(again)['x-user']).toBe('alice');
});
