/**
 * sluice-ratelimit against a real Redis (Debian's redis-server), called by a
 * gRPC client built from Envoy's rls.proto: a limit reached exactly at N
 * across two replicas sharing Redis, window rollover, nested descriptors,
 * wildcards, unlimited, shadow mode, Gloo's set descriptors and rule
 * weights, the x-ratelimit headers and refused requests.
 */
import * as grpc from '@grpc/grpc-js';
import { startRedis, type RedisServer } from '../../harness/redis.js';
import { SET_DESCRIPTOR_MARKER } from '../../contract/ratelimit.js';
import { metricsOf, sample, startSidecar, writeDomains, type Sidecar } from './helpers.js';

const DOMAIN = {
  domain: 'api',
  descriptors: [
    // YEAR: no window boundary falls inside a test run (the next is at a multiple of 365 days since 1970).
    { key: 'generic_key', value: 'ten', rate_limit: { unit: 'YEAR', requests_per_unit: 10 } },
    { key: 'second', rate_limit: { unit: 'SECOND', requests_per_unit: 2 } },
    {
      key: 'remote_address',
      rate_limit: { unit: 'YEAR', requests_per_unit: 5 },
      descriptors: [
        { key: 'path', value: '/login', rate_limit: { unit: 'YEAR', requests_per_unit: 1, name: 'login' } },
      ],
    },
    { key: 'path', value: '/files/*', rate_limit: { unit: 'YEAR', requests_per_unit: 2 } },
    { key: 'tenant', value: 'internal', rate_limit: { unlimited: true } },
    { key: 'tenant', rate_limit: { unit: 'YEAR', requests_per_unit: 1 } },
    { key: 'trial', rate_limit: { unit: 'YEAR', requests_per_unit: 1 }, shadow_mode: true },
    // Priority: only the heaviest matching rules count, and those that always apply.
    { key: 'plan', value: 'free', rate_limit: { unit: 'YEAR', requests_per_unit: 1 }, weight: 1 },
    { key: 'user', rate_limit: { unit: 'YEAR', requests_per_unit: 1 } },
    { key: 'ip', rate_limit: { unit: 'YEAR', requests_per_unit: 2 }, always_apply: true },
  ],
  set_descriptors: [
    {
      simple_descriptors: [{ key: 'plan', value: 'BASIC' }, { key: 'account_id' }],
      rate_limit: { unit: 'YEAR', requests_per_unit: 1 },
    },
    {
      simple_descriptors: [{ key: 'account_id' }],
      rate_limit: { unit: 'YEAR', requests_per_unit: 3 },
      always_apply: true,
    },
    { rate_limit: { unit: 'YEAR', requests_per_unit: 100 } },
  ],
};

let redis: RedisServer;
let a: Sidecar;
let b: Sidecar;

beforeAll(async () => {
  redis = await startRedis();
  const file = writeDomains([DOMAIN]);
  a = await startSidecar(redis.address, { config: file }, { responseHeaders: true });
  b = await startSidecar(redis.address, { config: file });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.close();
});

test('a limit is reached exactly at N across two replicas sharing Redis', async () => {
  const answers = await Promise.all(
    Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).call('api', [{ generic_key: 'ten' }])),
  );
  const ok = answers.filter((r) => r.overall_code === 'OK');
  expect(ok).toHaveLength(10);
  expect(answers.filter((r) => r.overall_code === 'OVER_LIMIT')).toHaveLength(6);
  // Each OK saw its own count: remaining 9 down to 0, once each.
  expect(ok.map((r) => r.statuses[0]!.limit_remaining).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(ok[0]!.statuses[0]!.current_limit).toEqual({ requests_per_unit: 10, unit: 'YEAR', name: '' });
});

test('a SECOND window rolls over: over the limit in one second, counted afresh in the next', async () => {
  let last;
  do last = await a.call('api', [{ second: 'rollover' }]);
  while (last.overall_code === 'OK');
  expect(last.statuses[0]).toMatchObject({
    code: 'OVER_LIMIT',
    limit_remaining: 0,
    duration_until_reset: { seconds: 1 },
  });
  // The window of that answer ended at the latest with the second we are in now.
  const second = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === second) await new Promise((r) => setTimeout(r, 20));
  const next = await a.call('api', [{ second: 'rollover' }]);
  expect(next.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 1 });
});

test('nested descriptors: the deepest rule at the last entry; a parent rule counts its own descriptor', async () => {
  const login = [
    ['remote_address', '10.0.0.1'],
    ['path', '/login'],
  ] as [string, string][];
  expect((await a.call('api', [login])).statuses[0]).toMatchObject({
    code: 'OK',
    limit_remaining: 0,
    current_limit: { requests_per_unit: 1, name: 'login' },
  });
  expect((await b.call('api', [login])).overall_code).toBe('OVER_LIMIT');
  // Another path under the same address: no rule at the last entry, nothing counted.
  const other = await a.call('api', [
    [
      ['remote_address', '10.0.0.1'],
      ['path', '/other'],
    ],
  ]);
  expect(other.statuses[0]).toMatchObject({ code: 'OK', current_limit: null });
  // The address alone has its own counter, per value (the rule has no value).
  expect((await a.call('api', [{ remote_address: '10.0.0.1' }])).statuses[0]!.limit_remaining).toBe(4);
  expect((await a.call('api', [{ remote_address: '10.0.0.2' }])).statuses[0]!.limit_remaining).toBe(4);
});

test('wildcard values match by pattern; each value is counted on its own key', async () => {
  expect((await a.call('api', [{ path: '/files/a' }])).statuses[0]!.limit_remaining).toBe(1);
  expect((await a.call('api', [{ path: '/files/a' }])).statuses[0]!.limit_remaining).toBe(0);
  expect((await a.call('api', [{ path: '/files/a' }])).overall_code).toBe('OVER_LIMIT');
  expect((await a.call('api', [{ path: '/files/b' }])).statuses[0]!.limit_remaining).toBe(1);
  expect((await a.call('api', [{ path: '/filesx' }])).statuses[0]!.current_limit).toBeNull();
});

test('unlimited matches before the any-value rule and is never counted', async () => {
  for (let i = 0; i < 3; i++) {
    const r = await a.call('api', [{ tenant: 'internal' }]);
    expect(r.overall_code).toBe('OK');
    expect(r.statuses[0]).toMatchObject({ limit_remaining: 4294967295, current_limit: null });
  }
  expect((await a.call('api', [{ tenant: 'acme' }])).overall_code).toBe('OK');
  expect((await a.call('api', [{ tenant: 'acme' }])).overall_code).toBe('OVER_LIMIT');
});

test('shadow mode: over the limit is answered OK and counted in the metrics', async () => {
  const before = sample(
    await metricsOf(a),
    'sluice_ratelimit_hits_total{domain="api",rule="api.trial",result="shadow_mode"}',
  );
  for (let i = 0; i < 3; i++) expect((await a.call('api', [{ trial: 'u1' }])).overall_code).toBe('OK');
  const after = sample(
    await metricsOf(a),
    'sluice_ratelimit_hits_total{domain="api",rule="api.trial",result="shadow_mode"}',
  );
  expect(after - before).toBe(2);
});

test("set descriptors: the first rule the set matches, plus every always_apply rule; order of the set's entries is free", async () => {
  const set = (entries: [string, string][]) =>
    [[SET_DESCRIPTOR_MARKER.key, SET_DESCRIPTOR_MARKER.value], ...entries] as [string, string][];
  // plan=BASIC + account: rule 0 (1 per year) and the always-applied rule 1 (3); rule 2 is not first and does not always apply.
  const first = await a.call('api', [
    set([
      ['account_id', 'a1'],
      ['plan', 'BASIC'],
    ]),
  ]);
  expect(first.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0, current_limit: { requests_per_unit: 1 } });
  const second = await a.call('api', [
    set([
      ['plan', 'BASIC'],
      ['account_id', 'a1'],
    ]),
  ]);
  expect(second.overall_code).toBe('OVER_LIMIT');
  // Another plan: rule 1 is the first to match; it has counted a1 twice already.
  const pro = await a.call('api', [
    set([
      ['account_id', 'a1'],
      ['plan', 'PRO'],
    ]),
  ]);
  expect(pro.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0, current_limit: { requests_per_unit: 3 } });
  // No account: only rule 2 (no simple descriptors) matches any set.
  expect((await a.call('api', [set([['plan', 'BASIC']])])).statuses[0]).toMatchObject({
    limit_remaining: 99,
    current_limit: { requests_per_unit: 100 },
  });
});

test('weights: only the heaviest matching rules count, plus always_apply ones; the others are not counted', async () => {
  const r = await a.call('api', [{ plan: 'free' }, { user: 'u9' }, { ip: '1.2.3.4' }]);
  expect(r.statuses.map((s) => [s.code, s.current_limit?.requests_per_unit ?? null, s.limit_remaining])).toEqual([
    ['OK', 1, 0],
    ['OK', null, 0],
    ['OK', 2, 1],
  ]);
  // The user rule was not counted above: alone, it is the heaviest and its first hit is within the limit.
  expect((await a.call('api', [{ user: 'u9' }])).statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0 });
  expect((await a.call('api', [{ user: 'u9' }])).overall_code).toBe('OVER_LIMIT');
});

test('x-ratelimit headers of the descriptor closest to its limit (with --response-headers); hits_addend counts N at once', async () => {
  const r = await a.call('api', [{ remote_address: '10.9.9.9' }, { path: '/files/h' }], { hitsAddend: 2 });
  expect(r.overall_code).toBe('OK');
  expect(r.response_headers_to_add.map((h) => [h.key, h.value])).toEqual([
    ['x-ratelimit-limit', '2'],
    ['x-ratelimit-remaining', '0'],
    ['x-ratelimit-reset', String(r.statuses[1]!.duration_until_reset!.seconds)],
  ]);
  expect(r.statuses[0]!.limit_remaining).toBe(3);
  // Replica b was started without the flag.
  expect((await b.call('api', [{ remote_address: '10.9.9.9' }])).response_headers_to_add).toEqual([]);
});

test("a descriptor's limit override (Envoy's RateLimit.Override) is counted with that limit across replicas, instead of the rule's", async () => {
  // Any tenant has a rule of 1 a year; the override's 3 counts instead (YEAR: no window boundary in a run).
  const three = { requests_per_unit: 3, unit: 'YEAR' } as const;
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).call('api', [{ tenant: 'override' }], { limits: [three] })),
  );
  expect(answers.filter((r) => r.overall_code === 'OK')).toHaveLength(3);
  const over = answers.find((r) => r.overall_code === 'OVER_LIMIT')!;
  expect(over.statuses[0]).toMatchObject({
    code: 'OVER_LIMIT',
    limit_remaining: 0,
    current_limit: { requests_per_unit: 3, unit: 'YEAR', name: '' },
  });
  // No rule at all for the entries: the override alone limits; another descriptor of the call keeps its rule.
  const mixed = await a.call('api', [{ nowhere: 'x' }, { path: '/files/override' }], {
    limits: [{ requests_per_unit: 1, unit: 'YEAR' }],
  });
  expect(mixed.statuses.map((st) => [st.code, st.current_limit?.requests_per_unit, st.limit_remaining])).toEqual([
    ['OK', 1, 0],
    ['OK', 2, 1],
  ]);
  expect(
    (await b.call('api', [{ nowhere: 'x' }], { limits: [{ requests_per_unit: 1, unit: 'YEAR' }] })).overall_code,
  ).toBe('OVER_LIMIT');
  // As envoyproxy/ratelimit: a domain the server does not know limits nothing, override or not.
  expect(
    (await a.call('elsewhere', [{ k: 'v' }], { limits: [{ requests_per_unit: 0, unit: 'SECOND' }] })).overall_code,
  ).toBe('OK');
});

test('an unknown domain limits nothing; no domain or no descriptors is INVALID_ARGUMENT', async () => {
  expect((await a.call('elsewhere', [{ generic_key: 'ten' }])).statuses).toEqual([
    { code: 'OK', current_limit: null, limit_remaining: 0, duration_until_reset: null, quota: null },
  ]);
  await expect(a.call('', [{ k: 'v' }])).rejects.toMatchObject({
    code: grpc.status.INVALID_ARGUMENT,
    details: 'rate limit domain must not be empty',
  });
  await expect(a.call('api', [])).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
});
