/**
 * An httpGateway's local rate limits (http_listener_options.proto,
 * local_ratelimit.proto): httpLocalRatelimit, Envoy's HTTP local_ratelimit
 * filter with the Gateway's default bucket and the settings that apply to
 * its virtual hosts' and routes' buckets too; networkLocalRatelimit, Envoy's
 * network local_ratelimit filter, one token per connection.
 */
import { type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { tokenBucket } from './rate-limit.js';
import { boolean, object } from './schema.js';

export const httpLocalRatelimit = note(
  object({
    defaultLimit: note(
      tokenBucket,
      "the Gateway's bucket: every request of a virtual host and route without a bucket of its own takes a token from it, in each Envoy; over it: 429",
    ),
    localRateLimitPerDownstreamConnection: note(
      boolean,
      "true: every bucket of the Gateway's listener (its own, its virtual hosts' and routes') is kept per connection instead of per Envoy",
    ),
    enableXRatelimitHeaders: note(
      boolean,
      'true: every answer a bucket of the listener decided carries x-ratelimit-limit, -remaining and -reset (draft 03)',
    ),
  }),
  "Envoy's local_ratelimit HTTP filter on this listener, before authentication",
);

export const networkLocalRatelimit = note(
  tokenBucket,
  "Envoy's local_ratelimit network filter before the connection manager: each new connection takes a token, in each Envoy; a connection that finds none is closed at once",
);

export type HttpLocalRatelimitSpec = Static<typeof httpLocalRatelimit>;
