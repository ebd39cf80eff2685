/**
 * The generic ADS client against the project's own xDS server
 * (control-plane/) over real gRPC streams on 127.0.0.1: wildcard subscription,
 * ACK, NACK keeping the previous version, reconnect after the server
 * restarts on the same port, readiness.
 */
import pino from 'pino';
import { testLogger } from '../harness/log-check.js';
import * as grpc from '@grpc/grpc-js';
import { SnapshotCache } from '../control-plane/cache/cache.js';
import { XdsServer } from '../control-plane/server/server.js';
import { buildSnapshot } from '../control-plane/cache/snapshot.js';
import { AdsClient, decodeAnys } from './ads-client.js';
import { encodeMessage } from '../contract/codec.js';
import { TYPE_URL } from '../contract/names.js';

const T = TYPE_URL.authConfig;
const logger = process.env.DBG ? testLogger('debug', pino.destination(1)) : testLogger();

type Raw = Record<string, unknown>;
type Event = { node: string; typeUrl: string; version: string };

let cache: SnapshotCache;
let xds: XdsServer;
let port: number;
const clients: AdsClient<unknown>[] = [];

function authConfig(name: string, address = 'ldap://ldap:389') {
  return { name, configs: [{ ldap: { address, user_dn_template: 'uid=%s,dc=x', allowed_groups: ['cn=g,dc=x'] } }] };
}

/** Sets the served AuthConfigs; returns the type version they get. */
function push(...configs: Raw[]): string {
  const snapshot = buildSnapshot({ [T]: configs });
  cache.setSnapshot(snapshot);
  return snapshot.type(T)!.version;
}

/** The next `kind` event of `node` for the AuthConfig type (optionally of a version). */
function next(kind: 'ack' | 'nack' | 'push', node: string, version?: string): Promise<Event> {
  return new Promise((resolve) => {
    const on = (e: Event) => {
      if (e.node !== node || e.typeUrl !== T || (version !== undefined && e.version !== version)) return;
      xds.off(kind, on);
      resolve(e);
    };
    xds.on(kind, on);
  });
}

interface Recorder {
  client: AdsClient<Raw[]>;
  applied: string[][];
  /** When true, apply throws. */
  fail: { now: boolean };
}

function client(node: string, opts: { asyncApply?: boolean } = {}): Recorder {
  const applied: string[][] = [];
  const fail = { now: false };
  const c = new AdsClient<Raw[]>({
    address: `127.0.0.1:${port}`,
    node: { id: node, cluster: 'sluice-test' },
    typeUrl: T,
    logger,
    decode: (resources) => decodeAnys('sluice.extauth.v1.AuthConfig', resources),
    apply: opts.asyncApply
      ? async (set) => {
          await new Promise((r) => setImmediate(r));
          if (fail.now) throw new Error('cannot apply (async)');
          applied.push(set.map((r) => r.name as string));
        }
      : (set) => {
          if (fail.now) throw new Error('cannot apply');
          applied.push(set.map((r) => r.name as string));
        },
  });
  clients.push(c as AdsClient<unknown>);
  return { client: c, applied, fail };
}

async function startServer(at: number): Promise<void> {
  xds = new XdsServer(cache);
  port = await xds.listen('127.0.0.1', at);
}

beforeEach(async () => {
  cache = new SnapshotCache();
  await startServer(0);
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.stop();
  await xds.close();
});

test('subscribes to every resource of its type, applies the set and ACKs its version', async () => {
  const version = push(authConfig('ns.a'), authConfig('ns.b'));
  const { client: c, applied } = client('n-ack');
  const ack = next('ack', 'n-ack');
  c.start();
  expect((await ack).version).toBe(version);
  expect(applied).toEqual([['ns.a', 'ns.b']]);
  const status = xds.status().find((s) => s.node?.id === 'n-ack')!;
  expect(status.node).toMatchObject({ cluster: 'sluice-test', userAgent: 'sluice-test' });
  expect(status.types[T]).toMatchObject({ sent: version, acked: version });
});

test('hasConfig and whenConfigured: false and pending until a set is applied, not after a NACK', async () => {
  const { client: c, fail } = client('n-ready');
  let configured = false;
  void c.whenConfigured().then(() => (configured = true));
  // No snapshot yet: the request is handled and nothing is sent.
  const handled = new Promise<void>((resolve) =>
    xds.on('request', (e: { node: string }) => e.node === 'n-ready' && resolve()),
  );
  c.start();
  await handled;
  expect(c.hasConfig).toBe(false);
  fail.now = true;
  const nack = next('nack', 'n-ready');
  push(authConfig('ns.a'));
  await nack;
  expect([c.hasConfig, configured]).toEqual([false, false]);
  fail.now = false;
  const ack = next('ack', 'n-ready');
  push(authConfig('ns.b'));
  await ack;
  await c.whenConfigured();
  expect(c.hasConfig).toBe(true);
  await c.whenConfigured(); // resolved for later callers too
});

test('a set that fails to apply is NACKed with INVALID_ARGUMENT and the reason; the previous version stays', async () => {
  const v1 = push(authConfig('ns.a'));
  const { client: c, applied, fail } = client('n-nack');
  let ack = next('ack', 'n-nack');
  c.start();
  await ack;
  fail.now = true;
  const nack = next('nack', 'n-nack');
  const v2 = push(authConfig('ns.b'));
  expect((await nack).version).toBe(v2);
  expect(cache.lastNack('n-nack', T)?.errorDetail).toMatchObject({
    code: grpc.status.INVALID_ARGUMENT,
    message: 'cannot apply',
  });
  expect(c.hasConfig).toBe(true);
  // The NACK reported v1 as the version in force: serving v1 again sends nothing, so the next push is v3.
  fail.now = false;
  const pushes: string[] = [];
  xds.on('push', (e: Event) => e.node === 'n-nack' && pushes.push(e.version));
  push(authConfig('ns.a'));
  ack = next('ack', 'n-nack');
  const v3 = push(authConfig('ns.c'));
  expect((await ack).version).toBe(v3);
  expect(pushes).toEqual([v3]);
  expect(applied).toEqual([['ns.a'], ['ns.c']]);
  expect(v1).not.toBe(v3);
});

test('an apply that rejects, and a resource that does not decode, are NACKed; the stream lives on', async () => {
  const { client: c, applied, fail } = client('n-async', { asyncApply: true });
  fail.now = true;
  let nack = next('nack', 'n-async');
  push(authConfig('ns.a'));
  c.start();
  await nack;
  expect(cache.lastNack('n-async', T)?.errorDetail.message).toBe('cannot apply (async)');
  fail.now = false;
  // Bytes that are no AuthConfig (a string field cut short): decodeAnys throws.
  nack = next('nack', 'n-async');
  cache.setSnapshot(buildSnapshot({ [T]: [authConfig('ns.b')] }, () => Uint8Array.from([0x0a, 0x05, 0x61])));
  await nack;
  expect(cache.lastNack('n-async', T)?.errorDetail.message).toMatch(
    /^resource 0 is not a valid sluice\.extauth\.v1\.AuthConfig/,
  );
  const ack = next('ack', 'n-async');
  push(authConfig('ns.c'));
  await ack;
  expect(applied).toEqual([['ns.c']]);
});

test('reconnects when the server restarts on the same port, and gets the current set', async () => {
  push(authConfig('ns.a'));
  const { client: c, applied } = client('n-restart');
  const ack = next('ack', 'n-restart');
  c.start();
  await ack;
  const at = port;
  await xds.close();
  const v2 = push(authConfig('ns.a'), authConfig('ns.b'));
  await startServer(at);
  expect(port).toBe(at);
  expect((await next('ack', 'n-restart', v2)).version).toBe(v2);
  expect(applied).toEqual([['ns.a'], ['ns.a', 'ns.b']]);
});

test('a reconnecting client that has the current version is sent nothing until it changes', async () => {
  const v1 = push(authConfig('ns.a'));
  const { client: c, applied } = client('n-same');
  const ack = next('ack', 'n-same');
  c.start();
  await ack;
  const at = port;
  await xds.close();
  await startServer(at);
  // Its first request on the new stream carries v1 (held: nothing to send); the next set arrives normally.
  const pushes: string[] = [];
  xds.on('push', (e: Event) => e.node === 'n-same' && pushes.push(e.version));
  await new Promise<void>((resolve) => xds.on('request', (e: { node: string }) => e.node === 'n-same' && resolve()));
  const v2 = push(authConfig('ns.b'));
  await next('ack', 'n-same', v2);
  expect(pushes).toEqual([v2]);
  expect(applied).toEqual([['ns.a'], ['ns.b']]);
  expect(v1).not.toBe(v2);
});

describe('decodeAnys', () => {
  test('each Any as proto3 JSON with snake_case names; by type name or type URL', () => {
    const json = {
      name: 'ns.a',
      configs: [{ ldap: { address: 'ldap://l:389', user_dn_template: 'uid=%s', pool: { max_size: 3 } } }],
    };
    const value = encodeMessage(T, json);
    expect(decodeAnys('sluice.extauth.v1.AuthConfig', [{ type_url: T, value }])).toEqual([json]);
    expect(
      decodeAnys(T, [
        { type_url: T, value },
        { type_url: T, value },
      ]),
    ).toEqual([json, json]);
  });

  test('an Any of another type is refused, naming the resource and both types', () => {
    const value = encodeMessage(TYPE_URL.cluster, { name: 'c' });
    expect(() => decodeAnys('sluice.extauth.v1.AuthConfig', [{ type_url: TYPE_URL.cluster, value }])).toThrow(
      `resource 0 has type ${TYPE_URL.cluster}, want ${T}`,
    );
  });
});
