/**
 * Gloo's RateLimitConfig (ratelimit.solo.io/v1alpha1, solo-apis'
 * RateLimitConfigSpec): a self-contained policy, its server rules and the
 * actions Envoy sends for them, kept apart from every other policy's.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { descriptor, rateLimitActions, setDescriptor } from './rate-limit-api.js';
import { kind } from './resource.js';
import { object } from './schema.js';

const raw = object(
  {
    descriptors: note(
      Type.Array(descriptor),
      "the policy's tree rules, under a generic_key of <namespace>.<name> so no other policy's counts mix with them",
    ),
    setDescriptors: note(
      Type.Array(setDescriptor),
      "the policy's set rules, each with (generic_key, <namespace>.<name>) added",
    ),
    rateLimits: note(
      Type.Array(rateLimitActions, { minItems: 1 }),
      'sent by every virtual host or route that refers to the policy, each descriptor led by (generic_key, <namespace>.<name>)',
    ),
  },
  ['rateLimits'],
);

const rateLimitConfigSpec = object({ raw }, ['raw']);

export const RATE_LIMIT_CONFIG = kind(
  'ratelimit.gateway.example/v1alpha1',
  'RateLimitConfig',
  rateLimitConfigSpec,
  'ratelimit.solo.io/v1alpha1',
);

export type RateLimitConfigSpec = Static<typeof rateLimitConfigSpec>;
