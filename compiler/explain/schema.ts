/**
 * RequestTest (`test.gateway.example/v1`): request tables kept next to the
 * resources and run by `sluice test`. Validated with the other kinds, so a
 * typo in a table is an error with its line; resolve and translate ignore
 * them, so `compile` never emits anything for them.
 */
import { mapOf, nonEmptyString, object, resource, string, stringMap, type Schema } from '../validate/schemas/common.js';

export const REQUEST_TEST_API_VERSION = 'test.gateway.example/v1';
export const REQUEST_TEST_KIND = 'RequestTest';

const request = object(
  {
    method: nonEmptyString,
    url: { type: 'string', pattern: '^https?://' },
    headers: stringMap,
    // Claims of a token taken as valid (what `explain --claims` does); jwt: a real token; user: NAME:PASSWORD.
    claims: mapOf({}),
    jwt: nonEmptyString,
    user: { type: 'string', pattern: ':' },
  },
  ['method', 'url'],
);

const expectation: Schema = {
  ...object({
    status: { oneOf: [{ type: 'integer', minimum: 100, maximum: 599 }, { const: 'upstream' }] },
    body: string,
    virtualHost: nonEmptyString,
    route: nonEmptyString,
    cluster: nonEmptyString,
  }),
  minProperties: 1,
};

export const requestTest = resource(
  REQUEST_TEST_API_VERSION,
  REQUEST_TEST_KIND,
  object({ cases: { type: 'array', minItems: 1, items: object({ name: nonEmptyString, request, expect: expectation }, ['request', 'expect']) } }, ['cases']),
);
