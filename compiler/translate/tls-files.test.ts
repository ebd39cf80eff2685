import type { DownstreamTlsIR } from '../ir/model.js';
import { checkMessage } from '../verify/proto-json.js';
import { downstreamTransportSocket, upstreamTransportSocket } from './tls.js';

const SOCKET = 'envoy.config.core.v3.TransportSocket';
const downstream = (files: DownstreamTlsIR['files'], oneWayTls = false) =>
  ({
    files,
    sniDomains: [],
    parameters: {},
    alpnProtocols: [],
    verifySubjectAltNames: [],
    oneWayTls,
    origin: undefined,
    path: [],
  }) as unknown as DownstreamTlsIR;

test('sslFiles on a listener: the files as Envoy data sources, no SDS; rootCa requires client certificates unless oneWayTls', () => {
  const json = downstreamTransportSocket(
    downstream({ certChain: '/c.crt', privateKey: '/c.key', rootCa: '/ca.crt' }),
    undefined,
  );
  expect(json.typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext',
    common_tls_context: {
      tls_certificates: [{ certificate_chain: { filename: '/c.crt' }, private_key: { filename: '/c.key' } }],
      validation_context: { trusted_ca: { filename: '/ca.crt' } },
    },
    require_client_certificate: true,
  });
  expect(checkMessage(SOCKET, json)).toEqual([]);
  const oneWay = downstreamTransportSocket(
    downstream({ certChain: '/c.crt', privateKey: '/c.key', rootCa: '/ca.crt' }, true),
    undefined,
  );
  expect(oneWay.typed_config).not.toHaveProperty('require_client_certificate');
  expect(JSON.stringify(oneWay)).not.toContain('ca.crt');
});

test('sslFiles to an upstream: rootCa verifies it with the names asked for, the certificate is the client one unless oneWayTls', () => {
  const tls = {
    files: { certChain: '/c.crt', privateKey: '/c.key', rootCa: '/ca.crt' },
    parameters: {},
    alpnProtocols: [],
    verifySubjectAltNames: ['orders.internal'],
    oneWayTls: false,
  };
  const json = upstreamTransportSocket(tls, undefined);
  const context = (json.typed_config as { common_tls_context: Record<string, unknown> }).common_tls_context;
  expect(context.tls_certificates).toEqual([
    { certificate_chain: { filename: '/c.crt' }, private_key: { filename: '/c.key' } },
  ]);
  expect(context.validation_context).toMatchObject({
    trusted_ca: { filename: '/ca.crt' },
    match_typed_subject_alt_names: expect.arrayContaining([{ san_type: 'DNS', matcher: { exact: 'orders.internal' } }]),
  });
  expect(checkMessage(SOCKET, json)).toEqual([]);
  const oneWay = upstreamTransportSocket({ ...tls, oneWayTls: true }, undefined);
  expect(JSON.stringify(oneWay)).not.toContain('/c.key');
});
