import type { Diagnostic, Origin } from '../diagnostics.js';
import type { MatcherSpec } from '../kinds/matchers.js';
import { re2Problem, resolveMatchers, shadowWarnings } from './matchers.js';

const origin: Origin = { file: 'in.yaml', resource: 'VirtualService ns/vs', lineOf: () => 1 };

function routes(...specs: MatcherSpec[][]) {
  const diagnostics: Diagnostic[] = [];
  const placed = specs.map((s, i) => ({
    path: ['routes', i],
    matches: resolveMatchers(s, ['routes', i, 'matchers'], origin, diagnostics)!.map((match, j) => ({
      match,
      path: ['routes', i, 'matchers', j],
    })),
  }));
  expect(diagnostics).toEqual([]);
  return shadowWarnings(placed, origin).map((d) => `${d.field}: ${d.message}`);
}

test('RE2 refuses what Envoy refuses (lookaround, backreferences) and accepts its own syntax', () => {
  expect(re2Problem('/a(?=b)')).toBe('invalid perl operator: (?=');
  expect(re2Problem('(a)\\1')).toMatch(/escape/);
  expect(re2Problem('/items/[0-9]+(?i:x)')).toBeUndefined();
});

test("an RE2 error quotes the pattern as the user wrote it, not re2-wasm's rewrite of it", () => {
  // re2-wasm hands RE2 the pattern with "/" escaped ("\\/") and "\\u00e9" as "\\x{00e9}"; RE2 quotes that text.
  expect(re2Problem('/orders/([0-9]+')).toBe('missing ): /orders/([0-9]+');
  expect(re2Problem('/a/[/b')).toBe('missing ]: [/b');
  expect(re2Problem('/u: a(')).toBe('missing ): /u: a(');
  expect(re2Problem('\\u00e9(')).toBe('missing )');
  // Text RE2 quotes as the user wrote it is left as it is.
  expect(re2Problem('(a')).toBe('missing ): (a');
});

test('a route is shadowed only when an earlier matcher covers every request of every one of its matchers', () => {
  expect(routes([{ prefix: '/a' }], [{ prefix: '/ab' }])).toEqual([
    'routes[1]: this route is never used: routes[0].matchers[0], earlier on the same host, matches every request it matches',
  ]);
  expect(routes([{ prefix: '/a' }], [{ prefix: '/ab' }, { prefix: '/b' }])).toEqual([]);
  expect(routes([{ prefix: '/a', headers: [{ name: 'x' }] }], [{ prefix: '/ab' }])).toEqual([]);
  expect(
    routes([{ prefix: '/a', headers: [{ name: 'x' }] }], [{ prefix: '/ab', headers: [{ name: 'x' }, { name: 'y' }] }]),
  ).toHaveLength(1);
  expect(routes([{ prefix: '/a', methods: ['GET', 'POST'] }], [{ exact: '/a/b', methods: ['GET'] }])).toHaveLength(1);
  expect(routes([{ prefix: '/a', methods: ['GET'] }], [{ exact: '/a/b' }])).toEqual([]);
  // Case: a sensitive prefix does not cover an insensitive one ("/A/x" reaches the second).
  expect(routes([{ prefix: '/a' }], [{ prefix: '/a/x', caseSensitive: false }])).toEqual([]);
  expect(routes([{ prefix: '/A', caseSensitive: false }], [{ exact: '/a/x' }])).toHaveLength(1);
  expect(routes([{ exact: '/a' }], [{ prefix: '/a' }])).toEqual([]);
  expect(routes([{ regex: '/a.*' }], [{ prefix: '/a' }])).toEqual([]);
  expect(routes([{}], [{ regex: '/a.*' }])).toHaveLength(1);
});

test("20,000 distinct patterns are checked without exhausting re2-wasm's fixed heap; answers are kept", () => {
  for (let i = 0; i < 20_000; i++) expect(re2Problem(`/items/${i}/[0-9]+`)).toBeUndefined();
  expect(re2Problem('(?=x)')).toBe('invalid perl operator: (?=');
  expect(re2Problem('(?=x)')).toBe('invalid perl operator: (?=');
});
