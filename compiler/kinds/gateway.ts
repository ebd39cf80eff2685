/** Gloo's Gateway (gateway.proto, http_gateway.proto): where VirtualServices are served, one listener each; its selection is resolved in resolve/gateways.ts. */
import { wasmOptions } from './wasm.js';
import { Type, type Static } from '@sinclair/typebox';
import { differs, glooEnvoy, note, REASONS, refused, refuseEach } from './gloo.js';
import { kind, resourceRef } from './resource.js';
import {
  boolean,
  constant,
  duration as durationSchema,
  exactlyOne,
  namespaceName,
  object,
  port,
  resourceName,
  singleLine,
  string,
  stringMap,
  uint32,
} from './schema.js';
import { sniSslConfig } from './tls.js';
import { headerFormatOneOf, hcmMoreSettings } from './hcm-settings.js';
import { listenerTracing } from './tracing.js';
import { listenerFields } from './listener-options.js';
import { accessLoggingService } from './access-log.js';
import { tcpListenerOptions } from './tcp-options.js';
import { buffer, connectionLimit, grpcJsonTranscoder, grpcWeb, gzip, healthCheck } from './gateway-http-options.js';
import { httpLocalRatelimit, networkLocalRatelimit } from './gateway-local-ratelimit.js';
import { gatewayExtProc, gatewayExtProcDisable } from './ext-proc.js';
import { delegatedGatewayFields } from './delegated-gateways.js';
import { virtualServiceExpressions } from './label-selectors.js';
import { tcpDestination } from './tcp-destinations.js';
import { routeConfigurationOptions } from './route-configuration-options.js';
import { earlyHeaderManipulation } from './early-headers.js';
import { dynamicForwardProxy, headerValidationSettings } from './http-listener-refusals.js';
import { statefulSession } from './stateful-session.js';

const duration = (what = 'a duration') => note(durationSchema, what);

// Durations are checked by resolve, which says what to write.
export const httpConnectionManagerSettings = object(
  {
    useRemoteAddress: note(boolean, 'default true (as Gloo)'),
    xffNumTrustedHops: uint32,
    skipXffAppend: boolean,
    serverName: singleLine,
    // Envoy's bounds (HttpConnectionManager.max_request_headers_kb).
    maxRequestHeadersKb: note(Type.Integer({ minimum: 1, maximum: 8192 }), '1 to 8192'),
    idleTimeout: duration('a duration, e.g. "60s"'),
    streamIdleTimeout: duration(),
    requestTimeout: duration(),
    requestHeadersTimeout: duration(),
    drainTimeout: duration(),
    delayedCloseTimeout: duration(),
    maxConnectionDuration: duration(),
    maxStreamDuration: duration(),
    ...hcmMoreSettings,
    earlyHeaderManipulation,
    tracing: note(listenerTracing, "Envoy's tracing with an OpenTelemetry, Zipkin or Datadog provider at an Upstream"),
    headersWithUnderscoresAction: refused(
      'fixed: headers with underscores are dropped (a client could pose as an identity header a sidecar sets)',
    ),
    pathWithEscapedSlashesAction: refused(
      'fixed: escaped slashes are decoded with a redirect, so path-based policies see the path the upstream sees',
    ),
    mergeSlashes: refused('fixed: on, so path-based policies see the path the upstream sees'),
    normalizePath: refused('fixed: on, so path-based policies see the path the upstream sees'),
  },
  [],
  headerFormatOneOf,
);

// Gloo's HttpGateway.
export const httpGateway = object({
  virtualServices: note(
    Type.Array(resourceRef),
    'the VirtualServices served; setting it with virtualServiceSelector is an error (Gloo would silently prefer the selector)',
  ),
  virtualServiceSelector: note(stringMap, 'matches metadata.labels'),
  virtualServiceExpressions,
  virtualServiceNamespaces: note(
    Type.Array(Type.Union([constant('*'), namespaceName]), { minItems: 1, uniqueItems: true }),
    '"*" or a list; applies to the selector and to "every VirtualService", not to virtualServices',
  ),
  options: note(
    object({
      httpConnectionManagerSettings,
      gzip,
      healthCheck,
      grpcWeb: differs(
        grpcWeb,
        "Envoy's grpc_web filter when grpcWeb is set without disable: true; Gloo adds it to every listener unless disabled",
      ),
      buffer,
      grpcJsonTranscoder,
      connectionLimit,
      httpLocalRatelimit,
      networkLocalRatelimit,
      sanitizeClusterHeader: refused(
        "an Enterprise Gloo feature of its own Envoy build; Sluice never routes by a request's cluster header, so there is none to remove",
      ),
      leftmostXffAddress: refused(
        'an Enterprise Gloo feature of its own Envoy build: upstream Envoy counts x-forwarded-for hops from the right only',
        'set httpConnectionManagerSettings.xffNumTrustedHops',
      ),
      router: object({
        suppressEnvoyHeaders: note(boolean, 'true: the router adds no x-envoy- headers to requests or responses'),
        dynamicStats: note(boolean, 'false: no per-cluster dynamic statistics (for benchmarks only)'),
      }),
      ...refuseEach(['waf', 'dlp', 'caching', 'proxyLatency'], glooEnvoy),
      extauth: refused(
        'per-Gateway ext_authz settings are not implemented: every listener asks sluice-extauth, or the customAuth servers Settings names',
        'set extauth in Settings',
      ),
      extensions: refused(REASONS.extensions),
      dynamicForwardProxy: dynamicForwardProxy(),
      headerValidationSettings: headerValidationSettings(),
      statefulSession,
      ...gatewayExtProc,
      ...gatewayExtProcDisable,
      wasm: note(wasmOptions, "Envoy's wasm filters, each running a module from a file on the proxy"),
      ratelimitServer: refused(
        "Gloo's per-listener replacement of Settings' ratelimitServer also moves the listener's limits before or after authentication (rateLimitBeforeAuth), and Sluice compiles each virtual host's rate limit descriptors, stages included, once for every Gateway that serves it",
        'set ratelimitServer in the Settings resource',
      ),
      tap: refused(
        "Gloo's tap sinks (grpcService, httpService to a tap server) are envoy-gloo extensions; upstream Envoy's tap filter writes to files or its admin interface, and Gloo's tap has no file sink to map onto them",
        'log requests with accessLoggingService',
      ),
      // Sluice's HTTP filters are one chain for every listener: a policy of one Gateway's would need its own.
      csrf: refused(
        'a csrf policy for a whole Gateway is not implemented',
        'set csrf in the virtualHost.options of the VirtualServices it serves',
      ),
    }),
    'httpConnectionManagerSettings, router, and the filters gzip, healthCheck, grpcWeb, buffer, grpcJsonTranscoder, connectionLimit, httpLocalRatelimit, networkLocalRatelimit, extProcEarly, extProc, extProcLate, wasm, statefulSession',
  ),
});

// Gloo's TcpGateway: TCP hosts proxied to an Upstream; sslConfig without secretRef: matched by SNI, passed through.
export const tcpGateway = object(
  {
    tcpHosts: note(
      Type.Array(
        object(
          {
            name: note(singleLine, 'names the filter chain and its statistics'),
            sslConfig: sniSslConfig(
              'optional: with it, TLS is terminated with its certificate; without it, connections are matched by SNI and passed through as they are',
            ),
            destination: tcpDestination,
          },
          ['name', 'destination'],
        ),
        { minItems: 1 },
      ),
      'one filter chain each, in order: matched by sslConfig.sniDomains (none: any connection), proxied to its destination (tcp_proxy)',
    ),
    options: note(tcpListenerOptions, "each TCP host's tcp_proxy settings and a connection limit in front of it"),
  },
  ['tcpHosts'],
);

// Gloo's HybridGateway: matched gateways on one listener, by SNI and client address (resolve checks the CIDRs).
// A matcher's fields (a MatchableHttpGateway's and MatchableTcpGateway's too).
export const matcherFields = {
  sslConfig: sniSslConfig(
    "required for a matched httpGateway (its TLS: a VirtualService's own sslConfig is not used there, so VirtualServices with one are not served); not allowed on a matched tcpGateway (its TCP hosts have their own)",
  ),
  sourcePrefixRanges: Type.Array(
    object(
      {
        addressPrefix: note(singleLine, 'an IP address'),
        prefixLen: note(Type.Integer({ minimum: 0, maximum: 128 }), 'default: the whole address'),
      },
      ['addressPrefix'],
    ),
  ),
};
export const passthroughCipherSuites = refused(
  'an Enterprise Gloo feature of its own Envoy build',
  'terminate TLS or pass it through by SNI',
);

const matchedGateway = object(
  {
    matcher: object({ ...matcherFields, passthroughCipherSuites }),
    httpGateway,
    tcpGateway,
  },
  [],
  exactlyOne('httpGateway', 'tcpGateway'),
);

const hybridGateway = object({
  matchedGateways: note(
    Type.Array(matchedGateway, { minItems: 1 }),
    "one filter chain each (a matched tcpGateway: one per TCP host), matched by the matcher's SNI domains and source prefixes; each matched httpGateway has its own route configuration; not with delegatedHttpGateways or delegatedTcpGateways (Gloo would ignore those)",
  ),
  ...delegatedGatewayFields(httpConnectionManagerSettings),
});

const gatewaySpec = object(
  {
    ssl: note(
      boolean,
      'true: TLS only, serving the VirtualServices with sslConfig (one filter chain per distinct sslConfig, matched by SNI)',
    ),
    // Resolve checks it is an IP address: Envoy binds to addresses, not names.
    bindAddress: note(singleLine, 'an IP address; defaults to "::" with IPv4 accepted too (ipv4_compat), as Gloo'),
    bindPort: port,
    proxyNames: note(
      Type.Array(resourceName, { minItems: 1, uniqueItems: true }),
      'defaults to ["gateway-proxy"]; an Envoy names its proxy in node metadata `role` (`NAMESPACE~NAME` as Gloo\'s bootstrap writes it, or `NAME`; none: gateway-proxy) and is served only the Gateways that list it',
    ),
    useProxyProto: note(
      boolean,
      'the proxy_protocol listener filter: every connection must start with a PROXY header (v1 or v2), whose source address Envoy then uses',
    ),
    options: note(
      object({
        accessLoggingService,
        ...listenerFields,
        listenerAccessLoggingService: note(
          accessLoggingService,
          "the listener's own access logs (Envoy's Listener.access_log): connections, before a filter chain takes them, so no HTTP headers",
        ),
        extensions: refused(REASONS.extensions),
      }),
      'accessLoggingService, listenerAccessLoggingService, perConnectionBufferLimitBytes, socketOptions, connectionBalanceConfig, proxyProtocol, tcpStats',
    ),
    httpGateway,
    tcpGateway,
    hybridGateway,
    routeOptions: routeConfigurationOptions,
  },
  ['bindPort'],
  exactlyOne('httpGateway', 'tcpGateway', 'hybridGateway'),
);

export const GATEWAY = kind('gateway.gateway.example/v1', 'Gateway', gatewaySpec, 'gateway.solo.io/v1');

export type GatewaySpec = Static<typeof gatewaySpec>;
export type HttpGatewaySpec = Static<typeof httpGateway>;
export type TcpGatewaySpec = Static<typeof tcpGateway>;
export type MatchedGatewaySpec = Static<typeof matchedGateway>;
export type HybridGatewaySpec = Static<typeof hybridGateway>;
export type HttpConnectionManagerSpec = Static<typeof httpConnectionManagerSettings>;
