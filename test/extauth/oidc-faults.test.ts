/**
 * oauth2.oidcAuthorizationCode when what it depends on fails: the OpenID
 * provider down (discovery, code exchange) and Redis down (sessions kept
 * there) give the configured denial, never an allow, and the sidecar serves
 * again within 5 s of the dependency's return. Each dependency is really
 * stopped and started again on the same port.
 */
import { httpStatus } from './helpers.js';
import { startSidecar } from './helpers.js';
import { APP, logIn, sessionCookie, startWorld, type World } from './oidc-fixture.js';

let world: World;

beforeAll(async () => {
  world = await startWorld();
});

afterAll(async () => {
  await world?.close();
});

const HOST = { host: 'app.example.test' };

/** How long until `answer()` gives `status` (it must within 5 s). */
async function recovery(answer: () => Promise<number>, status: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if ((await answer()) === status) return Date.now() - start;
    if (Date.now() - start > 5000) throw new Error(`not ${status} within 5 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('provider down at the code exchange: 503, never a session; once it is back the same callback logs in', async () => {
  const browser = world.browser('default.cookie', [`${APP}/callback`]);
  const stopped = await browser.login(await browser.go(`${APP}/pets`), 'erin');
  const callback = new URL(stopped.url);
  const cookie = await browser.jar.getCookieString(callback.href);
  const ask = async () =>
    httpStatus(await world.check('default.cookie', { ':path': callback.pathname + callback.search, cookie }, HOST));
  await world.provider.stop();
  try {
    expect(await ask()).toBe(503);
  } finally {
    await world.provider.start();
  }
  // The code was never taken (the exchange did not reach the provider): the same callback logs in now.
  expect(await recovery(ask, 302)).toBeLessThanOrEqual(5000);
});

test('provider down when the sidecar starts: a request without a session is answered 503 (not a redirect to nowhere, never an allow); within 5 s of its return, the 302 to the provider', async () => {
  await world.provider.stop();
  const other = await startSidecar(world.configFile);
  const ask = async () => httpStatus(await other.check('default.cookie', { ':path': '/pets' }, HOST));
  try {
    for (let i = 0; i < 3; i++) expect(await ask()).toBe(503);
    await world.provider.start();
    expect(await recovery(ask, 302)).toBeLessThanOrEqual(5000);
  } finally {
    await world.provider.start();
    other.check.close();
    await other.sidecar.close();
  }
});

test('provider down at refresh time: 503, not an allow with expired tokens; back within 5 s', async () => {
  const browser = world.browser('default.refreshing');
  expect((await logIn(browser, 'frank')).status).toBe(200);
  const cookie = `__session=${await sessionCookie(browser)}`;
  await new Promise((r) => setTimeout(r, 2500));
  await world.provider.stop();
  const ask = async () => httpStatus(await world.check('default.refreshing', { ':path': '/pets', cookie }, HOST));
  try {
    expect(await ask()).toBe(503);
  } finally {
    await world.provider.start();
  }
  expect(await recovery(ask, 200)).toBeLessThanOrEqual(5000);
});

test('Redis down: failOnFetchFailure answers 503, the default a new login (302); never an allow; within 5 s of its return sessions are read again', async () => {
  const browser = world.browser('default.redis');
  expect((await logIn(browser, 'grace')).status).toBe(200);
  const cookie = `__session=${await sessionCookie(browser)}`;
  const ask = async (ref: string) => httpStatus(await world.check(ref, { ':path': '/pets', cookie }, HOST));
  expect(await ask('default.redis')).toBe(200);
  await world.redis.stop();
  try {
    expect(await ask('default.redis')).toBe(503);
    expect(await ask('default.redis-lenient')).toBe(302);
    // A login cannot finish either: the session cannot be stored.
    expect(await ask('default.redis')).toBe(503);
  } finally {
    await world.redis.start();
  }
  // Redis came back empty (nothing is saved to disk): the session is gone, so a new login, read from Redis again.
  expect(await recovery(() => ask('default.redis'), 302)).toBeLessThanOrEqual(5000);
  const again = world.browser('default.redis');
  expect((await logIn(again, 'grace')).status).toBe(200);
});

test('nothing secret is logged while dependencies fail', async () => {
  const log = world.log();
  expect(log).toMatch(/Redis unreachable/);
  expect(log).toMatch(/discovery failed|code exchange failed|refresh failed/);
  for (const s of world.secrets) expect(log.includes(s) ? s : '').toBe('');
});
