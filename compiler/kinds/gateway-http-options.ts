/**
 * The HTTP filters a Gloo httpGateway's options add to its listener
 * (http_listener_options.proto): gzip (Envoy's compressor with the gzip
 * library), healthCheck, grpcWeb, buffer, grpcJsonTranscoder, and the
 * connectionLimit network filter in front of the connection manager.
 * resolve/gateway-http-options.ts checks what the schema cannot.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { boolean, constant, duration, exactlyOne, nonEmptyString, object, protoEnum, singleLine } from './schema.js';

const between = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum });

// Gloo's own copy of Envoy's v2 Gzip message (gzip.proto), compiled to the v3 compressor as Gloo does.
export const gzip = object({
  memoryLevel: note(between(1, 9), '1 to 9; unset: 5'),
  contentLength: note(between(30, 4294967295), 'the smallest response compressed, in bytes; at least 30 (unset: 30)'),
  compressionLevel: note(protoEnum(['DEFAULT', 'BEST', 'SPEED']), 'DEFAULT (unset), BEST or SPEED'),
  compressionStrategy: note(
    protoEnum(['DEFAULT', 'FILTERED', 'HUFFMAN', 'RLE']),
    'DEFAULT (unset), FILTERED, HUFFMAN or RLE',
  ),
  contentType: note(
    Type.Array(singleLine, { maxItems: 50 }),
    "the media types compressed; unset: Envoy's list of JSON, JavaScript, HTML, CSS, text, XML and SVG types",
  ),
  disableOnEtagHeader: note(boolean, 'true: a response with an ETag is not compressed'),
  removeAcceptEncodingHeader: note(boolean, 'true: accept-encoding is removed before the request goes upstream'),
  windowBits: note(between(9, 15), '9 to 15; unset: 12'),
});

export const healthCheck = object(
  {
    path: note(
      Type.String({ minLength: 1, pattern: '^/', format: 'single-line' }),
      'a request whose whole path (query included) is this gets 200 from Envoy itself, never reaching an upstream',
    ),
  },
  ['path'],
);

export const grpcWeb = object({
  disable: note(boolean, 'true: no grpc_web filter (as having no grpcWeb at all in Sluice)'),
});

export const buffer = object(
  {
    maxRequestBytes: note(
      Type.Integer({ minimum: 1, maximum: 4294967295 }),
      'a request body longer than this is answered 413; the body is read whole before the request goes upstream',
    ),
  },
  ['maxRequestBytes'],
);

/** Gloo's BufferPerRoute (Envoy's) on a virtual host or route: the buffer filter off, or its own limit there. */
export const bufferPerRoute = note(
  object(
    {
      disabled: note(constant(true), 'the body streams to the upstream unread (false is refused, as Envoy)'),
      buffer,
    },
    [],
    exactlyOne('disabled', 'buffer'),
  ),
  "sets or turns off the buffer filter for the virtual host or route (the route's replaces its host's whole); where the Gateway has no buffer, only where it is set",
);

export const grpcJsonTranscoder = object(
  {
    protoDescriptor: note(singleLine, 'a descriptor set file on the Envoy (not read by the compiler)'),
    protoDescriptorBin: note(
      nonEmptyString,
      'a base64 FileDescriptorSet; checked at compile time to hold every service listed',
    ),
    protoDescriptorConfigMap: refused(
      'the compiler reads no ConfigMaps',
      "put the ConfigMap's base64 descriptor set in protoDescriptorBin",
    ),
    services: note(
      Type.Array(singleLine, { minItems: 1 }),
      'fully qualified service names (package.Service); each must be in protoDescriptorBin',
    ),
    printOptions: object({
      addWhitespace: boolean,
      alwaysPrintPrimitiveFields: boolean,
      alwaysPrintEnumsAsInts: boolean,
      preserveProtoFieldNames: boolean,
    }),
    matchIncomingRequestRoute: boolean,
    ignoredQueryParameters: Type.Array(singleLine),
    autoMapping: boolean,
    ignoreUnknownQueryParameters: boolean,
    convertGrpcStatus: boolean,
  },
  ['services'],
  exactlyOne('protoDescriptor', 'protoDescriptorBin', 'protoDescriptorConfigMap'),
);

export const connectionLimit = object({
  maxActiveConnections: note(
    Type.Integer({ minimum: 1, maximum: 4294967295 }),
    "at least 1; further connections are closed (unset: no limit, as Gloo's)",
  ),
  delayBeforeClose: note(duration, 'how long a refused connection is held before it is closed; unset: at once'),
});

export type GzipSpec = Static<typeof gzip>;
export type HealthCheckSpec = Static<typeof healthCheck>;
export type GrpcWebSpec = Static<typeof grpcWeb>;
export type BufferSpec = Static<typeof buffer>;
export type BufferPerRouteSpec = Static<typeof bufferPerRoute>;
export type GrpcJsonTranscoderSpec = Static<typeof grpcJsonTranscoder>;
export type ConnectionLimitSpec = Static<typeof connectionLimit>;
