/**
 * Gloo's Settings for global rate limits (ratelimit.proto's ServiceSettings
 * and Settings): the rules of the `custom` domain, and how Envoy's rate limit
 * filters reach the service.
 */
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { note } from './gloo.js';
import { descriptor, setDescriptor } from './rate-limit-api.js';
import { resourceRef } from './resource.js';
import { boolean, object, positiveDuration, singleLine } from './schema.js';

export const rateLimitServiceSettings = note(
  object({
    descriptors: note(
      Type.Array(descriptor),
      'tree rules of the custom domain, which ratelimit.rateLimits actions reach',
    ),
    setDescriptors: note(Type.Array(setDescriptor), 'set rules of the custom domain, which setActions reach'),
  }),
  'served to sluice-ratelimit and written as envoyproxy/ratelimit YAML by sluice compile -o',
);

export const rateLimitServerSettings = note(
  object({
    ratelimitServerRef: note(
      resourceRef,
      'an Upstream serving envoy.service.ratelimit.v3.RateLimitService over gRPC (useHttp2: true), e.g. envoyproxy/ratelimit; unset: the sluice-ratelimit sidecar',
    ),
    grpcService: object({ authority: note(singleLine, 'the :authority of the ShouldRateLimit calls') }),
    requestTimeout: note(positiveDuration, 'default 100ms, as in Gloo'),
    denyOnFail: note(boolean, 'the service cannot be reached or fails: 503 instead of letting the request through'),
    rateLimitBeforeAuth: note(
      boolean,
      'ratelimit and rateLimitConfigs are checked before JWT, RBAC and ext auth (ratelimitBasic then sees no user)',
    ),
    enableXRatelimitHeaders: note(boolean, 'x-ratelimit-limit, -remaining and -reset on answers (draft 03)'),
  }),
  "the rate limit filters of every listener (a Gateway's own ratelimitServer is refused)",
);

export type RateLimitServiceSettingsSpec = Static<typeof rateLimitServiceSettings>;
export type RateLimitServerSettingsSpec = Static<typeof rateLimitServerSettings>;
