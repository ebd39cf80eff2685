/** A Gateway's listener-wide options (the PROXY protocol filter's settings, tcp_stats around each chain's socket) and a tcpGateway's tcp_proxy settings. */
import type { ListenerFieldsIR } from '../ir/listener-options.js';
import type { TcpProxyOptionsIR } from '../ir/tcp-options.js';
import type { Json } from './output.js';

/** Reads the PROXY protocol header a load balancer puts first; Envoy then sees the client's address. */
export function proxyProtocolFilter(settings: ListenerFieldsIR['proxyProtocol']): Json {
  return {
    name: 'envoy.filters.listener.proxy_protocol',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol',
      ...(settings?.rules.length
        ? {
            rules: settings.rules.map((r) => ({
              tlv_type: r.tlvType,
              on_tlv_present: { key: r.key, ...(r.namespace ? { metadata_namespace: r.namespace } : {}) },
            })),
          }
        : {}),
      ...(settings?.allowWithout ? { allow_requests_without_proxy_protocol: true } : {}),
    },
  };
}

const RAW_BUFFER: Json = {
  name: 'envoy.transport_sockets.raw_buffer',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.raw_buffer.v3.RawBuffer' },
};

/** Envoy's tcp_stats socket around `socket` (a plain chain's is raw_buffer, Envoy's default), as Gloo wraps it. */
export function withTcpStats(socket: Json | undefined): Json {
  return {
    name: 'envoy.transport_sockets.tcp_stats',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tcp_stats.v3.Config',
      transport_socket: socket ?? RAW_BUFFER,
    },
  };
}

/** A tcp_proxy's fields for a tcpGateway's options. */
export function tcpProxyFields(o: TcpProxyOptionsIR | undefined): Json {
  if (!o) return {};
  return {
    ...(o.maxConnectAttempts !== undefined ? { max_connect_attempts: o.maxConnectAttempts } : {}),
    ...(o.idleTimeout !== undefined ? { idle_timeout: o.idleTimeout } : {}),
    ...(o.tunnel
      ? {
          tunneling_config: {
            hostname: o.tunnel.hostname,
            ...(o.tunnel.headers.length > 0
              ? {
                  headers_to_add: o.tunnel.headers.map((h) => ({
                    header: { key: h.key, value: h.value },
                    append_action: h.append ? 'APPEND_IF_EXISTS_OR_ADD' : 'OVERWRITE_IF_EXISTS_OR_ADD',
                  })),
                }
              : {}),
          },
        }
      : {}),
    // Envoy's own place for it; the tcp_proxy field Gloo sets is deprecated.
    ...(o.accessLogFlushInterval !== undefined
      ? { access_log_options: { access_log_flush_interval: o.accessLogFlushInterval } }
      : {}),
  };
}
