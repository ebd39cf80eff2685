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
}

/** "10 tokens, 2 more every 2.5s" of an Envoy TokenBucket. */
function describeBucket(bucket: Json): string {
  const interval = parseDuration(String(bucket.fill_interval ?? '1s'));
  const every = interval === undefined ? String(bucket.fill_interval) : formatDuration(interval);
  return `${String(bucket.max_tokens)} tokens, ${String(bucket.tokens_per_fill ?? 1)} more every ${every}`;
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
  const whose = per ? `the ${per.level}'s bucket` : "the filter's own bucket";
  step.summary = `${whose}: ${describeBucket(bucket)}, in each Envoy instance`;
  step.details.push(
    per?.level === 'virtual host'
      ? 'shared with every route of the virtual host that has no bucket of its own'
      : 'its own bucket, apart from the virtual host',
  );
  return {
    step,
    assumption: {
      text: `${whose} still holds a token (explain does not count the requests before this one)`,
      otherwise: [RATE_LIMITED],
    },
  };
}
