/**
 * Where sluice-ratelimit's rules come from: a --config file it follows
 * (an edit applied, a broken edit logged with the last good rules kept) and
 * the project's own ADS server over a real gRPC stream (not ready and
 * UNAVAILABLE before the first set, ACK, NACK with the previous rules kept,
 * a later set replacing the whole set). Against a real Redis.
 */
import * as grpc from '@grpc/grpc-js';
import { renameSync, writeFileSync } from 'node:fs';
import { SnapshotCache } from '../../control-plane/cache/cache.js';
import { XdsServer } from '../../control-plane/server/server.js';
import { buildSnapshot } from '../../control-plane/cache/snapshot.js';
import { TYPE_URL } from '../../contract/names.js';
import { startRedis, type RedisServer } from '../../harness/redis.js';
import { memoryLogger, until } from '../extauth/helpers.js';
import { startSidecar, writeDomains } from './helpers.js';

const domain = (name: string, perYear: number) => ({
  domain: name,
  descriptors: [{ key: 'generic_key', value: 'k', rate_limit: { unit: 'YEAR', requests_per_unit: perYear } }],
});

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.close();
});

/** Writes through a temporary file and a rename, as editors and `sluice compile -o` do. */
function edit(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

const count = (text: string, message: string) => text.split(message).length - 1;

test('--config: an edit applies; a broken edit is logged and the last good rules stay in force', async () => {
  const file = writeDomains([domain('files', 100)]);
  const logs = memoryLogger();
  const s = await startSidecar(redis.address, { config: file }, { logger: logs.logger });
  try {
    const limitOf = async (d: string) => (await s.call(d, [{ generic_key: 'k' }])).statuses[0]!.current_limit;
    expect(await limitOf('files')).toMatchObject({ requests_per_unit: 100 });
    edit(file, JSON.stringify({ domains: [domain('files', 7), domain('more', 3)] }));
    await until(() => count(logs.text(), 'configuration file applied') === 1);
    expect(await limitOf('files')).toMatchObject({ requests_per_unit: 7 });
    expect(await limitOf('more')).toMatchObject({ requests_per_unit: 3 });

    edit(file, '{"domains": [');
    await until(() => count(logs.text(), 'configuration file rejected') === 1);
    expect(logs.text()).toContain(`${file}: not JSON`);
    // A rule without a unit next to a good domain: nothing of the edit applies.
    const noUnit = { domain: 'files', descriptors: [{ key: 'generic_key', rate_limit: { requests_per_unit: 1 } }] };
    edit(file, JSON.stringify({ domains: [noUnit, domain('more', 1)] }));
    await until(() => count(logs.text(), 'configuration file rejected') === 2);
    expect(logs.text()).toContain('domains[0] files.descriptors[0].rate_limit.unit: required');
    expect(await limitOf('files')).toMatchObject({ requests_per_unit: 7 });
    expect(await limitOf('more')).toMatchObject({ requests_per_unit: 3 });
  } finally {
    await s.close();
  }
});

test('a --config file that does not parse stops the start with the reason', async () => {
  const file = writeDomains([{ domain: 'd', descriptors: [{ key: 'a' }, { key: 'a' }] }]);
  await expect(startSidecar(redis.address, { config: file })).rejects.toThrow(
    `${file}: domains[0] d.descriptors[1]: a second descriptor "a" at this level (d.a)`,
  );
});

describe('--xds', () => {
  const NODE = 'ratelimit-xds-test';
  let cache: SnapshotCache;
  let xds: XdsServer;
  let port: number;

  beforeAll(async () => {
    cache = new SnapshotCache();
    xds = new XdsServer(cache);
    port = await xds.listen('127.0.0.1', 0);
  });

  afterAll(async () => {
    await xds?.close();
  });

  const push = (...domains: unknown[]) =>
    cache.setSnapshot(buildSnapshot({ [TYPE_URL.rateLimitDomain]: domains as Record<string, unknown>[] }));

  function nextReply(): Promise<'ack' | 'nack'> {
    return new Promise((resolve) => {
      const on = (kind: 'ack' | 'nack') => (e: { node: string; typeUrl: string }) => {
        if (e.node !== NODE || e.typeUrl !== TYPE_URL.rateLimitDomain) return;
        xds.off('ack', onAck);
        xds.off('nack', onNack);
        resolve(kind);
      };
      const onAck = on('ack');
      const onNack = on('nack');
      xds.on('ack', onAck);
      xds.on('nack', onNack);
    });
  }

  test('not ready (UNAVAILABLE) before the first set; then ACKs, NACKs keeping the rules in force, replaces the whole set', async () => {
    const s = await startSidecar(redis.address, { xds: `127.0.0.1:${port}` }, { nodeId: NODE });
    try {
      const readyz = () => fetch(`http://127.0.0.1:${s.server.adminPort}/readyz`);
      expect((await readyz()).status).toBe(503);
      await expect(s.call('api', [{ generic_key: 'k' }])).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });

      let reply = nextReply();
      push(domain('api', 2), domain('other', 9));
      expect(await reply).toBe('ack');
      expect(await (await readyz()).json()).toEqual({ status: 'ready', redis: 'connected' });
      expect((await s.call('api', [{ generic_key: 'k' }])).statuses[0]).toMatchObject({ limit_remaining: 1 });

      reply = nextReply();
      push(domain('api', 5), {
        domain: 'other',
        descriptors: [{ key: 'x', rate_limit: { unlimited: true, unit: 'DAY' } }],
      });
      expect(await reply).toBe('nack');
      expect(cache.lastNack(NODE, TYPE_URL.rateLimitDomain)?.errorDetail.message).toBe(
        'resource 1 other.descriptors[0].rate_limit.unit: an unlimited rate limit has no unit',
      );
      expect((await s.call('api', [{ generic_key: 'k' }])).statuses[0]).toMatchObject({ limit_remaining: 0 });

      reply = nextReply();
      push(domain('api', 5));
      expect(await reply).toBe('ack');
      expect((await s.call('api', [{ generic_key: 'k' }])).statuses[0]).toMatchObject({
        current_limit: { requests_per_unit: 5 },
        limit_remaining: 2,
      });
      // "other" is gone with the new set: it limits nothing.
      expect((await s.call('other', [{ generic_key: 'k' }])).statuses[0]!.current_limit).toBeNull();
    } finally {
      await s.close();
    }
  });
});
