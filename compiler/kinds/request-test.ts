/**
 * RequestTest (`test.gateway.example/v1`): request tables kept next to the
 * resources and run by `sluice test`. Validated with the other kinds, so a
 * typo in a table is an error with its line; resolve and translate ignore
 * them, so `compile` never emits anything for them.
 */
import { Type, type Static } from '@sinclair/typebox';
import { kind } from './resource.js';
import { anyValue, constant, mapOf, nonEmptyString, object, string, stringMap } from './schema.js';

const request = object(
  {
    method: nonEmptyString,
    url: Type.String({ pattern: '^https?://' }),
    headers: stringMap,
    // Claims of a token taken as valid (what `explain --claims` does); jwt: a real token; user: NAME:PASSWORD.
    claims: mapOf(anyValue),
    jwt: nonEmptyString,
    user: Type.String({ pattern: ':' }),
  },
  ['method', 'url'],
);

const expectation = object(
  {
    status: Type.Unsafe<number | 'upstream'>({
      oneOf: [Type.Integer({ minimum: 100, maximum: 599 }), constant('upstream')],
    }),
    body: string,
    virtualHost: nonEmptyString,
    route: nonEmptyString,
    cluster: nonEmptyString,
  },
  [],
  { minProperties: 1 },
);

const requestTestSpec = object(
  {
    cases: Type.Array(object({ name: nonEmptyString, request, expect: expectation }, ['request', 'expect']), {
      minItems: 1,
    }),
  },
  ['cases'],
);

export const REQUEST_TEST = kind('test.gateway.example/v1', 'RequestTest', requestTestSpec);

export type RequestTestCase = Static<typeof requestTestSpec>['cases'][number];
