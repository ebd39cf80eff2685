import { checkMessage } from '../verify/proto-json.js';
import { proxyProtocolFilter, tcpProxyFields, withTcpStats } from './listener-extras.js';

test('PROXY protocol: no settings is the bare filter (useProxyProto); rules and the allowance as Envoy names them', () => {
  expect(proxyProtocolFilter(undefined).typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol',
  });
  const json = proxyProtocolFilter({
    rules: [
      { tlvType: 234, key: 'vpc_id' },
      { tlvType: 2, key: 'authority', namespace: 'lb' },
    ],
    allowWithout: true,
  });
  expect(json.typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol',
    rules: [
      { tlv_type: 234, on_tlv_present: { key: 'vpc_id' } },
      { tlv_type: 2, on_tlv_present: { key: 'authority', metadata_namespace: 'lb' } },
    ],
    allow_requests_without_proxy_protocol: true,
  });
  expect(checkMessage('envoy.config.listener.v3.ListenerFilter', json)).toEqual([]);
});

test('tcp_stats wraps the chain socket it is given, and raw_buffer (Envoy default) when there is none', () => {
  const tls = { name: 'envoy.transport_sockets.tls', typed_config: { '@type': 'x' } };
  expect((withTcpStats(tls).typed_config as { transport_socket: unknown }).transport_socket).toBe(tls);
  const plain = withTcpStats(undefined);
  expect(plain).toEqual({
    name: 'envoy.transport_sockets.tcp_stats',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tcp_stats.v3.Config',
      transport_socket: {
        name: 'envoy.transport_sockets.raw_buffer',
        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.raw_buffer.v3.RawBuffer' },
      },
    },
  });
  expect(checkMessage('envoy.config.core.v3.TransportSocket', plain)).toEqual([]);
});

test("tcp_proxy settings: nothing set adds nothing; the tunnel's headers append unless told not to; the flush interval in access_log_options", () => {
  expect(tcpProxyFields(undefined)).toEqual({});
  const fields = tcpProxyFields({
    maxConnectAttempts: 2,
    idleTimeout: '0s',
    accessLogFlushInterval: '1s',
    tunnel: {
      hostname: 'db:5432',
      headers: [
        { key: 'x-a', value: '1', append: true },
        { key: 'x-b', value: '2', append: false },
      ],
    },
  });
  expect(fields).toEqual({
    max_connect_attempts: 2,
    idle_timeout: '0s',
    tunneling_config: {
      hostname: 'db:5432',
      headers_to_add: [
        { header: { key: 'x-a', value: '1' }, append_action: 'APPEND_IF_EXISTS_OR_ADD' },
        { header: { key: 'x-b', value: '2' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
      ],
    },
    access_log_options: { access_log_flush_interval: '1s' },
  });
  expect(
    checkMessage('envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy', {
      stat_prefix: 'tcp',
      cluster: 'db',
      ...fields,
    }),
  ).toEqual([]);
});
