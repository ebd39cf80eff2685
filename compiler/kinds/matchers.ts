/** Gloo's Matcher (matchers.proto); at most one of prefix, exact, regex (resolve says so), none: prefix "/". */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { boolean, httpMethod, lineOrEmpty, object, pathPrefix, singleLine } from './schema.js';

export const matcher = object({
  prefix: pathPrefix,
  exact: pathPrefix,
  regex: note(singleLine, 'RE2 syntax, checked at compile time; the whole path (without the query) must match'),
  connectMatcher: refused('CONNECT requests are not proxied'),
  caseSensitive: note(boolean, 'applies to prefix and exact; a regex is always case sensitive (write (?i) in it)'),
  headers: Type.Array(
    object(
      {
        name: singleLine,
        value: note(lineOrEmpty, 'absent or empty: the header must be present'),
        regex: boolean,
        invertMatch: boolean,
      },
      ['name'],
    ),
  ),
  // Envoy takes a query parameter name of at most 1,024 bytes: 256 characters stay within it whatever their encoding.
  queryParameters: Type.Array(
    object(
      {
        name: Type.String({ minLength: 1, format: 'single-line', maxLength: 256 }),
        value: note(lineOrEmpty, 'absent or empty: the parameter must be present'),
        regex: boolean,
      },
      ['name'],
    ),
  ),
  methods: note(Type.Array(httpMethod, { minItems: 1, uniqueItems: true }), 'matched as the :method header'),
});

export type MatcherSpec = Static<typeof matcher>;
