import type { HttpListenerOptionsIR } from '../ir/listener-options.js';
import {
  chainHttpFilters,
  compressorFilter,
  connectionLimitFilter,
  listenerFieldsJson,
  routerFilter,
} from './gateway-filters.js';
import { ROUTER_FILTER } from './listener.js';
import type { Json } from './output.js';

const f = (name: string): Json => ({ name, typed_config: { '@type': `type.googleapis.com/${name}` } });
const names = (filters: Json[]) => filters.map((x) => x.name);
const SHARED = [
  'envoy.filters.http.fault',
  'envoy.filters.http.cors',
  'envoy.filters.http.jwt_authn',
  'envoy.filters.http.rbac',
  'envoy.filters.http.ext_authz',
  'envoy.filters.http.csrf',
  'sluice.graphql',
].map(f);
const ALL: HttpListenerOptionsIR = {
  gzip: { disableOnEtagHeader: false, removeAcceptEncodingHeader: false },
  healthCheckPath: '/healthz',
  grpcWeb: true,
  maxRequestBytes: 1024,
  grpcJsonTranscoder: { descriptor: { kind: 'file', path: '/d.pb' }, services: ['a.B'] },
};

describe('chainHttpFilters', () => {
  test('no options: the shared chain as it is', () => {
    expect(chainHttpFilters(SHARED, undefined)).toBe(SHARED);
  });

  test("Gloo's stages: compressor first, grpc_web, health_check and the transcoder after authorization, buffer before csrf", () => {
    expect(names(chainHttpFilters(SHARED, ALL))).toEqual([
      'envoy.filters.http.compressor',
      'envoy.filters.http.fault',
      'envoy.filters.http.cors',
      'envoy.filters.http.jwt_authn',
      'envoy.filters.http.rbac',
      'envoy.filters.http.ext_authz',
      'envoy.filters.http.grpc_web',
      'envoy.filters.http.health_check',
      'envoy.filters.http.grpc_json_transcoder',
      'envoy.filters.http.buffer',
      'envoy.filters.http.csrf',
      'sluice.graphql',
    ]);
    // The shared list is not changed: other listeners use it.
    expect(SHARED).toHaveLength(7);
  });

  test('a rate limit filter stays after the middle filters and before the buffer', () => {
    const shared = [f('envoy.filters.http.rbac'), f('envoy.filters.http.ratelimit')];
    expect(names(chainHttpFilters(shared, ALL)).slice(1)).toEqual([
      'envoy.filters.http.rbac',
      'envoy.filters.http.grpc_web',
      'envoy.filters.http.health_check',
      'envoy.filters.http.grpc_json_transcoder',
      'envoy.filters.http.ratelimit',
      'envoy.filters.http.buffer',
    ]);
  });

  test("a buffer filter already in the chain (per-route buffers) takes the Gateway's limit in its place, once", () => {
    const shared = [f('envoy.filters.http.cors'), f('envoy.filters.http.buffer'), f('envoy.filters.http.csrf')];
    const out = chainHttpFilters(shared, { maxRequestBytes: 2048 });
    expect(names(out)).toEqual(['envoy.filters.http.cors', 'envoy.filters.http.buffer', 'envoy.filters.http.csrf']);
    expect((out[1]!.typed_config as Json).max_request_bytes).toBe(2048);
  });

  test('an empty chain: the filters alone, in order', () => {
    expect(names(chainHttpFilters([], { healthCheckPath: '/h', maxRequestBytes: 1 }))).toEqual([
      'envoy.filters.http.health_check',
      'envoy.filters.http.buffer',
    ]);
  });
});

test("gzip with nothing set: the library alone, Envoy's defaults", () => {
  expect(compressorFilter({ disableOnEtagHeader: false, removeAcceptEncodingHeader: false }).typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.filters.http.compressor.v3.Compressor',
    compressor_library: {
      name: 'envoy.compression.gzip.compressor',
      typed_config: { '@type': 'type.googleapis.com/envoy.extensions.compression.gzip.compressor.v3.Gzip' },
    },
  });
});

test('the router: the shared one unless a setting is made', () => {
  expect(routerFilter(undefined)).toBe(ROUTER_FILTER);
  expect(routerFilter({ router: {} })).toBe(ROUTER_FILTER);
  expect(routerFilter({ router: { dynamicStats: false } }).typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
    dynamic_stats: false,
  });
});

test('connection_limit: no delay unless set', () => {
  expect(connectionLimitFilter({ maxConnections: 5 }).typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.filters.network.connection_limit.v3.ConnectionLimit',
    stat_prefix: 'connection_limit',
    max_connections: 5,
  });
});

test("the listener's own fields: a buffer value as bytes, nothing when none is set", () => {
  expect(listenerFieldsJson(undefined)).toEqual({});
  expect(
    listenerFieldsJson({
      socketOptions: [{ level: 1, name: 25, value: { kind: 'buf', base64: 'ZXRoMAA=' }, state: 'STATE_PREBIND' }],
      exactBalance: true,
    }),
  ).toEqual({
    socket_options: [{ level: 1, name: 25, buf_value: 'ZXRoMAA=', state: 'STATE_PREBIND' }],
    connection_balance_config: { exact_balance: {} },
  });
});
