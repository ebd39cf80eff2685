/**
 * Gloo's connection.proto and protocol.proto as an Upstream uses them, with
 * the Upstream's HTTP/2 and PROXY protocol fields: they become the cluster's
 * connection settings and its HttpProtocolOptions (Envoy's
 * envoy.extensions.upstreams.http.v3.HttpProtocolOptions).
 */
import { Type } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import {
  atMostOne,
  boolean,
  lineOrEmpty,
  singleLine,
  nonNegativeDuration,
  object,
  oneOfValues,
  protoEnum,
  positiveDuration,
  uint32,
} from './schema.js';

const wholeSeconds = "whole seconds (Envoy's unit), rounded up";

// protocol.proto's HttpProtocolOptions: Envoy's common options for the cluster's HTTP/1 and HTTP/2 connections.
const commonHttpProtocolOptions = object({
  idleTimeout: note(nonNegativeDuration, 'unset: 1 hour; "0s": never'),
  maxHeadersCount: note(uint32, "headers of an upstream response; 0 or unset: Envoy's 100"),
  maxStreamDuration: positiveDuration,
  headersWithUnderscoresAction: refused(
    "Envoy applies it to client requests only and ignores it in a cluster's options",
    "Sluice's listeners keep Envoy's default for client requests (ALLOW)",
  ),
});

const headerCase = 'at most one of properCaseHeaderKeyFormat, preserveCaseHeaderKeyFormat';

// protocol.proto's Http1ProtocolOptions.
const http1ProtocolOptions = object(
  {
    enableTrailers: note(boolean, 'trailers reach the upstream only where the listener keeps them too'),
    properCaseHeaderKeyFormat: note(boolean, `${headerCase}: request headers written Proper-Case to the upstream`),
    preserveCaseHeaderKeyFormat: note(
      boolean,
      `${headerCase}: Envoy's preserve_case formatter records the upstream's response header case`,
    ),
    overrideStreamErrorOnInvalidHttpMessage: boolean,
  },
  [],
  atMostOne('properCaseHeaderKeyFormat', 'preserveCaseHeaderKeyFormat'),
);

export const connectionConfig = object({
  maxRequestsPerConnection: uint32,
  connectTimeout: note(positiveDuration, 'default 5s'),
  tcpKeepalive: object({
    keepaliveProbes: uint32,
    keepaliveTime: note(positiveDuration, wholeSeconds),
    keepaliveInterval: note(positiveDuration, wholeSeconds),
  }),
  perConnectionBufferLimitBytes: uint32,
  commonHttpProtocolOptions,
  http1ProtocolOptions: note(
    http1ProtocolOptions,
    'with useHttp2 only under protocolSelection USE_DOWNSTREAM_PROTOCOL',
  ),
});

const needsHttp2 = 'needs useHttp2';
const windowSize = Type.Integer({ minimum: 65535, maximum: 2147483647 });

/** The Upstream's own protocol fields (upstream.proto). */
export const upstreamProtocolFields = {
  protocolSelection: note(
    protoEnum(['USE_CONFIGURED_PROTOCOL', 'USE_DOWNSTREAM_PROTOCOL']),
    `${needsHttp2} for USE_DOWNSTREAM_PROTOCOL: HTTP/1.1 or HTTP/2 as the client spoke`,
  ),
  initialStreamWindowSize: note(windowSize, `${needsHttp2}; 65535 to 2147483647`),
  initialConnectionWindowSize: note(windowSize, `${needsHttp2}; 65535 to 2147483647`),
  maxConcurrentStreams: note(Type.Integer({ minimum: 1, maximum: 2147483647 }), `${needsHttp2}; 1 to 2147483647`),
  overrideStreamErrorOnInvalidHttpMessage: note(boolean, needsHttp2),
  proxyProtocolVersion: note(
    oneOfValues(['V1', 'V2'] as const),
    "Envoy's upstream PROXY protocol transport socket: a PROXY header before each connection's bytes (and TLS)",
  ),
};

/** Gloo's HTTP CONNECT tunnelling (upstream.proto): the Upstream's hosts are the proxy. */
export const tunnelFields = {
  httpProxyHostname: note(
    Type.String({ minLength: 1, pattern: '^[^\\s]+:[0-9]+$', format: 'single-line' }),
    "host:port the proxy opens the tunnel to (Envoy's command operators such as %REQUESTED_SERVER_NAME% allowed); as Gloo, through a generated listener on an abstract Unix socket (Linux Envoys only)",
  ),
  httpConnectHeaders: note(
    Type.Array(object({ key: singleLine, value: lineOrEmpty }, ['key']), { minItems: 1 }),
    'headers of the CONNECT request, each replacing one of its name; with httpProxyHostname',
  ),
  httpConnectSslConfig: refused(
    'TLS to the CONNECT proxy itself is not built: Sluice reaches the proxy in plain TCP (sslConfig still encrypts what goes through the tunnel)',
    'remove it, or reach the proxy over a network you trust',
  ),
};
