/**
 * `sluice-extauth --xds`: AuthConfigs come from the project's own ADS server
 * (compiler/xds) over a real gRPC stream; ACK, NACK (previous config kept)
 * and reconnect after the control plane restarts.
 */
import { once } from 'node:events';
import pino from 'pino';
import { SnapshotCache } from '../../compiler/xds/cache.js';
import { XdsServer } from '../../compiler/xds/server.js';
import { buildSnapshot } from '../../compiler/xds/snapshot.js';
import { TYPE_URL } from '../../compiler/translate/output.js';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, USER_DN_TEMPLATE, type Slapd } from '../fixtures/slapd.js';
import { basic, checker, httpStatus, type Checker } from './helpers.js';

const NODE = 'extauth-test';
let slapd: Slapd;
let cache: SnapshotCache;
let xds: XdsServer;
let xdsPort: number;
let server: RunningExtauth;
let check: Checker;

function authConfig(name: string, address: string, pool?: { initial_size: number; max_size: number }) {
  return { name, configs: [{ ldap: { address, user_dn_template: USER_DN_TEMPLATE, allowed_groups: [groupDn('developers')], ...(pool ? { pool } : {}) } }] };
}

function push(...configs: ReturnType<typeof authConfig>[]): void {
  cache.setSnapshot(buildSnapshot({ [TYPE_URL.authConfig]: configs }));
}

async function startXds(port: number): Promise<void> {
  xds = new XdsServer(cache);
  xdsPort = await xds.listen('127.0.0.1', port);
}

/** Resolves on the next ACK or NACK of the AuthConfig type by our node. */
function nextReply(): Promise<'ack' | 'nack'> {
  return new Promise((resolve) => {
    const onAck = (e: { node: string; typeUrl: string }) => e.node === NODE && e.typeUrl === TYPE_URL.authConfig && done('ack');
    const onNack = (e: { node: string; typeUrl: string }) => e.node === NODE && e.typeUrl === TYPE_URL.authConfig && done('nack');
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
  server = await startExtauth({ xds: `127.0.0.1:${xdsPort}`, nodeId: NODE, port: 0, adminPort: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
  check = checker(server.port);
});

afterAll(async () => {
  check?.close();
  await server?.close();
  await xds?.close();
  await slapd?.close();
});

test('not ready and fail closed until the first AuthConfigs arrive', async () => {
  expect((await fetch(`http://127.0.0.1:${server.adminPort}/readyz`)).status).toBe(503);
  expect(httpStatus(await check('default.users', alice))).toBe(500);
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

test('a later set replaces the whole set (state of the world)', async () => {
  const reply = nextReply();
  push(authConfig('default.other', slapd.url));
  expect(await reply).toBe('ack');
  expect(httpStatus(await check('default.other', alice))).toBe(200);
  expect(httpStatus(await check('default.users', alice))).toBe(500);
});

test('new pool settings for the same server replace its pool', async () => {
  const reply = nextReply();
  push(authConfig('default.other', slapd.url, { initial_size: 1, max_size: 1 }));
  expect(await reply).toBe('ack');
  await Promise.all([1, 2, 3].map(async () => expect(httpStatus(await check('default.other', alice))).toBe(200)));
  expect(server.authorizer.poolStats()).toEqual([expect.objectContaining({ server: slapd.url, size: 1 })]);
});

test('reconnects when the control plane restarts and gets the current set', async () => {
  const port = xdsPort;
  await xds.close();
  push(authConfig('default.users', slapd.url), authConfig('default.other', slapd.url));
  await startXds(port);
  await once(xds, 'ack');
  expect(httpStatus(await check('default.users', alice))).toBe(200);
});
