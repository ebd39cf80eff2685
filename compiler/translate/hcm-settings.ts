/** Gloo's further connection manager settings as Envoy's HttpConnectionManager fields (Gloo's hcm plugin's mapping). */
import type { HcmMoreIR } from '../ir/listener-options.js';
import type { Json } from './output.js';
import { tracingConfig } from './tracing.js';

const defined = (config: Record<string, unknown>): Json =>
  Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
const nonEmpty = (key: string, value: Json): Json => (Object.keys(value).length > 0 ? { [key]: value } : {});

const HEADER_KEY_FORMATS: Record<NonNullable<HcmMoreIR['headerKeyFormat']>, Json> = {
  properCase: { proper_case_words: {} },
  preserveCase: {
    stateful_formatter: {
      name: 'envoy.http.stateful_header_formatters.preserve_case',
      typed_config: {
        '@type':
          'type.googleapis.com/envoy.extensions.http.header_formatters.preserve_case.v3.PreserveCaseFormatterConfig',
      },
    },
  },
};

/** `top`: fields of the connection manager; `common`: of its common_http_protocol_options. */
export function hcmMoreFields(s: HcmMoreIR): { top: Json; common: Json } {
  const http1 = defined({
    accept_http_10: s.acceptHttp10,
    default_host_for_http_10: s.defaultHostForHttp10,
    allow_chunked_length: s.allowChunkedLength,
    enable_trailers: s.enableTrailers,
    header_key_format: s.headerKeyFormat ? HEADER_KEY_FORMATS[s.headerKeyFormat] : undefined,
  });
  const cert = s.setCurrentClientCertDetails;
  const uuid = s.uuidRequestIdConfig;
  const h2 = s.http2ProtocolOptions;
  const internal = s.internalAddressConfig;
  const top = defined({
    via: s.via,
    generate_request_id: s.generateRequestId,
    proxy_100_continue: s.proxy100Continue,
    strip_any_host_port: s.stripAnyHostPort,
    forward_client_cert_details: s.forwardClientCertDetails,
    set_current_client_cert_details: cert ? defined({ ...cert }) : undefined,
    preserve_external_request_id: s.preserveExternalRequestId,
    server_header_transformation: s.serverHeaderTransformation,
    codec_type: s.codecType,
    request_id_extension: uuid
      ? {
          typed_config: {
            '@type': 'type.googleapis.com/envoy.extensions.request_id.uuid.v3.UuidRequestIdConfig',
            ...defined({
              pack_trace_reason: uuid.packTraceReason,
              use_request_id_for_trace_sampling: uuid.useRequestIdForTraceSampling,
            }),
          },
        }
      : undefined,
    http2_protocol_options: h2
      ? defined({
          max_concurrent_streams: h2.maxConcurrentStreams,
          initial_stream_window_size: h2.initialStreamWindowSize,
          initial_connection_window_size: h2.initialConnectionWindowSize,
          override_stream_error_on_invalid_http_message: h2.overrideStreamErrorOnInvalidHttpMessage,
        })
      : undefined,
    internal_address_config: internal
      ? defined({
          unix_sockets: internal.unixSockets,
          cidr_ranges: internal.cidrRanges.length
            ? internal.cidrRanges.map((r) => ({ address_prefix: r.address, prefix_len: r.prefixLen }))
            : undefined,
        })
      : undefined,
    append_x_forwarded_port: s.appendXForwardedPort,
    tracing: s.tracing ? tracingConfig(s.tracing) : undefined,
    upgrade_configs: s.upgrades?.length
      ? s.upgrades.map((u) => ({ upgrade_type: u.type, enabled: u.enabled }))
      : undefined,
  });
  return {
    top: { ...top, ...nonEmpty('http_protocol_options', http1) },
    common: defined({ max_headers_count: s.maxHeadersCount, max_requests_per_connection: s.maxRequestsPerConnection }),
  };
}
