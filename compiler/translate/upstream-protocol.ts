/**
 * How a cluster speaks to its upstream: Envoy's HttpProtocolOptions
 * extension (HTTP/1.1 or HTTP/2, their options, the common ones), and the
 * PROXY protocol transport socket around the cluster's own.
 */
import type { UpstreamPolicyIR } from '../ir/model.js';
import type { Json } from './output.js';

const HTTP_PROTOCOL_OPTIONS = 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';
const PRESERVE_CASE = 'envoy.http.stateful_header_formatters.preserve_case';

/** Only the fields that are set, under Envoy's names. */
function defined(fields: Record<string, unknown>): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

function http1Options(o: NonNullable<NonNullable<UpstreamPolicyIR['connection']>['http1ProtocolOptions']>): Json {
  const format = o.properCaseHeaderKeyFormat
    ? { proper_case_words: {} }
    : o.preserveCaseHeaderKeyFormat
      ? {
          stateful_formatter: {
            name: PRESERVE_CASE,
            typed_config: {
              '@type':
                'type.googleapis.com/envoy.extensions.http.header_formatters.preserve_case.v3.PreserveCaseFormatterConfig',
            },
          },
        }
      : undefined;
  return defined({
    // false is Envoy's default: written only when true, as Gloo does.
    enable_trailers: o.enableTrailers || undefined,
    header_key_format: format,
    override_stream_error_on_invalid_http_message: o.overrideStreamErrorOnInvalidHttpMessage,
  });
}

function http2Options(o: UpstreamPolicyIR['http2']): Json {
  return defined({
    initial_stream_window_size: o?.initialStreamWindowSize,
    initial_connection_window_size: o?.initialConnectionWindowSize,
    max_concurrent_streams: o?.maxConcurrentStreams,
    override_stream_error_on_invalid_http_message: o?.overrideStreamErrorOnInvalidHttpMessage,
  });
}

/** The cluster's typed_extension_protocol_options, or undefined where Envoy's defaults (HTTP/1.1, no options) hold. */
export function protocolOptions(http2: boolean, policy: UpstreamPolicyIR | undefined): Json | undefined {
  const conn = policy?.connection;
  const common = conn?.commonHttpProtocolOptions;
  const commonOptions = defined({
    idle_timeout: common?.idleTimeout,
    // 0 is Gloo's "unset"; Envoy needs at least 1.
    max_headers_count: common?.maxHeadersCount || undefined,
    max_stream_duration: common?.maxStreamDuration,
    max_requests_per_connection: conn?.maxRequestsPerConnection,
  });
  const http1 = conn?.http1ProtocolOptions ? http1Options(conn.http1ProtocolOptions) : {};
  if (!http2 && Object.keys(commonOptions).length === 0 && !conn?.http1ProtocolOptions) return undefined;
  const protocol = !http2
    ? { explicit_http_config: { http_protocol_options: http1 } }
    : policy?.downstreamProtocol
      ? {
          use_downstream_protocol_config: {
            http_protocol_options: http1,
            http2_protocol_options: http2Options(policy.http2),
          },
        }
      : { explicit_http_config: { http2_protocol_options: http2Options(policy?.http2) } };
  return {
    [HTTP_PROTOCOL_OPTIONS]: {
      '@type': `type.googleapis.com/${HTTP_PROTOCOL_OPTIONS}`,
      ...(Object.keys(commonOptions).length > 0 ? { common_http_protocol_options: commonOptions } : {}),
      ...protocol,
    },
  };
}

/** Gloo's proxyProtocolVersion: Envoy's upstream PROXY protocol socket around the cluster's (plain TCP when it has none). */
export function withProxyProtocol(version: 'V1' | 'V2', inner: Json | undefined): Json {
  return {
    name: 'envoy.transport_sockets.upstream_proxy_protocol',
    typed_config: {
      '@type':
        'type.googleapis.com/envoy.extensions.transport_sockets.proxy_protocol.v3.ProxyProtocolUpstreamTransport',
      config: { version },
      transport_socket: inner ?? {
        name: 'envoy.transport_sockets.raw_buffer',
        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.raw_buffer.v3.RawBuffer' },
      },
    },
  };
}
