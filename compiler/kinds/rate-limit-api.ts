/**
 * solo-apis' rate limiter API (ratelimit.api.solo.io, ratelimit.proto): the
 * rules a rate limit service counts by (Descriptor, SetDescriptor, RateLimit)
 * and the actions Envoy composes a request's descriptors with
 * (RateLimitActions, Action), shared by RateLimitConfig's `raw`, Settings'
 * `ratelimit` and the virtual host and route options.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { boolean, exactlyOne, lineOrEmpty, object, oneOfValues, singleLine, uint32 } from './schema.js';

export const RATE_LIMIT_UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;

/** Gloo's RateLimit: requestsPerUnit per unit (UNKNOWN refused: a rule without a unit limits nothing). */
export const rateLimit = object(
  {
    unit: note(oneOfValues(RATE_LIMIT_UNITS), 'windows start at the epoch (a minute at :00), as envoyproxy/ratelimit'),
    requestsPerUnit: note(uint32, '0: every request of the rule is over the limit'),
  },
  ['unit', 'requestsPerUnit'],
);

/** Gloo's MetaData.MetadataKey: a filter's metadata namespace and the path of keys in it. */
const metadataKey = object(
  { key: singleLine, path: Type.Array(object({ key: singleLine }, ['key']), { minItems: 1 }) },
  ['key', 'path'],
);

/** How deep descriptors nest; envoyproxy/ratelimit's examples go three deep. */
export const DESCRIPTOR_DEPTH = 5;

function descriptorAt(depth: number): TSchema {
  return object(
    {
      key: singleLine,
      value: note(lineOrEmpty, 'unset or empty: any value, each counted on its own'),
      rateLimit,
      ...(depth > 1
        ? { descriptors: note(Type.Array(descriptorAt(depth - 1)), `nested rules, at most ${DESCRIPTOR_DEPTH} deep`) }
        : {}),
      weight: note(uint32, 'of a top-level rule: only the matching rules of the highest weight count'),
      alwaysApply: note(boolean, 'of a top-level rule: counted whatever its weight'),
    },
    ['key'],
  );
}

/** Gloo's Descriptor: a rule tree, as envoyproxy/ratelimit's configuration. */
export const descriptor = Type.Unsafe<DescriptorSpec>(descriptorAt(DESCRIPTOR_DEPTH));

/** Gloo's SetDescriptor: an unordered set of key/value pairs a request's setActions descriptor must all have. */
export const setDescriptor = object(
  {
    simpleDescriptors: Type.Array(object({ key: singleLine, value: lineOrEmpty }, ['key'])),
    rateLimit,
    alwaysApply: note(boolean, 'counted even when an earlier set rule matched'),
  },
  ['rateLimit'],
);

const headerMatcher = object(
  {
    name: singleLine,
    exactMatch: lineOrEmpty,
    regexMatch: note(singleLine, 'checked with RE2 at compile time'),
    rangeMatch: object({ start: Type.Integer(), end: Type.Integer() }, ['start', 'end']),
    presentMatch: boolean,
    prefixMatch: singleLine,
    suffixMatch: singleLine,
    invertMatch: boolean,
  },
  ['name'],
  exactlyOne('exactMatch', 'regexMatch', 'rangeMatch', 'presentMatch', 'prefixMatch', 'suffixMatch'),
);

/** Gloo's Action: what one descriptor entry is made of. */
export const action = object(
  {
    sourceCluster: note(object({}), "(source_cluster, Envoy's --service-cluster)"),
    destinationCluster: note(object({}), "(destination_cluster, the route's cluster)"),
    requestHeaders: note(
      object({ headerName: singleLine, descriptorKey: singleLine }, ['headerName', 'descriptorKey']),
      '(descriptorKey, the header value); no header: no descriptor',
    ),
    remoteAddress: note(object({}), "(remote_address, the client's address as Envoy trusts it)"),
    genericKey: note(object({ descriptorValue: singleLine }, ['descriptorValue']), '(generic_key, descriptorValue)'),
    headerValueMatch: note(
      object(
        {
          descriptorValue: singleLine,
          expectMatch: note(boolean, 'unset: true'),
          headers: Type.Array(headerMatcher, { minItems: 1 }),
        },
        ['descriptorValue', 'headers'],
      ),
      '(header_match, descriptorValue) when the headers match as expectMatch says',
    ),
    metadata: note(
      object(
        {
          descriptorKey: singleLine,
          metadataKey,
          defaultValue: lineOrEmpty,
          source: note(oneOfValues(['DYNAMIC', 'ROUTE_ENTRY']), 'unset: DYNAMIC'),
        },
        ['descriptorKey', 'metadataKey'],
      ),
      '(descriptorKey, a string of the dynamic or route metadata)',
    ),
    cel: refused('CEL actions are evaluated only by agentgateway, not by Envoy'),
  },
  [],
  exactlyOne(
    'sourceCluster',
    'destinationCluster',
    'requestHeaders',
    'remoteAddress',
    'genericKey',
    'headerValueMatch',
    'metadata',
  ),
);

/** Gloo's RateLimitActions: one descriptor per entry, sent to the service with the request's domain. */
export const rateLimitActions = object({
  actions: note(Type.Array(action), 'a descriptor matched against the tree rules (descriptors), in order'),
  setActions: note(
    Type.Array(action),
    'a descriptor matched as a set against the setDescriptors; requestHeaders missing from the request are skipped',
  ),
  limit: note(
    object({ dynamicMetadata: object({ metadataKey }, ['metadataKey']) }, ['dynamicMetadata']),
    "Envoy's RateLimit.Override: when the request's dynamic metadata at metadataKey holds a struct {requests_per_unit, unit}, the descriptor carries that limit and the service counts it with it instead of its rules",
  ),
  type: refused('token counts are counted only by agentgateway', 'leave type unset: requests are counted'),
});

export type RateLimitSpec = Static<typeof rateLimit>;
export type ActionSpec = Static<typeof action>;
export type RateLimitActionsSpec = Static<typeof rateLimitActions>;
export type SetDescriptorSpec = Static<typeof setDescriptor>;
/** A Descriptor at any depth (the schema's nesting is fixed; resolve walks it the same at every level). */
export interface DescriptorSpec {
  key: string;
  value?: string;
  rateLimit?: RateLimitSpec;
  descriptors?: DescriptorSpec[];
  weight?: number;
  alwaysApply?: boolean;
}
