import { compileFiles } from '../pipeline.js';
import { DEFAULT_OPTIONS } from './output.js';
import type { GatewayLocalRateLimitIR } from '../ir/listener-options.js';
import {
  networkLocalRateLimitFilter,
  withGatewayLocalRateLimit,
  withListenerLocalRateLimitSettings,
} from './gateway-local-ratelimit.js';
import type { Json } from './output.js';

const LOCAL = 'envoy.filters.http.local_ratelimit';
const f = (name: string, config: Json = {}): Json => ({ name, typed_config: { '@type': `t/${name}`, ...config } });
const names = (filters: Json[]) => filters.map((x) => x.name);
const bucket = { maxTokens: 1, tokensPerFill: 1, fillInterval: '100s' };
const GATEWAY: GatewayLocalRateLimitIR = { defaultLimit: bucket, perConnection: false, xRateLimitHeaders: true };

describe('withGatewayLocalRateLimit', () => {
  test('no httpLocalRatelimit: the shared chain as it is', () => {
    const shared = [f('envoy.filters.http.cors')];
    expect(withGatewayLocalRateLimit(shared, undefined)).toBe(shared);
  });

  test("a chain without the filter gets it after fault and CORS, before authentication (Gloo's stage)", () => {
    const shared = ['envoy.filters.http.fault', 'envoy.filters.http.cors', 'envoy.filters.http.jwt_authn'].map((n) =>
      f(n),
    );
    expect(names(withGatewayLocalRateLimit(shared, GATEWAY))).toEqual([
      'envoy.filters.http.fault',
      'envoy.filters.http.cors',
      LOCAL,
      'envoy.filters.http.jwt_authn',
    ]);
    expect(names(withGatewayLocalRateLimit([], GATEWAY))).toEqual([LOCAL]);
    expect(shared).toHaveLength(3);
  });

  test("the shared filter (no bucket) is replaced by the Gateway's, with its bucket enforced on every request and the headers", () => {
    const shared = [f(LOCAL, { stat_prefix: 'http_local_ratelimit', stage: 3 }), f('envoy.filters.http.rbac')];
    const chain = withGatewayLocalRateLimit(shared, GATEWAY);
    expect(names(chain)).toEqual([LOCAL, 'envoy.filters.http.rbac']);
    expect(chain[0]!.typed_config).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit',
      stat_prefix: 'http_local_ratelimit',
      stage: 3,
      token_bucket: { max_tokens: 1, tokens_per_fill: 1, fill_interval: '100s' },
      filter_enabled: { default_value: { numerator: 100, denominator: 'HUNDRED' } },
      filter_enforced: { default_value: { numerator: 100, denominator: 'HUNDRED' } },
      enable_x_ratelimit_headers: 'DRAFT_VERSION_03',
    });
  });

  test('settings without a default bucket: a filter that limits nothing itself, never enabled or enforced', () => {
    const [filter] = withGatewayLocalRateLimit([], { perConnection: true, xRateLimitHeaders: false });
    expect(filter!.typed_config).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit',
      stat_prefix: 'http_local_ratelimit',
      stage: 3,
      local_rate_limit_per_downstream_connection: true,
    });
  });
});

describe('withListenerLocalRateLimitSettings', () => {
  const own = { '@type': 't', token_bucket: { max_tokens: 3 } };
  const vh: Json = {
    name: 'h',
    typed_per_filter_config: { [LOCAL]: own, other: { x: 1 } },
    routes: [{ name: 'a', typed_per_filter_config: { [LOCAL]: own } }, { name: 'b' }],
  };

  test("the host's and each route's bucket take the listener's settings; the rest is untouched", () => {
    const out = withListenerLocalRateLimitSettings(vh, { perConnection: true, xRateLimitHeaders: true });
    const settings = {
      local_rate_limit_per_downstream_connection: true,
      enable_x_ratelimit_headers: 'DRAFT_VERSION_03',
    };
    expect(out).toEqual({
      name: 'h',
      typed_per_filter_config: { [LOCAL]: { ...own, ...settings }, other: { x: 1 } },
      routes: [{ name: 'a', typed_per_filter_config: { [LOCAL]: { ...own, ...settings } } }, { name: 'b' }],
    });
    // The host's output is shared with other listeners: not changed in place.
    expect((vh.typed_per_filter_config as Json)[LOCAL]).toBe(own);
    // The same host with the same settings: the same object, so the snapshot encoder keeps its bytes.
    expect(withListenerLocalRateLimitSettings(vh, { perConnection: true, xRateLimitHeaders: true })).toBe(out);
    expect(withListenerLocalRateLimitSettings(vh, { perConnection: true, xRateLimitHeaders: false })).not.toBe(out);
  });

  test('no settings that change a bucket: the same output', () => {
    expect(withListenerLocalRateLimitSettings(vh, undefined)).toBe(vh);
    expect(
      withListenerLocalRateLimitSettings(vh, { defaultLimit: bucket, perConnection: false, xRateLimitHeaders: false }),
    ).toBe(vh);
  });
});

test("networkLocalRatelimit: Envoy's network filter with Gloo's stat prefix", () => {
  expect(networkLocalRateLimitFilter({ maxTokens: 5, tokensPerFill: 2, fillInterval: '0.500s' })).toEqual({
    name: 'envoy.filters.network.local_ratelimit',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit',
      stat_prefix: 'network_local_ratelimit',
      token_bucket: { max_tokens: 5, tokens_per_fill: 2, fill_interval: '0.500s' },
    },
  });
});

describe("a tcpGateway's localRatelimit", () => {
  test("Envoy's network local_ratelimit on each TCP host's chain, after connection_limit, before tcp_proxy", async () => {
    const result = await compileFiles(['golden/gateway-tcp-local-ratelimit/input'], DEFAULT_OPTIONS);
    const listener = [...result.xds!.listeners.values()][0] as { filter_chains: { filters: Json[] }[] };
    const filters = listener.filter_chains[0]!.filters;
    expect(names(filters)).toEqual([
      'envoy.filters.network.connection_limit',
      'envoy.filters.network.local_ratelimit',
      'envoy.filters.network.tcp_proxy',
    ]);
    expect((filters[1]!.typed_config as Json).token_bucket).toEqual({
      max_tokens: 5,
      tokens_per_fill: 1,
      fill_interval: '2s',
    });
  });
});
