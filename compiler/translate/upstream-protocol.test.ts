import type { UpstreamIR } from '../ir/model.js';
import { upstreamCluster } from './clusters.js';
import { protocolOptions, withProxyProtocol } from './upstream-protocol.js';

const OPTIONS = 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';
const origin = { file: 'u.yaml', resource: 'Upstream default/u', lineOf: () => 1 };
const upstream = (extra: Partial<UpstreamIR>): UpstreamIR => ({
  name: 'u',
  namespace: 'default',
  origin,
  target: { kind: 'static', hosts: [{ address: '10.0.0.1', port: 80 }] },
  ...extra,
});

describe('protocolOptions', () => {
  test("HTTP/1.1 without options keeps Envoy's defaults: no extension", () => {
    expect(protocolOptions(false, undefined)).toBeUndefined();
    expect(protocolOptions(false, { connection: { connectTimeout: '1s' } })).toBeUndefined();
  });

  test('common options under Envoy names; maxHeadersCount 0 is unset, as in Gloo', () => {
    const out = protocolOptions(false, {
      connection: { commonHttpProtocolOptions: { idleTimeout: '0s', maxHeadersCount: 0, maxStreamDuration: '3s' } },
    });
    expect(out?.[OPTIONS]).toEqual({
      '@type': `type.googleapis.com/${OPTIONS}`,
      common_http_protocol_options: { idle_timeout: '0s', max_stream_duration: '3s' },
      explicit_http_config: { http_protocol_options: {} },
    });
  });

  test('HTTP/1 header formats: proper case, or the preserve_case stateful formatter', () => {
    const proper = protocolOptions(false, {
      connection: { http1ProtocolOptions: { properCaseHeaderKeyFormat: true } },
    });
    expect(proper?.[OPTIONS]).toMatchObject({
      explicit_http_config: { http_protocol_options: { header_key_format: { proper_case_words: {} } } },
    });
    const preserve = protocolOptions(false, {
      connection: { http1ProtocolOptions: { preserveCaseHeaderKeyFormat: true, enableTrailers: false } },
    });
    expect(preserve?.[OPTIONS]).toMatchObject({
      explicit_http_config: {
        http_protocol_options: {
          header_key_format: { stateful_formatter: { name: 'envoy.http.stateful_header_formatters.preserve_case' } },
        },
      },
    });
    // enableTrailers false is Envoy's default and not written.
    expect(
      (preserve?.[OPTIONS] as { explicit_http_config: { http_protocol_options: object } }).explicit_http_config
        .http_protocol_options,
    ).not.toHaveProperty('enable_trailers');
  });

  test('HTTP/2: its options explicit, or both protocols as the client spoke with USE_DOWNSTREAM_PROTOCOL', () => {
    const http2 = { maxConcurrentStreams: 7, initialStreamWindowSize: 65535 };
    expect(protocolOptions(true, { http2 })?.[OPTIONS]).toEqual({
      '@type': `type.googleapis.com/${OPTIONS}`,
      explicit_http_config: {
        http2_protocol_options: { max_concurrent_streams: 7, initial_stream_window_size: 65535 },
      },
    });
    expect(
      protocolOptions(true, {
        http2,
        downstreamProtocol: true,
        connection: { http1ProtocolOptions: { enableTrailers: true } },
      })?.[OPTIONS],
    ).toEqual({
      '@type': `type.googleapis.com/${OPTIONS}`,
      use_downstream_protocol_config: {
        http_protocol_options: { enable_trailers: true },
        http2_protocol_options: { max_concurrent_streams: 7, initial_stream_window_size: 65535 },
      },
    });
  });
});

describe('proxyProtocolVersion', () => {
  test('wraps a plain cluster in raw_buffer, and a TLS cluster around its TLS socket', () => {
    expect(withProxyProtocol('V1', undefined)).toMatchObject({
      name: 'envoy.transport_sockets.upstream_proxy_protocol',
      typed_config: { config: { version: 'V1' }, transport_socket: { name: 'envoy.transport_sockets.raw_buffer' } },
    });
    const tls = upstreamCluster(
      upstream({
        tls: { parameters: {}, alpnProtocols: [], verifySubjectAltNames: [], oneWayTls: false, sni: 'a.internal' },
        policy: { proxyProtocolVersion: 'V2' },
      }),
    ).cluster;
    expect(tls.transport_socket).toMatchObject({
      typed_config: {
        config: { version: 'V2' },
        transport_socket: { name: 'envoy.transport_sockets.tls', typed_config: { sni: 'a.internal' } },
      },
    });
  });

  test('without it the cluster has no socket of its own', () => {
    expect(upstreamCluster(upstream({})).cluster).not.toHaveProperty('transport_socket');
  });
});
