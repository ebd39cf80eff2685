/**
 * Gloo's rate limit options on a virtual host or a route (ratelimit.proto's
 * RateLimitVhostExtension, RateLimitRouteExtension, IngressRateLimit,
 * RateLimitConfigRefs) and the shapes of solo-apis' rate limiter API they
 * share with RateLimitConfig and Settings (./rate-limit-api.ts). The local
 * limit is a token bucket Envoy keeps in each instance (local_ratelimit.proto's
 * TokenBucket); the global limits are counted by a rate limit service.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { rateLimit, rateLimitActions } from './rate-limit-api.js';
import { boolean, namespaceName, object, positiveDuration, resourceName } from './schema.js';

/** Gloo's TokenBucket; resolve checks the fill interval's 50 ms floor. */
export const tokenBucket = object(
  {
    maxTokens: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), 'at least 1; the bucket starts full'),
    tokensPerFill: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), 'unset: 1'),
    fillInterval: note(positiveDuration, 'at least 50ms; unset: 1s'),
  },
  ['maxTokens'],
);

const actionsNote =
  "sent to the rate limit service (domain custom), whose rules are the Settings resource's ratelimit.descriptors and setDescriptors";

export const hostRateLimit = object({
  rateLimits: note(Type.Array(rateLimitActions), actionsNote),
  localRatelimit: note(
    tokenBucket,
    'every route of the virtual host without a limit of its own draws from this one bucket, in each Envoy; over it: 429',
  ),
});

export const routeRateLimit = object({
  includeVhRateLimits: note(boolean, "the virtual host's rateLimits apply to the route as well as its own"),
  rateLimits: note(Type.Array(rateLimitActions), `${actionsNote}; replaces the virtual host's`),
  localRatelimit: note(
    tokenBucket,
    "the route's own bucket, in each Envoy, instead of the virtual host's; over it: 429",
  ),
});

/** Gloo's IngressRateLimit (ratelimitBasic). */
export const ingressRateLimit = note(
  object({
    authorizedLimits: note(rateLimit, 'per user: requests whose x-user-id the ext auth server set, counted per id'),
    anonymousLimits: note(rateLimit, 'requests without x-user-id, counted per client address'),
  }),
  "counted by the rate limit service (domain ingress); a route's replaces the virtual host's",
);

/** Gloo's RateLimitConfigRefs. */
export const rateLimitConfigRefs = (when: string) =>
  note(
    object(
      {
        refs: Type.Array(
          object(
            {
              name: resourceName,
              namespace: note(namespaceName, 'defaults to the namespace of the resource that holds the reference'),
            },
            ['name'],
          ),
          { minItems: 1 },
        ),
      },
      ['refs'],
    ),
    `RateLimitConfig resources (domain solo.io), ${when}; a route's replace the virtual host's`,
  );

/** Every global rate limit option a virtual host and a route share, by Gloo's names. */
export const globalRateLimitOptions = {
  ratelimitBasic: ingressRateLimit,
  rateLimitConfigs: rateLimitConfigRefs('at the stage Settings ratelimitServer.rateLimitBeforeAuth sets'),
  rateLimitEarlyConfigs: rateLimitConfigRefs('before authentication'),
  rateLimitRegularConfigs: rateLimitConfigRefs('after authentication'),
};

export const hostStagedRateLimit = (when: string) =>
  note(object({ rateLimits: Type.Array(rateLimitActions) }), `${actionsNote}, ${when}`);
export const routeStagedRateLimit = (when: string) =>
  note(object({ includeVhRateLimits: boolean, rateLimits: Type.Array(rateLimitActions) }), `${actionsNote}, ${when}`);

export type TokenBucketSpec = Static<typeof tokenBucket>;
export type IngressRateLimitSpec = Static<typeof ingressRateLimit>;
export type RateLimitConfigRefsSpec = Static<ReturnType<typeof rateLimitConfigRefs>>;
export type RouteRateLimitSpec = Static<typeof routeRateLimit>;
