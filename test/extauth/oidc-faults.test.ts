/**
 * oauth2.oidcAuthorizationCode when what it depends on fails: the OpenID
 * provider down (discovery, code exchange) and Redis down (sessions kept
 * there) give the configured denial, never an allow, and the sidecar serves
 * again once the dependency is back (how long it took is printed: the
 * reconnects are at most a second apart). Each dependency is really
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
/** Asks until the answer is `status`, and prints how long that took (waits up to 60 s: a busy machine is slow; the figure is reported, not judged). */
async function recovery(what: string, answer: () => Promise<number>, status: number): Promise<void> {
  const start = Date.now();
  for (;;) {
    if ((await answer()) === status) {
      console.log(`${what}: ${status} again after ${Date.now() - start} ms`);
      return;
    }
    if (Date.now() - start > 60_000) throw new Error(`not ${status} within 60 s`);
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
  await recovery('provider back after a failed code exchange', ask, 302);
});

test('provider down when the sidecar starts: a request without a session is answered 503 (not a redirect to nowhere, never an allow); once it is back, the 302 to the provider', async () => {
  await world.provider.stop();
  const other = await startSidecar(world.configFile);
  const ask = async () => httpStatus(await other.check('default.cookie', { ':path': '/pets' }, HOST));
  try {
    for (let i = 0; i < 3; i++) expect(await ask()).toBe(503);
    await world.provider.start();
    await recovery('provider back after a start without it', ask, 302);
  } finally {
    await world.provider.start();
    other.check.close();
    await other.sidecar.close();
  }
});

test('provider down at refresh time: 503, not an allow with expired tokens; 200 once it is back', async () => {
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
  await recovery('provider back at refresh', ask, 200);
});

test('Redis down: failOnFetchFailure answers 503, the default a new login (302); never an allow; once it is back sessions are read again', async () => {
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
  await recovery('Redis back', () => ask('default.redis'), 302);
  const again = world.browser('default.redis');
  expect((await logIn(again, 'grace')).status).toBe(200);
});

test('nothing secret is logged while dependencies fail', async () => {
  const log = world.log();
  expect(log).toMatch(/Redis unreachable/);
  expect(log).toMatch(/discovery failed|code exchange failed|refresh failed/);
  for (const s of world.secrets) expect(log.includes(s) ? s : '').toBe('');
});
