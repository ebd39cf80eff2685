/**
 * `sluice-extauth --xds`: AuthConfigs come from the project's own ADS server
 * (control-plane/) over a real gRPC stream; ACK, NACK (previous config kept)
 * and reconnect after the control plane restarts.
 */
import { once } from 'node:events';
import { SnapshotCache } from '../../control-plane/cache/cache.js';
import { XdsServer } from '../../control-plane/server/server.js';
import { buildSnapshot } from '../../control-plane/cache/snapshot.js';
import { TYPE_URL } from '../../contract/names.js';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { DEFAULT_POOL } from '../../extauth-server/config.js';
import { authConfigSource } from '../../extauth-server/xds.js';
import { startSlapd, groupDn, USER_DN_TEMPLATE, type Slapd } from '../../harness/slapd.js';
import { basic } from '../../harness/extauth-check.js';
import { authConfigOf, checker, httpStatus, ldapProxy, until, type Checker } from './helpers.js';
import { ldapModule } from '../../extauth-server/modules/ldap.js';
import { testLogger } from '../../harness/log-check.js';

const NODE = 'extauth-test';
let slapd: Slapd;
let cache: SnapshotCache;
let xds: XdsServer;
let xdsPort: number;
let server: RunningExtauth;
let check: Checker;

function authConfig(name: string, address: string, pool?: { initial_size: number; max_size: number }) {
  return {
    name,
    configs: [
      {
        ldap: {
          address,
          user_dn_template: USER_DN_TEMPLATE,
          allowed_groups: [groupDn('developers')],
          ...(pool ? { pool } : {}),
        },
      },
    ],
  };
}

function push(...configs: ReturnType<typeof authConfig>[]): void {
  cache.setSnapshot(buildSnapshot({ [TYPE_URL.authConfig]: configs }));
}

async function startXds(port: number): Promise<void> {
  xds = new XdsServer(cache);
  xdsPort = await xds.listen('127.0.0.1', port);
}

/** Resolves on the next ACK or NACK of the AuthConfig type by a node (ours by default). */
function nextReply(node = NODE): Promise<'ack' | 'nack'> {
  return new Promise((resolve) => {
    const onAck = (e: { node: string; typeUrl: string }) =>
      e.node === node && e.typeUrl === TYPE_URL.authConfig && done('ack');
    const onNack = (e: { node: string; typeUrl: string }) =>
      e.node === node && e.typeUrl === TYPE_URL.authConfig && done('nack');
    const done = (r: 'ack' | 'nack') => {
      xds.off('ack', onAck);
      xds.off('nack', onNack);
      resolve(r);
    };
    xds.on('ack', onAck);
    xds.on('nack', onNack);
  });
}

const alice = { authorization: basic('alice', 'alice-pw') };

beforeAll(async () => {
  slapd = await startSlapd();
  cache = new SnapshotCache();
  await startXds(0);
  server = await startExtauth({
    xds: `127.0.0.1:${xdsPort}`,
    nodeId: NODE,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    logger: testLogger(),
  });
  check = checker(server.port);
});

afterAll(async () => {
  check?.close();
  await server?.close();
  await xds?.close();
  await slapd?.close();
});

test('not ready and fail closed until the first AuthConfigs arrive: 503 (UNAVAILABLE), as a directory that is down', async () => {
  const readyz = await fetch(`http://127.0.0.1:${server.adminPort}/readyz`);
  expect(readyz.status).toBe(503);
  expect(await readyz.json()).toEqual({ status: 'not ready: no configuration from the control plane yet' });
  const res = await check('default.users', alice);
  expect(httpStatus(res)).toBe(503);
  expect(res.status).toEqual({ code: 14, message: 'not ready: no configuration from the control plane yet' });
});

test('applies and ACKs the pushed AuthConfigs', async () => {
  const reply = nextReply();
  push(authConfig('default.users', slapd.url));
  expect(await reply).toBe('ack');
  expect((await fetch(`http://127.0.0.1:${server.adminPort}/readyz`)).status).toBe(200);
  expect(httpStatus(await check('default.users', alice))).toBe(200);
  expect(httpStatus(await check('default.users', { authorization: basic('bob', 'bob-pw') }))).toBe(403);
});

test('NACKs a response it cannot use and keeps the previous configuration', async () => {
  const reply = nextReply();
  push(authConfig('default.users', 'http://not-ldap'), authConfig('default.other', slapd.url));
  expect(await reply).toBe('nack');
  expect(cache.lastNack(NODE, TYPE_URL.authConfig)?.errorDetail.message).toContain('is not ldap://host:port');
  expect(httpStatus(await check('default.users', alice))).toBe(200);
  expect(httpStatus(await check('default.other', alice))).toBe(500);
});

test('NACKs an address ldapts cannot open (port out of range) instead of crashing, and keeps the previous configuration', async () => {
  const reply = nextReply();
  push(authConfig('default.users', 'ldap://127.0.0.1:99999'), authConfig('default.other', slapd.url));
  expect(await reply).toBe('nack');
  expect(cache.lastNack(NODE, TYPE_URL.authConfig)?.errorDetail.message).toContain('outside 1-65535');
  expect(httpStatus(await check('default.users', alice))).toBe(200);
  expect(httpStatus(await check('default.other', alice))).toBe(500);
});

test('a set the authorizer cannot apply changes nothing: previous AuthConfigs and pools stay', async () => {
  const pools = server.authorizer.poolStats();
  // Past config parsing (which refuses it), as only a defect could deliver it.
  const bad = authConfigOf('default.bad', ldapModule, {
    address: 'ldap://127.0.0.1:99999',
    userDnTemplate: USER_DN_TEMPLATE,
    allowedGroups: [],
    searchFilter: '(uid=*)',
    membershipAttributeName: 'memberOf',
    pool: DEFAULT_POOL,
    disableGroupChecking: false,
  });
  expect(() => server.authorizer.setConfigs([bad])).toThrow();
  expect(server.authorizer.poolStats().map((p) => p.server)).toEqual(pools.map((p) => p.server));
  expect(httpStatus(await check('default.users', alice))).toBe(200);
});

test('a response whose configuration fails to apply is NACKed with the reason, and the stream lives on', async () => {
  const node = 'extauth-test-throwing';
  const applied: string[][] = [];
  let fail = true;
  const client = authConfigSource({
    address: `127.0.0.1:${xdsPort}`,
    nodeId: node,
    logger: testLogger(),
    poolDefaults: DEFAULT_POOL,
    apply: (c) => {
      if (fail) throw new Error('cannot apply');
      applied.push(c.map((x) => x.name));
    },
  });
  push(authConfig('default.other', slapd.url));
  try {
    const first = nextReply(node);
    client.start();
    expect(await first).toBe('nack');
    expect(cache.lastNack(node, TYPE_URL.authConfig)?.errorDetail.message).toContain('cannot apply');
    fail = false;
    const second = nextReply(node);
    push(authConfig('default.users', slapd.url));
    expect(await second).toBe('ack');
    expect(applied).toEqual([['default.users']]);
  } finally {
    client.stop();
  }
});

test('a later set replaces the whole set (state of the world)', async () => {
  const reply = nextReply();
  push(authConfig('default.other', slapd.url));
  expect(await reply).toBe('ack');
  expect(httpStatus(await check('default.other', alice))).toBe(200);
  // A config_ref the configuration in force lacks is the configuration's fault: 500, not "not ready".
  const gone = await check('default.users', alice);
  expect(httpStatus(gone)).toBe(500);
  expect(gone.status?.message).toBe('unknown config_ref "default.users"');
});

test('new pool settings for the same server replace its pool', async () => {
  const reply = nextReply();
  push(authConfig('default.other', slapd.url, { initial_size: 1, max_size: 1 }));
  expect(await reply).toBe('ack');
  await Promise.all([1, 2, 3].map(async () => expect(httpStatus(await check('default.other', alice))).toBe(200)));
  expect(server.authorizer.poolStats()).toEqual([expect.objectContaining({ server: slapd.url, size: 1 })]);
});

test('checks waiting for a connection when the pool settings change are served by the new pool', async () => {
  // The proxy holds slapd's replies, so the one connection of max_size 1 stays busy and the other checks wait.
  const proxy = await ldapProxy(slapd.port);
  const waiting = () => server.authorizer.poolStats().reduce((n, p) => n + (p.server === proxy.url ? p.waiting : 0), 0);
  try {
    let reply = nextReply();
    push(authConfig('default.proxied', proxy.url, { initial_size: 1, max_size: 1 }));
    expect(await reply).toBe('ack');
    proxy.hold();
    const checks = Array.from({ length: 6 }, () => check('default.proxied', alice));
    await until(() => waiting() >= 5);
    reply = nextReply();
    push(authConfig('default.proxied', proxy.url, { initial_size: 1, max_size: 2 }));
    expect(await reply).toBe('ack');
    proxy.release();
    expect((await Promise.all(checks)).map(httpStatus)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(server.authorizer.poolStats()).toEqual([expect.objectContaining({ server: proxy.url, size: 2 })]);
  } finally {
    await proxy.close();
  }
});

test('reconnects when the control plane restarts and gets the current set', async () => {
  const port = xdsPort;
  await xds.close();
  push(authConfig('default.users', slapd.url), authConfig('default.other', slapd.url));
  await startXds(port);
  await once(xds, 'ack');
  expect(httpStatus(await check('default.users', alice))).toBe(200);
});
