/**
 * A Gateway's own HTTP filters (httpGateway.options) placed into the chain
 * every listener shares, where Gloo's filter stages put them: the compressor
 * first (so it compresses last on the way back, after every filter that
 * writes a response), grpc_web, health_check and grpc_json_transcoder after
 * the authentication and authorization filters, buffer before csrf (Gloo's
 * route stage); ext_proc and wasm filters where their stage puts them;
 * stateful_session last before the router (it only picks the router's
 * upstream host); the router with the Gateway's settings; connection_limit in front of the
 * connection manager.
 */
import { accessLog } from './access-logs.js';
import type {
  ConnectionLimitIR,
  GrpcJsonTranscoderIR,
  GzipIR,
  HttpListenerOptionsIR,
  ListenerFieldsIR,
} from '../ir/listener-options.js';
import { ROUTER_FILTER } from './listener.js';
import type { Json } from './output.js';
import { BUFFER_FILTER_NAME, BUFFER_TYPE } from './filters/buffer.js';
import { extProcStaged, placeStaged, upstreamHttpFilters } from './ext-proc-stages.js';
import { wasmStaged } from './filters/wasm.js';
import { statefulSessionFilter } from './filters/stateful-session.js';

export const COMPRESSOR_FILTER_NAME = 'envoy.filters.http.compressor';
export const HEALTH_CHECK_FILTER_NAME = 'envoy.filters.http.health_check';
export const GRPC_WEB_FILTER_NAME = 'envoy.filters.http.grpc_web';
export const TRANSCODER_FILTER_NAME = 'envoy.filters.http.grpc_json_transcoder';
const EXT = 'type.googleapis.com/envoy.extensions';

/** Filters of the shared chain that come after the Gateway's middle filters (Gloo's rate limit and route stages). */
const RATELIMIT = 'envoy.filters.http.ratelimit';
const LATER = new Set([RATELIMIT, BUFFER_FILTER_NAME, 'envoy.filters.http.csrf', 'sluice.graphql']);

/** Rate limit filters are named by domain (`envoy.filters.http.ratelimit.<domain>`); the early ones (`.early`) come before authentication. */
const isLater = (name: string) => LATER.has(name) || (name.startsWith(`${RATELIMIT}.`) && !name.endsWith('.early'));

const filter = (name: string, type: string, config: Json = {}): Json => ({
  name,
  typed_config: { '@type': `${EXT}.${type}`, ...config },
});

const defined = (config: Record<string, unknown>): Json =>
  Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));

export function compressorFilter(g: GzipIR): Json {
  const common = defined({ min_content_length: g.minContentLength, content_type: g.contentTypes });
  const response = {
    ...(Object.keys(common).length > 0 ? { common_config: common } : {}),
    ...(g.disableOnEtagHeader ? { disable_on_etag_header: true } : {}),
    ...(g.removeAcceptEncodingHeader ? { remove_accept_encoding_header: true } : {}),
  };
  return filter(COMPRESSOR_FILTER_NAME, 'filters.http.compressor.v3.Compressor', {
    compressor_library: {
      name: 'envoy.compression.gzip.compressor',
      typed_config: {
        '@type': `${EXT}.compression.gzip.compressor.v3.Gzip`,
        ...defined({
          memory_level: g.memoryLevel,
          compression_level: g.compressionLevel,
          compression_strategy: g.compressionStrategy,
          window_bits: g.windowBits,
        }),
      },
    },
    ...(Object.keys(response).length > 0 ? { response_direction_config: response } : {}),
  });
}

/** Not passed through: Envoy answers the health check itself (200, or 503 while it drains). */
export function healthCheckFilter(path: string): Json {
  return filter(HEALTH_CHECK_FILTER_NAME, 'filters.http.health_check.v3.HealthCheck', {
    pass_through_mode: false,
    headers: [{ name: ':path', string_match: { exact: path } }],
  });
}

export function transcoderFilter(t: GrpcJsonTranscoderIR): Json {
  const print = t.printOptions;
  return filter(TRANSCODER_FILTER_NAME, 'filters.http.grpc_json_transcoder.v3.GrpcJsonTranscoder', {
    ...(t.descriptor.kind === 'file'
      ? { proto_descriptor: t.descriptor.path }
      : { proto_descriptor_bin: t.descriptor.base64 }),
    services: t.services,
    ...(print
      ? {
          print_options: defined({
            add_whitespace: print.addWhitespace,
            always_print_primitive_fields: print.alwaysPrintPrimitiveFields,
            always_print_enums_as_ints: print.alwaysPrintEnumsAsInts,
            preserve_proto_field_names: print.preserveProtoFieldNames,
          }),
        }
      : {}),
    ...defined({
      match_incoming_request_route: t.matchIncomingRequestRoute,
      ignored_query_parameters: t.ignoredQueryParameters,
      auto_mapping: t.autoMapping,
      ignore_unknown_query_parameters: t.ignoreUnknownQueryParameters,
      convert_grpc_status: t.convertGrpcStatus,
    }),
  });
}

export function connectionLimitFilter(limit: ConnectionLimitIR): Json {
  return filter('envoy.filters.network.connection_limit', 'filters.network.connection_limit.v3.ConnectionLimit', {
    stat_prefix: 'connection_limit',
    max_connections: limit.maxConnections,
    ...(limit.delay ? { delay: limit.delay } : {}),
  });
}

/** The shared chain with the Gateway's filters in place (a filter of the same name already there takes the Gateway's config). */
export function chainHttpFilters(shared: Json[], options: HttpListenerOptionsIR | undefined): Json[] {
  if (!options) return shared;
  const first = options.gzip ? [compressorFilter(options.gzip)] : [];
  const middle = [
    ...(options.grpcWeb ? [filter(GRPC_WEB_FILTER_NAME, 'filters.http.grpc_web.v3.GrpcWeb')] : []),
    ...(options.healthCheckPath !== undefined ? [healthCheckFilter(options.healthCheckPath)] : []),
    ...(options.grpcJsonTranscoder ? [transcoderFilter(options.grpcJsonTranscoder)] : []),
  ];
  const buffer =
    options.maxRequestBytes !== undefined
      ? { name: BUFFER_FILTER_NAME, typed_config: { '@type': BUFFER_TYPE, max_request_bytes: options.maxRequestBytes } }
      : undefined;
  const own = new Set([...first, ...middle, ...(buffer ? [buffer] : [])].map((f) => f.name));
  const rest = shared.filter((f) => !own.has(f.name as string) || f.name === BUFFER_FILTER_NAME);
  const at = rest.findIndex((f) => isLater(f.name as string));
  const split = at < 0 ? rest.length : at;
  const later = rest.slice(split);
  const bufferAt = later.findIndex((f) => f.name === BUFFER_FILTER_NAME);
  if (buffer && bufferAt >= 0) later[bufferAt] = buffer;
  else if (buffer) {
    const before = later.findIndex((f) => f.name === 'envoy.filters.http.csrf' || f.name === 'sluice.graphql');
    later.splice(before < 0 ? later.length : before, 0, buffer);
  }
  const placed = placeStaged(
    [...first, ...rest.slice(0, split), ...middle, ...later],
    [...extProcStaged(options.extProc), ...wasmStaged(options.wasm)],
  );
  return options.statefulSession ? [...placed, statefulSessionFilter(options.statefulSession)] : placed;
}

/** The router, with the Gateway's settings. */
export function routerFilter(options: HttpListenerOptionsIR | undefined): Json {
  const r = options?.router;
  const settings = defined({
    suppress_envoy_headers: r?.suppressEnvoyHeaders,
    dynamic_stats: r?.dynamicStats,
    upstream_http_filters: upstreamHttpFilters(options?.extProc),
  });
  if (Object.keys(settings).length === 0) return ROUTER_FILTER;
  return { ...ROUTER_FILTER, typed_config: { ...(ROUTER_FILTER.typed_config as Json), ...settings } };
}

/** spec.options' fields of the Listener. */
export function listenerFieldsJson(fields: ListenerFieldsIR | undefined): Json {
  if (!fields) return {};
  return defined({
    per_connection_buffer_limit_bytes: fields.perConnectionBufferLimitBytes,
    socket_options: fields.socketOptions?.map((o) =>
      defined({
        description: o.description,
        level: o.level,
        name: o.name,
        ...(o.value.kind === 'int' ? { int_value: o.value.int } : { buf_value: o.value.base64 }),
        state: o.state,
      }),
    ),
    connection_balance_config: fields.exactBalance ? { exact_balance: {} } : undefined,
    access_log: fields.accessLogs?.length ? fields.accessLogs.map((log) => accessLog(log, 'tcp')) : undefined,
  });
}
