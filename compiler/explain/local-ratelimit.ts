/**
 * envoy.filters.http.local_ratelimit, read from its compiled config as the
 * filter does (local_ratelimit.cc): the most specific LocalRateLimit, else
 * the filter's own; a config without a token bucket limits nothing. Explain
 * does not count: whether the bucket still holds a token depends on the
 * requests before this one, so it says which bucket applies and assumes a
 * token is left, with the 429 Envoy sends when none is.
 */
import { formatDuration, parseDuration } from '../../contract/proto3-json.js';
import { perFilterConfig } from '../envoy/match.js';
import type { Json } from '../translate/output.js';
import type { Outcome, Step } from './model.js';

export const LOCAL_RATELIMIT_FILTER = 'envoy.filters.http.local_ratelimit';
const NETWORK_LOCAL_RATELIMIT_FILTER = 'envoy.filters.network.local_ratelimit';
export const RATE_LIMITED: Outcome = {
  status: 429,
  body: 'local_rate_limited',
  headers: { 'x-envoy-ratelimited': 'true' },
  by: LOCAL_RATELIMIT_FILTER,
};
const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: local_ratelimit';

export interface LocalRateLimitResult {
  step: Step;
  assumption?: { text: string; otherwise: Outcome[] };
  /** x-ratelimit-* headers the filter adds to the upstream's answer (enable_x_ratelimit_headers). */
  responseHeaders?: Record<string, string>;
}

/** "10 tokens, 2 more every 2.5s" of an Envoy TokenBucket. */
function describeBucket(bucket: Json): string {
  const interval = parseDuration(String(bucket.fill_interval ?? '1s'));
  const every = interval === undefined ? String(bucket.fill_interval) : formatDuration(interval);
  const tokens = Number(bucket.max_tokens);
  return `${tokens} token${tokens === 1 ? '' : 's'}, ${String(bucket.tokens_per_fill ?? 1)} more every ${every}`;
}

export function evaluateLocalRateLimit(
  filter: Json,
  levels: Parameters<typeof perFilterConfig>[1],
): LocalRateLimitResult {
  const step: Step = { stage: 'local_ratelimit', summary: '', details: [], cite: CITE };
  const per = perFilterConfig(LOCAL_RATELIMIT_FILTER, levels);
  const config = per?.config ?? filter;
  const bucket = config.token_bucket as Json | undefined;
  if (!bucket) {
    step.summary = 'no limit: neither the route nor its virtual host has a local rate limit';
    return { step };
  }
  // Only a Gateway's httpLocalRatelimit gives the filter itself a bucket.
  const whose = per ? `the ${per.level}'s bucket` : "the Gateway's bucket";
  const perConnection = config.local_rate_limit_per_downstream_connection === true;
  step.summary = `${whose}: ${describeBucket(bucket)}, ${perConnection ? 'in each client connection' : 'in each Envoy instance'}`;
  step.details.push(
    !per
      ? "shared by every request on this listener's filter chain whose route and virtual host have no bucket of their own"
      : per.level === 'virtual host'
        ? 'shared with every route of the virtual host that has no bucket of its own'
        : 'its own bucket, apart from the virtual host',
  );
  const headers = config.enable_x_ratelimit_headers ? rateLimitHeaders(bucket) : undefined;
  if (headers)
    step.details.push(
      'every answer carries x-ratelimit-limit (the bucket size), x-ratelimit-remaining (tokens left) and x-ratelimit-reset (seconds to the next fill)',
    );
  return {
    step,
    assumption: {
      text: `${whose} still holds a token (explain does not count the requests before this one)`,
      otherwise: [
        headers
          ? { ...RATE_LIMITED, headers: { ...RATE_LIMITED.headers, ...headers, 'x-ratelimit-remaining': '0' } }
          : RATE_LIMITED,
      ],
    },
    ...(headers ? { responseHeaders: headers } : {}),
  };
}

/** Envoy's draft 03 headers of a local bucket; what is left and when it refills depend on the requests before. */
function rateLimitHeaders(bucket: Json): Record<string, string> {
  return {
    'x-ratelimit-limit': String(bucket.max_tokens),
    'x-ratelimit-remaining': '<tokens left>',
    'x-ratelimit-reset': '<seconds to the next fill>',
  };
}

/** envoy.filters.network.local_ratelimit in front of the connection manager: a token per new connection. */
export function evaluateNetworkLocalRateLimit(filters: Json[]): LocalRateLimitResult | undefined {
  const filter = filters.find((f) => f.name === NETWORK_LOCAL_RATELIMIT_FILTER);
  if (!filter) return undefined;
  const bucket = (filter.typed_config as Json).token_bucket as Json;
  return {
    step: {
      stage: 'network_local_ratelimit',
      summary: `the Gateway's connection bucket: ${describeBucket(bucket)}, in each Envoy instance; a new connection takes a token`,
      details: ['a request on a connection already open takes none'],
      cite: CITE,
    },
    assumption: {
      text: "the connection found a token in the Gateway's connection bucket when it opened (otherwise Envoy closes it at once, with no HTTP answer)",
      otherwise: [],
    },
  };
}
