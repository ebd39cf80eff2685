import type { DownstreamTlsIR, UpstreamTlsIR } from '../ir/model.js';
import { downstreamTransportSocket, upstreamTransportSocket } from './tls.js';

const origin = { file: 'vs.yaml', resource: 'VirtualService shop/shop', lineOf: () => 1 };
const parameters = { cipherSuites: ['[AES128-SHA|AES256-SHA]'], ecdhCurves: ['P-256'] };

test('cipher suites and curves are tls_params on both sides; session tickets off downstream, renegotiation upstream', () => {
  const down: DownstreamTlsIR = {
    secret: 'shop/tls',
    sniDomains: [],
    parameters,
    alpnProtocols: [],
    verifySubjectAltNames: [],
    oneWayTls: false,
    disableSessionResumption: true,
    origin,
    path: ['spec', 'sslConfig'],
  };
  expect(downstreamTransportSocket(down, { name: 'shop/tls' }).typed_config).toMatchObject({
    common_tls_context: { tls_params: { cipher_suites: ['[AES128-SHA|AES256-SHA]'], ecdh_curves: ['P-256'] } },
    disable_stateless_session_resumption: true,
  });
  const up: UpstreamTlsIR = {
    parameters,
    alpnProtocols: [],
    verifySubjectAltNames: [],
    oneWayTls: false,
    allowRenegotiation: true,
  };
  expect(upstreamTransportSocket(up, undefined).typed_config).toMatchObject({
    allow_renegotiation: true,
    common_tls_context: { tls_params: { cipher_suites: ['[AES128-SHA|AES256-SHA]'], ecdh_curves: ['P-256'] } },
  });
});

test('unset: neither field is written', () => {
  const up: UpstreamTlsIR = { parameters: {}, alpnProtocols: [], verifySubjectAltNames: [], oneWayTls: false };
  expect(upstreamTransportSocket(up, undefined).typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
    common_tls_context: {},
  });
});
