/**
 * Rule matching, priority and answers without Redis: the tree walk as
 * envoyproxy/ratelimit's GetLimit walks it (its config_impl_test cases for
 * nesting, empty values and wildcards), Gloo's weights and sets, the cache
 * keys and windows, and the configuration checks.
 */
import { parseDomain, parseDomainSet } from './config.js';
import { answer, CODE, plan, type RateLimitRequest } from './decision.js';
import { matchTree, wildcardMatch } from './matcher.js';

const domain = parseDomain({
  domain: 'd',
  descriptors: [
    { key: 'key1', value: 'value1', rate_limit: { unit: 'SECOND', requests_per_unit: 5 } },
    {
      key: 'key2',
      rate_limit: { unit: 'MINUTE', requests_per_unit: 20, name: 'any-key2' },
      descriptors: [{ key: 'subkey', value: 'x', rate_limit: { unit: 'HOUR', requests_per_unit: 7 } }],
    },
    { key: 'path', value: '/files/*', rate_limit: { unit: 'DAY', requests_per_unit: 3 } },
    { key: 'path', value: '/a*z', rate_limit: { unit: 'DAY', requests_per_unit: 4 } },
    { key: 'free', rate_limit: { unlimited: true } },
    { key: 'parent', descriptors: [{ key: 'child', rate_limit: { unit: 'YEAR', requests_per_unit: 9 } }] },
  ],
});
const e = (...kv: string[]) => kv.map((s) => ({ key: s.split('=')[0]!, value: s.split('=')[1] ?? '' }));
const limitOf = (...kv: string[]) => matchTree(domain.root, e(...kv))?.rule;

test('tree: key_value first, then wildcards, then the key alone (any value); only at the last entry', () => {
  expect(limitOf('key1=value1')).toBe('d.key1_value1');
  expect(limitOf('key1=other')).toBeUndefined();
  expect(limitOf('key2=anything')).toBe('d.key2');
  expect(limitOf('key2=anything', 'subkey=x')).toBe('d.key2.subkey_x');
  expect(limitOf('key2=anything', 'subkey=y')).toBeUndefined();
  // More entries than the tree is deep: no limit, as envoyproxy/ratelimit.
  expect(limitOf('key1=value1', 'extra=1')).toBeUndefined();
  expect(limitOf('path=/files/a/b')).toBe('d.path_/files/*');
  expect(limitOf('path=/abcz')).toBe('d.path_/a*z');
  expect(limitOf('path=/abc')).toBeUndefined();
  expect(limitOf('parent=p')).toBeUndefined();
  expect(limitOf('parent=p', 'child=c')).toBe('d.parent.child');
});

test('wildcardMatch: each * zero or more characters, literal parts in order', () => {
  expect(wildcardMatch(['a', 'b', 'c'], 'a-b-c')).toBe(true);
  expect(wildcardMatch(['a', 'b', 'c'], 'abc')).toBe(true);
  expect(wildcardMatch(['a', 'b', 'c'], 'a-c-b')).toBe(false);
  expect(wildcardMatch(['ab', 'ba'], 'aba')).toBe(false);
  expect(wildcardMatch(['x', ''], 'x')).toBe(true);
});

const req = (...descriptors: string[][]): RateLimitRequest => ({
  domain: 'd',
  descriptors: descriptors.map((d) => ({ entries: e(...d), limit: null })),
  hits_addend: 0,
});
const NOW = 1_700_000_123;

test('plan: envoyproxy/ratelimit cache keys with the window start; unlimited and unknown domains count nothing', () => {
  const p = plan(
    new Map([['d', domain]]),
    req(['key1=value1'], ['key2=v', 'subkey=x'], ['free=1'], ['nope=1']),
    NOW,
    'pre_',
  );
  expect(p.hits.map((h) => [h.descriptor, h.key, h.ttl])).toEqual([
    [0, `pre_d_key1_value1_${NOW}`, 1],
    [1, `pre_d_key2_v_subkey_x_${NOW - (NOW % 3600)}`, 3600],
  ]);
  expect([...p.unlimited]).toEqual([2]);
  expect(plan(new Map(), { ...req(['key1=value1']), domain: 'other' }, NOW).hits).toEqual([]);
  expect(() => plan(new Map(), { ...req(), domain: 'd' }, NOW)).toThrow('descriptor list must not be empty');
});

test('answer: statuses, remaining, reset, the overall code and the x-ratelimit headers of the closest limit', () => {
  const p = plan(new Map([['d', domain]]), req(['key1=value1'], ['key2=v'], ['free=1'], ['nope=1']), NOW);
  const a = answer(p, { counts: [6, 15] }, true).response;
  expect(a.overall_code).toBe(CODE.OVER_LIMIT);
  expect(a.statuses[0]).toEqual({
    code: CODE.OVER_LIMIT,
    current_limit: { requests_per_unit: 5, unit: 1, name: '' },
    limit_remaining: 0,
    duration_until_reset: { seconds: 1 },
  });
  expect(a.statuses[1]).toMatchObject({
    code: CODE.OK,
    limit_remaining: 5,
    duration_until_reset: { seconds: 60 - (NOW % 60) },
  });
  expect(a.statuses[2]).toEqual({ code: CODE.OK, limit_remaining: 0xffffffff });
  expect(a.statuses[3]).toEqual({ code: CODE.OK, limit_remaining: 0 });
  expect(a.response_headers_to_add).toEqual([
    { key: 'x-ratelimit-limit', value: '5' },
    { key: 'x-ratelimit-remaining', value: '0' },
    { key: 'x-ratelimit-reset', value: '1' },
  ]);
  expect(answer(p, { failed: true, denyOnFail: true }, false).response.overall_code).toBe(CODE.OVER_LIMIT);
  expect(answer(p, { failed: true, denyOnFail: false }, false).response.overall_code).toBe(CODE.OK);
});

test('configuration errors name the domain and field', () => {
  const bad = (descriptors: unknown[]) => () => parseDomainSet({ domains: [{ domain: 'd', descriptors }] });
  expect(bad([{ value: 'v' }])).toThrow('domains[0] d.descriptors[0].key: required');
  expect(bad([{ key: 'k' }, { key: 'k' }])).toThrow('a second descriptor "k" at this level');
  expect(bad([{ key: 'k', rate_limit: { requests_per_unit: 1 } }])).toThrow('.rate_limit.unit: required');
  expect(bad([{ key: 'k', rate_limit: { unit: 'FORTNIGHT' } }])).toThrow('"FORTNIGHT" is not one of');
  expect(bad([{ key: 'k', rate_limit: { unlimited: true, unit: 'SECOND' } }])).toThrow(
    'an unlimited rate limit has no unit',
  );
  expect(bad([{ key: 'k', weight: 1, descriptors: [{ key: 'c', weight: 2 }] }])).toThrow('a rule has one priority');
  expect(() => parseDomainSet({ domains: [{ domain: 'd' }, { domain: 'd' }] })).toThrow('domain "d" is defined twice');
  expect(() =>
    parseDomainSet({
      domains: [{ domain: 'd', set_descriptors: [{ simple_descriptors: [{ key: 'a' }] }] }],
    }),
  ).toThrow('set_descriptors[0].rate_limit: required');
});

test("priority under a RateLimitConfig's generic_key: the rules below it carry their own weight and always_apply", () => {
  const wrapped = parseDomain({
    domain: 'd',
    descriptors: [
      {
        key: 'generic_key',
        value: 'ns.config',
        descriptors: [
          { key: 'plan', weight: 1, rate_limit: { unit: 'MINUTE', requests_per_unit: 1 } },
          { key: 'user', rate_limit: { unit: 'MINUTE', requests_per_unit: 2 } },
          { key: 'ip', always_apply: true, rate_limit: { unit: 'MINUTE', requests_per_unit: 3 } },
        ],
      },
    ],
  });
  const p = plan(
    new Map([['d', wrapped]]),
    req(['generic_key=ns.config', 'plan=free'], ['generic_key=ns.config', 'user=u'], ['generic_key=ns.config', 'ip=1']),
    NOW,
  );
  // The weighted rule and the always_apply one are counted; the unweighted one is not.
  expect(p.hits.map((h) => h.descriptor)).toEqual([0, 2]);
});
