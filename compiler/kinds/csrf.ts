/**
 * Gloo's CsrfPolicy (csrf.proto, Envoy's own message), on a virtual host or
 * a route: Envoy's csrf filter answers 403 to a POST, PUT, DELETE or PATCH
 * whose Origin (else Referer) names another host than the request's. Regexes
 * and origins that could never match are checked by resolve.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { boolean, exactlyOne, object, protoEnum, singleLine, uint32 } from './schema.js';

export const DENOMINATORS = ['HUNDRED', 'TEN_THOUSAND', 'MILLION'] as const;

// Gloo's RuntimeFractionalPercent; no runtime layer is configured, so only the default value can act.
const share = object(
  {
    defaultValue: object({
      numerator: note(uint32, 'unset: 0; above the denominator: every request'),
      denominator: note(protoEnum(DENOMINATORS), 'unset: HUNDRED'),
    }),
    runtimeKey: refused(
      'Sluice configures no Envoy runtime layer, so the key would never be read',
      'remove runtimeKey: defaultValue is what applies',
    ),
  },
  ['defaultValue'],
);

// Gloo's StringMatcher (csrf compares it with the host and port of the source origin; ext_proc's forwardRules with header names).
export const stringMatcher = object(
  {
    exact: singleLine,
    prefix: singleLine,
    suffix: singleLine,
    safeRegex: object(
      {
        googleRe2: object({ maxProgramSize: refused('RE2 program size limits are not implemented') }),
        regex: note(singleLine, 'checked with RE2 at compile time; the whole value must match'),
      },
      ['regex'],
    ),
    ignoreCase: note(
      boolean,
      'exact, prefix and suffix only (Envoy ignores it for safeRegex: write (?i) in the regex)',
    ),
  },
  [],
  exactlyOne('exact', 'prefix', 'suffix', 'safeRegex'),
);

const csrf = object({
  filterEnabled: note(share, 'the share of requests checked and refused on a mismatch; unset: none, as Gloo'),
  shadowEnabled: note(
    share,
    'the share checked but let through (Envoy counts them), when filterEnabled does not apply',
  ),
  additionalOrigins: note(
    Type.Array(stringMatcher),
    "origins accepted besides the request's own host, matched against the host and port of the Origin (e.g. app.example.com, or app.example.com:8443), never the scheme",
  ),
});

const checks =
  'POST, PUT, DELETE and PATCH requests whose Origin (else Referer) host and port differ from the Host\'s are answered 403 "Invalid origin", after authentication (Gloo\'s filter order)';

/** On a virtual host: every route without its own. */
export const hostCsrf = note(csrf, `every route without its own; ${checks}`);

/** On a route: replaces the virtual host's whole. */
export const routeCsrf = note(csrf, `replaces the virtual host's whole; ${checks}`);

export type CsrfSpec = Static<typeof csrf>;
export type StringMatcherSpec = Static<typeof stringMatcher>;
