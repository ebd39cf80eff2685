/**
 * A Gateway's local rate limits (httpGateway.options), as Gloo's
 * local_ratelimit plugin writes them. httpLocalRatelimit: the listener's
 * local_ratelimit HTTP filter carries the Gateway's bucket (taken by every
 * request whose route and virtual host have none), in the place the shared
 * chain gives the filter (after fault and CORS, before authentication); its
 * settings go into every bucket served on the listener, the virtual hosts'
 * and routes' too, since Envoy reads them from the most specific config.
 * networkLocalRatelimit: the network filter after connection_limit, before
 * the connection manager.
 */
import type { GatewayLocalRateLimitIR } from '../ir/listener-options.js';
import type { TokenBucketIR } from '../ir/model.js';
import { CORS_FILTER_NAME } from './filters/cors.js';
import { FAULT_FILTER_NAME } from './filters/fault.js';
import { LOCAL_RATELIMIT_FILTER_NAME, localRateLimit, UNLIMITED } from './filters/local-ratelimit.js';
import type { Json } from './output.js';

/** The shared chain's filters that come before local_ratelimit. */
const BEFORE = new Set([FAULT_FILTER_NAME, CORS_FILTER_NAME]);

function withSettings(config: Json, settings: GatewayLocalRateLimitIR): Json {
  return {
    ...config,
    ...(settings.perConnection ? { local_rate_limit_per_downstream_connection: true } : {}),
    ...(settings.xRateLimitHeaders ? { enable_x_ratelimit_headers: 'DRAFT_VERSION_03' } : {}),
  };
}

/** The shared chain with the Gateway's local_ratelimit filter in place of the shared one, or where it would be. */
export function withGatewayLocalRateLimit(chain: Json[], settings: GatewayLocalRateLimitIR | undefined): Json[] {
  if (!settings) return chain;
  const own = settings.defaultLimit ? localRateLimit(settings.defaultLimit) : UNLIMITED;
  const filter = { name: LOCAL_RATELIMIT_FILTER_NAME, typed_config: withSettings(own, settings) };
  const at = chain.findIndex((f) => f.name === LOCAL_RATELIMIT_FILTER_NAME);
  if (at >= 0) return chain.map((f, i) => (i === at ? filter : f));
  const after = chain.findIndex((f) => !BEFORE.has(f.name as string));
  const split = after < 0 ? chain.length : after;
  return [...chain.slice(0, split), filter, ...chain.slice(split)];
}

/** Each virtual host's output with settings, by the settings: an unchanged host stays the same object (the snapshot encoder keys on it). */
const withSettingsOf = new WeakMap<Json, Map<string, Json>>();

/** A virtual host's output with the listener's settings in its and its routes' local rate limit configs. */
export function withListenerLocalRateLimitSettings(vh: Json, settings: GatewayLocalRateLimitIR | undefined): Json {
  if (!settings || (!settings.perConnection && !settings.xRateLimitHeaders)) return vh;
  const key = `${settings.perConnection}/${settings.xRateLimitHeaders}`;
  let byKey = withSettingsOf.get(vh);
  if (!byKey) withSettingsOf.set(vh, (byKey = new Map()));
  let out = byKey.get(key);
  if (!out) byKey.set(key, (out = hostWithSettings(vh, settings)));
  return out;
}

function hostWithSettings(vh: Json, settings: GatewayLocalRateLimitIR): Json {
  const set = (owner: Json): Json => {
    const configs = owner.typed_per_filter_config as Json | undefined;
    const config = configs?.[LOCAL_RATELIMIT_FILTER_NAME] as Json | undefined;
    if (!config) return owner;
    return {
      ...owner,
      typed_per_filter_config: { ...configs, [LOCAL_RATELIMIT_FILTER_NAME]: withSettings(config, settings) },
    };
  };
  const routes = vh.routes as Json[] | undefined;
  return set(routes ? { ...vh, routes: routes.map(set) } : vh);
}

/** Envoy's network local_ratelimit: each new connection takes a token; with none left it is closed at once. */
export function networkLocalRateLimitFilter(bucket: TokenBucketIR): Json {
  return {
    name: 'envoy.filters.network.local_ratelimit',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit',
      stat_prefix: 'network_local_ratelimit',
      token_bucket: {
        max_tokens: bucket.maxTokens,
        tokens_per_fill: bucket.tokensPerFill,
        fill_interval: bucket.fillInterval,
      },
    },
  };
}
