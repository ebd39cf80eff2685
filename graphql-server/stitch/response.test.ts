/**
 * The written response against JSON.stringify of the completed result: the
 * same bytes, for plans of many documents over a schema with non-null
 * fields and lists at every depth, and merged answers generated with nulls,
 * missing fields, key fields, extra fields, wrong shapes and errors (a
 * seeded generator: the same cases on every run).
 */
import { buildSchema, GraphQLError, parse, validate } from 'graphql';
import type { ExecutableApi } from '../api.js';
import { planOperation, type Plan } from './plan.js';
import { completeData, writeResponse } from './response.js';
import type { Subschema } from './subschema.js';

const SDL = /* GraphQL */ `
  type Query {
    items: [Item!]!
    maybe: [Item]
    one: Item!
    other: Item
    count: Int!
    label: String
    tags: [[String!]]
    doc: JSON
  }
  type Item {
    id: Int!
    name: String!
    note: String
    price: Float
    ok: Boolean
    tags: [String!]
    children: [Item!]
    parent: Item
  }
  scalar JSON
`;
const schema = buildSchema(SDL);
// One subschema answers everything: only the planner's shape is under test here, nothing is sent.
const api: ExecutableApi = {
  name: 'shop.all',
  schema,
  enableIntrospection: false,
  execute: () => Promise.reject(new Error('not sent')),
};
const subschemas: Subschema[] = [{ name: 'shop.all', api, merges: new Map() }];

const DOCUMENTS = [
  '{ items { id name note } }',
  '{ maybe { id name } other { note } }',
  '{ one { id name children { id name tags } parent { name parent { id } } } }',
  '{ count label tags }',
  '{ a: items { x: id y: name } b: maybe { name } }',
  '{ __typename items { __typename id } }',
  'query Q { other { ...F parent { ...F } } count maybe { children { id } } } fragment F on Item { id name price ok tags }',
  '{ items { ... on Item { name children { ... on Item { id note } } } } }',
  '{ doc other { tags } }',
  '{ items { name @skip(if: true) id @include(if: true) } }',
  '{ q_alias: label }',
];

function planOf(query: string): Plan {
  const document = parse(query);
  expect(validate(schema, document)).toEqual([]);
  const plan = planOperation(schema, subschemas, document);
  if (plan.kind !== 'plan') throw new Error(`not planned: ${plan.reason}`);
  return plan;
}

/** A small seeded generator (mulberry32): the same cases on every run. */
function generator(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  '',
  'plain',
  'quote " and \\ backslash',
  'line\nbreak\ttab',
  'unicode é 漢字 😀',
  '\u0000\u001f control',
  '</script>',
];

/** Any JSON value an upstream could answer, biased to nulls and objects. */
function anyValue(random: () => number, depth: number): unknown {
  const r = random();
  if (r < 0.2) return null;
  if (r < 0.3) return undefined;
  if (r < 0.45) return Math.floor(random() * 2000) - 1000;
  if (r < 0.5) return random() * 1e6;
  if (r < 0.55) return random() < 0.5;
  if (r < 0.7) return STRINGS[Math.floor(random() * STRINGS.length)];
  if (depth <= 0) return 'leaf';
  if (r < 0.85) return Array.from({ length: Math.floor(random() * 4) }, () => anyValue(random, depth - 1));
  return objectValue(random, depth - 1);
}

const KEYS = [
  'id',
  'name',
  'note',
  'price',
  'ok',
  'tags',
  'children',
  'parent',
  'x',
  'y',
  '__typename',
  '_sk_id',
  'extra',
  'items',
  'maybe',
  'one',
  'other',
  'count',
  'label',
  'doc',
  'a',
  'b',
  'q_alias',
];

function objectValue(random: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEYS) if (random() < 0.6) out[key] = anyValue(random, depth);
  return out;
}

/** An object whose fields mostly have the right shape, so that whole responses (not only nulls) are written. */
function wellShaped(random: () => number, depth: number): Record<string, unknown> {
  const item = (d: number): Record<string, unknown> => ({
    id: random() < 0.9 ? Math.floor(random() * 100) : null,
    name: random() < 0.9 ? STRINGS[Math.floor(random() * STRINGS.length)] : null,
    note: random() < 0.5 ? 'n' : null,
    price: random() < 0.5 ? random() * 10 : null,
    ok: random() < 0.5,
    tags: random() < 0.7 ? ['a', random() < 0.9 ? 'b' : null] : null,
    children: d > 0 && random() < 0.7 ? Array.from({ length: Math.floor(random() * 3) }, () => item(d - 1)) : null,
    parent: d > 0 && random() < 0.6 ? item(d - 1) : null,
    x: 1,
    y: 'y',
    __typename: 'Item',
    _sk_id: 7,
  });
  return {
    items: Array.from({ length: Math.floor(random() * 4) }, () => item(depth)),
    maybe: random() < 0.8 ? [item(depth), null] : null,
    one: random() < 0.9 ? item(depth) : null,
    other: random() < 0.7 ? item(depth) : null,
    count: random() < 0.9 ? 3 : null,
    label: 'label',
    tags: [['a', 'b'], null, random() < 0.9 ? ['c'] : ['d', null]],
    doc: { any: ['json', 1, null, { deep: true }] },
    a: [item(0)],
    b: null,
    q_alias: 'q',
    __typename: 'Query',
  };
}

const ERRORS = [
  [],
  [
    new GraphQLError('subschema shop.all failed: down', {
      path: ['items', 0, 'name'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE' },
    }),
  ],
  [new GraphQLError('two', { path: ['one'] }), new GraphQLError('without a path "quoted"')],
];

describe('writeResponse', () => {
  it.each(DOCUMENTS)('gives the bytes of JSON.stringify of the completed result: %s', (query) => {
    const plan = planOf(query);
    const random = generator(query.length * 7919);
    for (let i = 0; i < 300; i++) {
      const root = i % 2 ? wellShaped(random, 2) : objectValue(random, 3);
      const errors = ERRORS[i % ERRORS.length]!;
      const data = completeData(root, plan.shape);
      const expected = JSON.stringify(errors.length ? { data, errors } : { data });
      const written = writeResponse(root, plan.shape, errors);
      expect(written.json).toBe(expected);
      expect(written.data).toBe(data === null ? 'null' : 'present');
      expect(written.hasErrors).toBe(errors.length > 0);
    }
  });

  it('writes data null when a non-null root field is null, and null for a nullable parent of a null in a non-null position', () => {
    const plan = planOf('{ one { id children { id } } other { id name } maybe { id } }');
    expect(writeResponse({ one: null, other: { id: 1 } }, plan.shape, []).json).toBe('{"data":null}');
    const root = {
      one: { id: 1, children: [{ id: 2 }, { id: null }] },
      other: { id: 2, name: null },
      maybe: [{ id: 3 }, { id: null }],
    };
    expect(writeResponse(root, plan.shape, []).json).toBe(
      '{"data":{"one":{"id":1,"children":null},"other":null,"maybe":[{"id":3},null]}}',
    );
  });
});
