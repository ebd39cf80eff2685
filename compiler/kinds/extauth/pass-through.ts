/** Gloo's `passThroughAuth` config (extauth.proto `PassThroughAuth`): a team's own service asked over gRPC or HTTP. */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from '../gloo.js';
import { resourceRef } from '../resource.js';
import {
  anyValue,
  boolean,
  mapOf,
  nonNegativeDuration,
  object,
  positiveDuration,
  protoEnum,
  singleLine,
  string,
  uint32,
} from '../schema.js';

const timeout = note(positiveDuration, 'the longest wait for an answer; default 5s; whole milliseconds');
const tlsVersion = protoEnum(['TLS_AUTO', 'TLSv1_1', 'TLSv1_2', 'TLSv1_3']);
const tls = object({
  secretRef: note(
    resourceRef,
    "a kubernetes.io/tls Secret: tls.crt and tls.key make the sidecar's client certificate (mTLS); ca.crt, the CAs the service's certificate must chain to (without it: the system's roots); unset: TLS with the system's roots and no client certificate",
  ),
  sslParams: object({
    minimumProtocolVersion: note(
      tlsVersion,
      'TLS_AUTO (unset): TLS 1.2; TLSv1_1 is an error (the sidecar refuses TLS 1.1)',
    ),
    maximumProtocolVersion: note(tlsVersion, 'TLS_AUTO (unset): TLS 1.3; TLSv1_1 is an error'),
  }),
});
const headerList = Type.Array(singleLine);

const grpc = object(
  {
    address: note(
      singleLine,
      'host:port of a server speaking envoy.service.auth.v3.Authorization (TLS with tlsConfig)',
    ),
    connectionTimeout: timeout,
    tlsConfig: tls,
    retryPolicy: refused('calls are not retried; a server that comes back is reached again within about a second'),
  },
  ['address'],
);

const http = object(
  {
    url: note(singleLine, 'http:// or https:// URL the request is POSTed to (https:// with tlsConfig)'),
    request: object({
      allowedHeaders: headerList,
      headersToAdd: mapOf(string),
      passThroughState: boolean,
      passThroughFilterMetadata: boolean,
      passThroughBody: note(
        boolean,
        "the body's first 4 KiB (Envoy buffers it for the check on every host and route this AuthConfig guards; a larger body is sent cut, as x-envoy-auth-partial-body says)",
      ),
    }),
    response: object({
      allowedUpstreamHeaders: headerList,
      allowedClientHeadersOnDenied: headerList,
      readStateFromResponse: boolean,
      allowedUpstreamHeadersToOverwrite: headerList,
      allowedClientHeadersOnSuccess: headerList,
    }),
    connectionTimeout: timeout,
    tlsConfig: tls,
    responseHeaderTimeout: note(
      nonNegativeDuration,
      'the longest wait for the response headers once the request is written (a timeout counts as the service failing); 0 or unset: only connectionTimeout applies; whole milliseconds',
    ),
    connectionPool: object({
      maxConns: note(
        uint32,
        'connections open to the service at once; more requests wait for one; 0 or unset: 100, as Gloo',
      ),
      idleTimeout: note(
        nonNegativeDuration,
        'an idle keep-alive connection is closed after this long (or sooner if the service says so in Keep-Alive); 0 or unset: 30s; whole milliseconds',
      ),
    }),
  },
  ['url'],
);

export const passThroughAuth = object({
  grpc,
  http,
  config: note(
    Type.Unsafe<Record<string, unknown>>({ ...anyValue, type: 'object' }),
    'sent with every request (gRPC: filter metadata solo.auth.passthrough.config; HTTP: the body\'s "config")',
  ),
  failureModeAllow: note(
    boolean,
    'the request is allowed when the service is unreachable, times out or answers a server error; otherwise 503',
  ),
});

export type PassThroughAuthSpec = Static<typeof passThroughAuth>;
