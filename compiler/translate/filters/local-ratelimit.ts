/**
 * Local rate limits: Envoy's local_ratelimit filter, before authentication
 * as Gloo places it (a request over the limit costs no token check), with no
 * bucket of its own, so only a virtual host's or route's limit acts. Each is
 * a LocalRateLimit per-filter config as Gloo writes it: its token bucket,
 * enabled and enforced for every request. Envoy keeps one bucket per config,
 * so the routes of a virtual host without a limit of their own share the
 * host's, and each Envoy instance has its own.
 */
import type { TokenBucketIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const LOCAL_RATELIMIT_FILTER_NAME = 'envoy.filters.http.local_ratelimit';
export const LOCAL_RATELIMIT_TYPE =
  'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit';
/** Gloo's stat prefix and stage (its stage before authentication). */
export const LOCAL_RATELIMIT_STAT_PREFIX = 'http_local_ratelimit';
const STAGE = 3;

const EVERY_REQUEST: Json = { default_value: { numerator: 100, denominator: 'HUNDRED' } };

/** envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit of one bucket. */
export function localRateLimit(bucket: TokenBucketIR): Json {
  return {
    '@type': LOCAL_RATELIMIT_TYPE,
    stat_prefix: LOCAL_RATELIMIT_STAT_PREFIX,
    stage: STAGE,
    token_bucket: {
      max_tokens: bucket.maxTokens,
      tokens_per_fill: bucket.tokensPerFill,
      fill_interval: bucket.fillInterval,
    },
    filter_enabled: EVERY_REQUEST,
    filter_enforced: EVERY_REQUEST,
  };
}

/** The filter without a bucket: it limits nothing until a virtual host or route gives one. */
export const UNLIMITED: Json = {
  '@type': LOCAL_RATELIMIT_TYPE,
  stat_prefix: LOCAL_RATELIMIT_STAT_PREFIX,
  stage: STAGE,
};

export const localRateLimitConcern: HttpFilterConcern = {
  filterName: LOCAL_RATELIMIT_FILTER_NAME,
  usedBy: (vh: VirtualHostIR) => vh.localRateLimit !== undefined || vh.routes.some((r) => r.options?.localRateLimit),
  httpFilter: () => ({ name: LOCAL_RATELIMIT_FILTER_NAME, typed_config: UNLIMITED }),
  idleFilter: () => ({ name: LOCAL_RATELIMIT_FILTER_NAME, typed_config: UNLIMITED }),
  perVirtualHost: (vh) => (vh.localRateLimit ? localRateLimit(vh.localRateLimit) : undefined),
  perRoute: (route) => (route.options?.localRateLimit ? localRateLimit(route.options.localRateLimit) : undefined),
};
