/**
 * Gloo's HttpConnectionManagerSettings (hcm.proto) beyond the addresses and
 * timeouts: each one a field of Envoy's HttpConnectionManager or its
 * protocol options, as Gloo's hcm plugin sets it. resolve checks the CIDR
 * ranges and what goes together.
 */
import { Type, type Static } from '@sinclair/typebox';
import { differs, note, refused } from './gloo.js';
import { atMostOne, boolean, object, protoEnum, singleLine } from './schema.js';

const windowSize = note(Type.Integer({ minimum: 65535, maximum: 2147483647 }), '65535 to 2147483647');
const upgradeSpec = object({ enabled: note(boolean, 'unset: true') });

export const hcmMoreSettings = {
  via: note(singleLine, 'the Via header value Envoy adds to requests and responses'),
  generateRequestId: note(boolean, 'unset: true (Envoy sets x-request-id when absent)'),
  proxy100Continue: boolean,
  maxHeadersCount: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), 'at least 1; unset: 100'),
  maxRequestsPerConnection: note(Type.Integer({ minimum: 0, maximum: 4294967295 }), 'unset or 0: no limit'),
  stripAnyHostPort: note(boolean, 'true: the port of Host is ignored when matching domains'),
  acceptHttp10: boolean,
  defaultHostForHttp10: note(singleLine, 'only with acceptHttp10: the Host of HTTP/1.0 requests without one'),
  allowChunkedLength: boolean,
  enableTrailers: note(boolean, 'HTTP/1 trailers'),
  properCaseHeaderKeyFormat: note(
    boolean,
    'HTTP/1 header names written Proper-Case; not with preserveCaseHeaderKeyFormat',
  ),
  preserveCaseHeaderKeyFormat: note(boolean, 'HTTP/1 header names written as received'),
  forwardClientCertDetails: note(
    protoEnum(['SANITIZE', 'FORWARD_ONLY', 'APPEND_FORWARD', 'SANITIZE_SET', 'ALWAYS_FORWARD_ONLY']),
    "x-forwarded-client-cert; unset: SANITIZE (a client's header is removed)",
  ),
  setCurrentClientCertDetails: object({
    subject: boolean,
    cert: boolean,
    chain: boolean,
    dns: boolean,
    uri: boolean,
  }),
  preserveExternalRequestId: boolean,
  serverHeaderTransformation: note(
    protoEnum(['OVERWRITE', 'APPEND_IF_ABSENT', 'PASS_THROUGH']),
    'OVERWRITE (unset), APPEND_IF_ABSENT or PASS_THROUGH',
  ),
  codecType: note(protoEnum(['AUTO', 'HTTP1', 'HTTP2']), 'AUTO (unset), HTTP1 or HTTP2'),
  uuidRequestIdConfig: object({ packTraceReason: boolean, useRequestIdForTraceSampling: boolean }),
  http2ProtocolOptions: object({
    maxConcurrentStreams: note(Type.Integer({ minimum: 1, maximum: 2147483647 }), '1 to 2147483647'),
    initialStreamWindowSize: windowSize,
    initialConnectionWindowSize: windowSize,
    overrideStreamErrorOnInvalidHttpMessage: boolean,
  }),
  internalAddressConfig: object({
    unixSockets: boolean,
    cidrRanges: Type.Array(
      object(
        {
          addressPrefix: note(singleLine, 'an IP address'),
          prefixLen: note(Type.Integer({ minimum: 0, maximum: 128 }), 'default: the whole address'),
        },
        ['addressPrefix'],
      ),
    ),
  }),
  appendXForwardedPort: boolean,
  upgrades: differs(
    Type.Array(
      object(
        {
          websocket: upgradeSpec,
          connect: upgradeSpec,
          connectTerminate: refused('CONNECT termination is not implemented', 'use connect to proxy CONNECT requests'),
        },
        [],
        atMostOne('websocket', 'connect', 'connectTerminate'),
      ),
    ),
    'WebSocket and CONNECT upgrades as listed; unset: none, where Gloo enables WebSocket',
  ),
};

/** The oneof of the header key formats: validate reports both set. */
export const headerFormatOneOf = atMostOne('properCaseHeaderKeyFormat', 'preserveCaseHeaderKeyFormat');

const more = object(hcmMoreSettings);
export type HcmMoreSpec = Static<typeof more>;
