/**
 * Gloo's rate limit options on a virtual host or a route
 * (RateLimitVhostExtension, RateLimitRouteExtension in ratelimit.proto):
 * the local limit, a token bucket Envoy keeps in each instance
 * (local_ratelimit.proto's TokenBucket), is built; the global limits, which
 * need a rate limit service, are refused.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, REASONS, refused } from './gloo.js';
import { object, positiveDuration } from './schema.js';

const globalLimits = () => refused(REASONS.rateLimit, 'use localRatelimit: a token bucket in each Envoy');

/** Gloo's TokenBucket; resolve checks the fill interval's 50 ms floor. */
const tokenBucket = object(
  {
    maxTokens: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), 'at least 1; the bucket starts full'),
    tokensPerFill: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), 'unset: 1'),
    fillInterval: note(positiveDuration, 'at least 50ms; unset: 1s'),
  },
  ['maxTokens'],
);

export const hostRateLimit = object({
  rateLimits: globalLimits(),
  localRatelimit: note(
    tokenBucket,
    'every route of the virtual host without a limit of its own draws from this one bucket, in each Envoy; over it: 429',
  ),
});

export const routeRateLimit = object({
  includeVhRateLimits: globalLimits(),
  rateLimits: globalLimits(),
  localRatelimit: note(
    tokenBucket,
    "the route's own bucket, in each Envoy, instead of the virtual host's; over it: 429",
  ),
});

export type TokenBucketSpec = Static<typeof tokenBucket>;
