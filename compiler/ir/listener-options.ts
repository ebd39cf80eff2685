/** What a Gloo httpGateway's options add to its filter chain: HTTP filters, the router's settings, a connection limit. */
import type { WasmFilterIR } from './wasm.js';
import type { AccessLogIR } from './access-log.js';
import type { ExtProcFilterIR } from './ext-proc.js';

/** Envoy's compressor filter with the gzip library; unset fields: Envoy's defaults. */
export interface GzipIR {
  memoryLevel?: number;
  minContentLength?: number;
  /** Envoy's zlib enum names. */
  compressionLevel?: 'DEFAULT_COMPRESSION' | 'BEST_COMPRESSION' | 'BEST_SPEED';
  compressionStrategy?: 'DEFAULT_STRATEGY' | 'FILTERED' | 'HUFFMAN_ONLY' | 'RLE';
  contentTypes?: string[];
  disableOnEtagHeader: boolean;
  removeAcceptEncodingHeader: boolean;
  windowBits?: number;
}

export interface GrpcJsonTranscoderIR {
  /** A file on the Envoy, or the descriptor set's bytes in base64. */
  descriptor: { kind: 'file'; path: string } | { kind: 'bytes'; base64: string };
  services: string[];
  printOptions?: {
    addWhitespace?: boolean;
    alwaysPrintPrimitiveFields?: boolean;
    alwaysPrintEnumsAsInts?: boolean;
    preserveProtoFieldNames?: boolean;
  };
  matchIncomingRequestRoute?: boolean;
  ignoredQueryParameters?: string[];
  autoMapping?: boolean;
  ignoreUnknownQueryParameters?: boolean;
  convertGrpcStatus?: boolean;
}

/** Gloo's BufferPerRoute: the buffer filter off, or a limit of its own. */
export type BufferPerRouteIR = { disabled: true } | { maxRequestBytes: number };

export interface ConnectionLimitIR {
  maxConnections: number;
  /** Proto3 JSON duration a refused connection is held before it is closed. */
  delay?: string;
}

export interface HttpListenerOptionsIR {
  gzip?: GzipIR;
  /** health_check: this exact :path is answered 200 by Envoy. */
  healthCheckPath?: string;
  grpcWeb?: boolean;
  /** buffer: the largest request body, in bytes (413 beyond). */
  maxRequestBytes?: number;
  grpcJsonTranscoder?: GrpcJsonTranscoderIR;
  router?: { suppressEnvoyHeaders?: boolean; dynamicStats?: boolean };
  connectionLimit?: ConnectionLimitIR;
  /** Envoy's ext_proc filters (Gloo's extProcEarly, extProc, extProcLate), in that order. */
  extProc?: ExtProcFilterIR[];
  /** httpLocalRatelimit: the Gateway's own bucket, and settings every local bucket on the listener takes. */
  httpLocalRateLimit?: GatewayLocalRateLimitIR;
  /** networkLocalRatelimit: one token per new connection. */
  networkLocalRateLimit?: TokenBucketIR;
  /** Envoy's wasm filters, where their filterStage puts them. */
  wasm?: WasmFilterIR[];
  /** Envoy's stateful_session filter: the host a cookie or header names gets the request. */
  statefulSession?: StatefulSessionIR;
}

export interface StatefulSessionIR {
  /** cookie: ttl a proto3 JSON duration ("0s": a session cookie); header: the name lower-cased, as Envoy reads it. */
  state: { kind: 'cookie'; name: string; path?: string; ttl: string } | { kind: 'header'; name: string };
  /** A named host that is gone: 503 instead of another host. */
  strict: boolean;
}

/** A local rate limit: a token bucket in each Envoy (Envoy's TokenBucket; the interval a proto3 JSON duration). */
export interface TokenBucketIR {
  maxTokens: number;
  tokensPerFill: number;
  fillInterval: string;
}

export interface GatewayLocalRateLimitIR {
  /** For requests of virtual hosts and routes without a bucket of their own; none: only theirs limit. */
  defaultLimit?: TokenBucketIR;
  /** Every bucket of the listener kept per downstream connection. */
  perConnection: boolean;
  /** x-ratelimit-* headers (draft 03) on answers the listener's buckets decided. */
  xRateLimitHeaders: boolean;
}

/** Gloo's HttpConnectionManagerSettings beyond the addresses and timeouts; unset: Envoy's defaults. */
export interface HcmMoreIR {
  via?: string;
  generateRequestId?: boolean;
  proxy100Continue?: boolean;
  maxHeadersCount?: number;
  maxRequestsPerConnection?: number;
  stripAnyHostPort?: boolean;
  /** HTTP/1 options. */
  acceptHttp10?: boolean;
  defaultHostForHttp10?: string;
  allowChunkedLength?: boolean;
  enableTrailers?: boolean;
  headerKeyFormat?: 'properCase' | 'preserveCase';
  forwardClientCertDetails?: 'SANITIZE' | 'FORWARD_ONLY' | 'APPEND_FORWARD' | 'SANITIZE_SET' | 'ALWAYS_FORWARD_ONLY';
  setCurrentClientCertDetails?: { subject?: boolean; cert?: boolean; chain?: boolean; dns?: boolean; uri?: boolean };
  preserveExternalRequestId?: boolean;
  serverHeaderTransformation?: 'OVERWRITE' | 'APPEND_IF_ABSENT' | 'PASS_THROUGH';
  codecType?: 'AUTO' | 'HTTP1' | 'HTTP2';
  uuidRequestIdConfig?: { packTraceReason?: boolean; useRequestIdForTraceSampling?: boolean };
  http2ProtocolOptions?: {
    maxConcurrentStreams?: number;
    initialStreamWindowSize?: number;
    initialConnectionWindowSize?: number;
    overrideStreamErrorOnInvalidHttpMessage?: boolean;
  };
  internalAddressConfig?: { unixSockets?: boolean; cidrRanges: { address: string; prefixLen: number }[] };
  appendXForwardedPort?: boolean;
  /** Envoy's upgrade types: websocket, CONNECT. */
  upgrades?: { type: 'websocket' | 'CONNECT'; enabled: boolean }[];
  tracing?: TracingIR;
}

/** Envoy's tracing on a connection manager (Gloo's ListenerTracingSettings). */
export interface TracingIR {
  verbose?: boolean;
  /** Percentages, 0 to 100; unset: Envoy's 100. */
  sampling: { client?: number; random?: number; overall?: number };
  customTags: (
    | { tag: string; kind: 'header'; name: string }
    | { tag: string; kind: 'literal'; value: string }
    | { tag: string; kind: 'environment'; name: string; defaultValue?: string }
    | {
        tag: string;
        kind: 'metadata';
        /** The request's dynamic metadata, or the chosen host's. */
        of: 'request' | 'host';
        namespace: string;
        path: string[];
        defaultValue?: string;
      }
  )[];
  provider?:
    | { kind: 'opentelemetry'; cluster: string; serviceName?: string; authority?: string }
    | {
        kind: 'zipkin';
        cluster: string;
        endpoint: string;
        version: 'HTTP_JSON' | 'HTTP_PROTO';
        traceId128bit?: boolean;
        sharedSpanContext?: boolean;
      }
    | {
        kind: 'datadog';
        cluster: string;
        serviceName: string;
        hostname?: string;
        /** Remote configuration from the agent; false: off. */
        remoteConfig: false | { pollingInterval?: string };
      };
}

/** Fields of Envoy's Listener a Gateway's spec.options set. */
export interface ListenerFieldsIR {
  perConnectionBufferLimitBytes?: number;
  socketOptions?: {
    description?: string;
    level: number;
    name: number;
    value: { kind: 'int'; int: number } | { kind: 'buf'; base64: string };
    state?: 'STATE_PREBIND' | 'STATE_BOUND' | 'STATE_LISTENING';
  }[];
  exactBalance?: boolean;
  /** options.listenerAccessLoggingService: the listener's own access logs. */
  accessLogs?: AccessLogIR[];
  /** options.proxyProtocol: the proxy_protocol listener filter's settings (useProxyProto without them). */
  proxyProtocol?: {
    /** A TLV of this type present: its value as dynamic metadata under `key` (in `namespace`, or the filter's). */
    rules: { tlvType: number; key: string; namespace?: string }[];
    /** Connections without a PROXY header pass with their own address. */
    allowWithout: boolean;
  };
  /** options.tcpStats: every filter chain's transport socket wrapped in Envoy's tcp_stats socket. */
  tcpStats?: boolean;
}
