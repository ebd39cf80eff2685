/**
 * The IR: the canonical compile result between resolve and translate
 * (resources -> IR -> xDS set). Every reference is resolved and every check a
 * user can fail is done before it exists, so translate cannot fail on input.
 * Envoy-agnostic: names, hosts, keys and policies, no Envoy messages.
 * `sluice compile --dump-ir` writes it as YAML (see ./dump.ts).
 */
import type { LambdaInvokeIR, LambdaUpstreamIR } from './aws-lambda.js';
import type { ExtProcRouteIR } from './ext-proc.js';
import type { BufferPerRouteIR, GrpcJsonTranscoderIR } from './listener-options.js';
import type { RouteExtrasIR, VirtualHostExtrasIR } from './route-extras.js';
export type { RouteExtrasIR, VirtualHostExtrasIR };
import type { HcmMoreIR, HttpListenerOptionsIR, ListenerFieldsIR, TokenBucketIR } from './listener-options.js';
import type { Origin } from '../diagnostics.js';
import type { ExecutableSchema, StitchedSubschema } from '../../contract/graphql-api.js';
import type { AuthConfigIR } from './extauth.js';
import type { RateLimitServiceIR, RateLimitsIR } from './ratelimit.js';
import type { AccessLogIR } from './access-log.js';
import type { TcpProxyOptionsIR } from './tcp-options.js';
import type { TlsFilesIR, TlsParametersIR, TlsVersion, UpstreamTlsIR } from './tls.js';
export type { TlsFilesIR, TlsParametersIR, TlsVersion, UpstreamTlsIR };

export interface NamespacedName {
  name: string;
  namespace: string;
}

/** An upstream as Envoy will see it: one cluster. */
export interface UpstreamIR {
  /** Cluster name: the Upstream's name (`<namespace>-<service>-<port>` for discovered ones). */
  name: string;
  namespace: string;
  origin: Origin;
  target:
    | { kind: 'dns'; host: string; port: number }
    | { kind: 'static'; hosts: HostIR[] }
    /** A Service port whose endpoints come from its EndpointSlices (EDS: Model.endpoints); `host` and `port` are its DNS name and port, for what dials it by name (sluice-graphql). */
    | { kind: 'service'; service: NamespacedName; host: string; port: number; portName?: string };
  /** Gloo's kube.selector of a service target: only the pods with every one of these labels. */
  selector?: Record<string, string>;
  /** Gloo's subsetSpec of a service target: Envoy's subset load balancer over the pods' labels. */
  subsets?: SubsetsIR;
  /** Speak HTTP/2 to the upstream (gRPC services). */
  http2?: boolean;
  /** Gloo's sslConfig: TLS to the upstream. */
  tls?: UpstreamTlsIR;
  /** Gloo's load balancing, circuit breaking, connection, outlier detection and health checking settings. */
  policy?: UpstreamPolicyIR;
  /** Gloo's failover (static targets): endpoints at priority 1, 2, ... */
  failover?: FailoverIR;
  /** Gloo's httpProxyHostname: the target are HTTP CONNECT proxies, asked for a tunnel to `hostname`. */
  tunnel?: { hostname: string; headers: { key: string; value: string }[] };
  /** Gloo's serviceSpec.grpcJsonTranscoder: JSON requests routed here are transcoded to gRPC. */
  grpcJsonTranscoder?: GrpcJsonTranscoderIR;
  /** Gloo's aws Upstream: the target is AWS Lambda's endpoint of its region. */
  lambda?: LambdaUpstreamIR;
}

/** A static host or failover endpoint. */
export interface HostIR {
  address: string;
  port: number;
  /** Its share of its locality (Envoy's load_balancing_weight). */
  weight?: number;
  /** Where active health checks reach it, when not its own address and port. */
  healthCheck?: { port?: number; hostname?: string };
}

export interface FailoverIR {
  /** Priority 1, 2, ... in order, each its localities. */
  priorities: { locality?: { region?: string; zone?: string; subZone?: string }; hosts: HostIR[] }[][];
  overprovisioningFactor?: number;
}

/** Gloo's SubsetSpec. */
export interface SubsetsIR {
  /** Each a set of label keys; an endpoint is in the subset of its values of them. */
  selectors: { keys: string[]; singleHostPerSubset?: boolean }[];
  /** Unset: ANY_ENDPOINT, as in Gloo. */
  fallbackPolicy?: 'ANY_ENDPOINT' | 'DEFAULT_SUBSET' | 'NO_FALLBACK';
  defaultSubset?: Record<string, string>;
}

/** The endpoints of a service target's cluster (EDS), from the Service's EndpointSlices. */
export interface EndpointSetIR {
  cluster: string;
  /** By zone, zones in name order ("" first: endpoints without one). */
  zones: { zone: string; endpoints: EndpointIR[] }[];
}

export interface EndpointIR {
  address: string;
  port: number;
  /** Terminating but still serving: no new requests while others are ready, its connections left to finish. */
  draining?: boolean;
  /** The pod's values of the subset keys ("" where it has none), with subsets. */
  labels?: Record<string, string>;
}

/** Durations are proto3 JSON ("5s"); every field is as Gloo names it and optional (Envoy's default). */
export interface UpstreamPolicyIR {
  loadBalancer?: {
    kind: 'roundRobin' | 'leastRequest' | 'random' | 'ringHash' | 'maglev';
    choiceCount?: number;
    minimumRingSize?: number;
    maximumRingSize?: number;
    healthyPanicThreshold?: number;
    updateMergeWindow?: string;
    useHostnameForHashing?: boolean;
    closeConnectionsOnHostSetChange?: boolean;
    /** roundRobin or leastRequest: new endpoints' share grows over the window. */
    slowStart?: { window?: string; aggression?: number; minWeightPercent?: number };
  };
  circuitBreakers?: {
    maxConnections?: number;
    maxPendingRequests?: number;
    maxRequests?: number;
    maxRetries?: number;
    trackRemaining?: boolean;
  };
  connection?: {
    maxRequestsPerConnection?: number;
    connectTimeout?: string;
    tcpKeepalive?: { keepaliveProbes?: number; keepaliveTime?: string; keepaliveInterval?: string };
    perConnectionBufferLimitBytes?: number;
    commonHttpProtocolOptions?: { idleTimeout?: string; maxHeadersCount?: number; maxStreamDuration?: string };
    http1ProtocolOptions?: {
      enableTrailers?: boolean;
      properCaseHeaderKeyFormat?: boolean;
      preserveCaseHeaderKeyFormat?: boolean;
      overrideStreamErrorOnInvalidHttpMessage?: boolean;
    };
  };
  /** HTTP/1.1 or HTTP/2 as the client spoke (Gloo's USE_DOWNSTREAM_PROTOCOL); with http2. */
  downstreamProtocol?: boolean;
  /** Envoy's Http2ProtocolOptions fields as Gloo names them; with http2. */
  http2?: {
    initialStreamWindowSize?: number;
    initialConnectionWindowSize?: number;
    maxConcurrentStreams?: number;
    overrideStreamErrorOnInvalidHttpMessage?: boolean;
  };
  /** A PROXY protocol header of this version before each connection's bytes. */
  proxyProtocolVersion?: 'V1' | 'V2';
  /** Gloo's (Envoy's) OutlierDetection fields that are set, by name. */
  outlierDetection?: Record<string, number | string | boolean>;
  healthChecks?: HealthCheckIR[];
  /** Envoy Cluster fields Gloo's Upstream sets as they are (DNS refresh, host removal, preconnecting). */
  cluster?: ClusterFieldsIR;
}

export interface ClusterFieldsIR {
  ignoreHealthOnHostRemoval?: boolean;
  respectDnsTtl?: boolean;
  dnsRefreshRate?: string;
  preconnect?: { perUpstream?: number; predictive?: number };
}

export interface HealthCheckIR {
  timeout: string;
  interval: string;
  unhealthyThreshold: number;
  healthyThreshold: number;
  noTrafficInterval?: string;
  /** Gloo's other HealthCheck fields that are set (jitter, edge intervals, reuseConnection, the event log), by name. */
  more?: Record<string, number | string | boolean>;
  /** ALPN of the check's own TLS handshake (Envoy's tls_options). */
  alpnProtocols?: string[];
  check:
    | ({ kind: 'http'; path: string; host?: string } & HttpCheckMoreIR)
    | { kind: 'tcp'; send?: string; receive?: string[] }
    | { kind: 'grpc'; serviceName?: string; authority?: string; metadata?: HeaderToAddIR[] };
}

export interface HeaderToAddIR {
  key: string;
  value: string;
  append: boolean;
}

/** An HTTP health check's request headers, protocol and healthy statuses ([start, end)). */
export interface HttpCheckMoreIR {
  headersToAdd?: HeaderToAddIR[];
  /** Healthy only when the answer's x-envoy-upstream-healthchecked-cluster starts with it. */
  serviceName?: string;
  /** Unset: GET. */
  method?: string;
  headersToRemove?: string[];
  http2?: boolean;
  expectedStatuses?: { start: number; end: number }[];
}

/** A Secret's TLS material, served by name over SDS (inlined in a static bootstrap). */
export interface TlsSecretIR {
  /** `<namespace>/<name>` of the Secret: the SDS name of its certificate and key. */
  name: string;
  /** tls.crt and tls.key, when the Secret has them. */
  certificate?: { chain: string; privateKey: string; /** tls.ocsp-staple, base64 DER. */ ocspStaple?: string };
  /** ca.crt, when the Secret has it: served as `<name>/ca.crt`. */
  ca?: string;
}

/** A VirtualService's sslConfig: how the HTTPS listener serves it. */
export interface DownstreamTlsIR {
  /** TlsSecretIR name (with a certificate); absent: `files`. */
  secret?: string;
  /** sslFiles: paths on the proxy, instead of a Secret. */
  files?: TlsFilesIR;
  /** Empty: any SNI (and none). */
  sniDomains: string[];
  parameters: TlsParametersIR;
  alpnProtocols: string[];
  /** The peer's certificate must carry one of these subject alternative names (any type); needs the Secret's ca.crt. */
  verifySubjectAltNames: string[];
  /** false and the Secret has ca.crt: clients must present a certificate it signed. */
  oneWayTls: boolean;
  /** No stateless session resumption (session tickets). */
  disableSessionResumption?: boolean;
  /** The handshake's deadline (proto3 JSON duration); absent: none. */
  connectTimeout?: string;
  /** Absent: LENIENT_STAPLING (Envoy's default). */
  ocspStaplePolicy?: 'STRICT_STAPLING' | 'MUST_STAPLE';
  /** Where the sslConfig is, for diagnostics. */
  origin: Origin;
  path: ReadonlyArray<string | number>;
}

export type RouteActionIR =
  | ({ kind: 'cluster' } & ClusterRefIR)
  /** Routed to the graphql sidecar with `x-sluice-graphql-api: <namespace>.<name>`. */
  | { kind: 'graphql'; api: string }
  | RedirectIR
  /** `bodyAt`: where the body is written, for the check against each route configuration's limit (resolve/route-configuration.ts). */
  | { kind: 'direct'; status: number; body?: string; bodyAt?: { origin: Origin; path: ReadonlyArray<string | number> } }
  /** Requests split in proportion to the weights (Gloo's routeAction.multi). */
  | { kind: 'weighted'; clusters: WeightedClusterIR[] };

/** One destination of a weighted route, and what it changes for the requests sent to it. */
export type WeightedClusterIR = ClusterRefIR & { weight: number; options?: DestinationOptionsIR };

/** What one weighted destination changes for the requests sent to it (Gloo's WeightedDestinationOptions). */
export interface DestinationOptionsIR {
  headers?: HeaderManipulationIR;
  csrf?: CsrfIR;
  buffer?: BufferPerRouteIR;
}

/** A cluster a route sends to, and the subset of its endpoints (Gloo's destination subset: the labels an endpoint must have). */
export interface ClusterRefIR {
  cluster: string;
  subset?: Record<string, string>;
  /** The Upstream's own gRPC-JSON transcoder (serviceSpec.grpcJsonTranscoder). */
  transcoder?: GrpcJsonTranscoderIR;
  /** The Lambda function a route to an aws Upstream invokes (Gloo's destinationSpec.aws). */
  lambda?: LambdaInvokeIR;
}

/** Envoy answers with a redirect; unset parts keep the request's. */
export interface RedirectIR {
  kind: 'redirect';
  host?: string;
  path?: { kind: 'path' | 'prefix'; value: string };
  https: boolean;
  /** One of Envoy's RedirectResponseCode names; undefined: MOVED_PERMANENTLY (301). */
  responseCode?: string;
  stripQuery: boolean;
}

/** A literal or an RE2 pattern (checked by resolve) that must match the whole value. */
export interface StringMatchIR {
  kind: 'exact' | 'regex';
  value: string;
}

/** A request header; no `value`: the header must be present. */
export interface HeaderMatchIR {
  name: string;
  value?: StringMatchIR;
  invert: boolean;
}

/** A query parameter; no `value`: the parameter must be present. */
export interface QueryMatchIR {
  name: string;
  value?: StringMatchIR;
}

/** One Gloo matcher: every condition must hold. */
export interface RouteMatchIR {
  path: { kind: 'prefix' | 'exact' | 'regex'; value: string };
  /** false: prefix and exact compare ignoring case (regexes are unaffected). */
  caseSensitive: boolean;
  headers: HeaderMatchIR[];
  queryParameters: QueryMatchIR[];
  /** Empty: any method. */
  methods: string[];
}

/** Gloo route options that change the forwarded request; only on routes with routeAction. */
export interface RouteOptionsIR extends RouteExtrasIR {
  /** Replaces the matched prefix (or the whole path of an exact match). */
  prefixRewrite?: string;
  /** The Host header sent upstream. */
  hostRewrite?: string;
  /** A proto3 JSON duration; "0s": none. */
  timeout?: string;
  /** The path rewritten by an RE2 pattern (checked by resolve) and a substitution. */
  regexRewrite?: { pattern: string; substitution: string };
  /** The Host header set to the upstream host's name (DNS clusters). */
  autoHostRewrite?: boolean;
  retries?: RetriesIR;
  /** Protocol upgrades (websocket, CONNECT) the route allows or forbids. */
  upgrades?: { type: 'websocket' | 'CONNECT'; enabled: boolean }[];
  headers?: HeaderManipulationIR;
  /** A copy of a share of the requests sent to another cluster, its answer ignored (Gloo's shadowing). */
  shadow?: { cluster: string; percentage: number; disableShadowHostSuffixAppend: boolean; hostRewrite?: string };
  /** Per-route security as Gloo has it: a filter turned off, or another AuthConfig than the host's. */
  jwtDisabled?: boolean;
  rbacDisabled?: boolean;
  /** The route's own RBAC policies, replacing the virtual host's. */
  rbacPolicies?: RbacPolicyIR[];
  extauth?: { disabled: true } | ExtauthRefIR | { customAuth: CustomAuthIR };
  /** Faults injected into a share of the route's requests (Gloo's faults): percentages 0 to 100. */
  faults?: { abort?: { percentage: number; httpStatus: number }; delay?: { percentage: number; fixedDelay: string } };
  /** The route's own CORS policy, replacing the virtual host's. */
  cors?: CorsIR;
  /** The route's own CSRF policy, replacing the virtual host's. */
  csrf?: CsrfIR;
  /** The route's own local rate limit, replacing the virtual host's. */
  localRateLimit?: TokenBucketIR;
  /** The route's own global rate limits (each Gloo option replacing the virtual host's). */
  rateLimits?: RateLimitsIR;
  /** How ring hash and maglev upstreams hash the request (Gloo's lbHash), in order. */
  hashPolicies?: HashPolicyIR[];
  /** Its settings of the Gateway's ext_proc filters (off, or overrides). */
  extProc?: ExtProcRouteIR;
  /** The buffer filter off, or its own limit in bytes (Gloo's bufferPerRoute); replaces the virtual host's. */
  buffer?: BufferPerRouteIR;
  /** Where lbHash is written: resolve warns there when no upstream of the route hashes. */
  lbHashAt?: { origin: Origin; path: ReadonlyArray<string | number> };
}

export type HashPolicyIR = (
  | { kind: 'header'; name: string }
  | { kind: 'cookie'; name: string; ttl?: string; path?: string }
  | { kind: 'sourceIp' }
) & { terminal: boolean };

/** Gloo's CorsPolicy; `disabled`: the route answers no CORS (disableForRoute). */
export interface CorsIR {
  allowOrigins: StringMatchIR[];
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  maxAge?: string;
  allowCredentials: boolean;
  disabled: boolean;
}

/** A share of requests, as Envoy's FractionalPercent. */
export interface FractionIR {
  numerator: number;
  denominator: 'HUNDRED' | 'TEN_THOUSAND' | 'MILLION';
}

/** Gloo's CsrfPolicy: the share of requests checked and refused, the share only checked, and origins accepted besides the request's host. */
export interface CsrfIR {
  enabled: FractionIR;
  shadow?: FractionIR;
  /** Matched against the source origin's host and port; ignoreCase applies to exact, prefix and suffix. */
  additionalOrigins: { kind: 'exact' | 'prefix' | 'suffix' | 'regex'; value: string; ignoreCase: boolean }[];
}

export type { TokenBucketIR } from './listener-options.js';

/** Gloo's retry policy, as Envoy's: on a route, or on a virtual host for its routes without one. */
export interface RetriesIR {
  /** Envoy's x-envoy-retry-on conditions, comma separated; empty: only retriableStatusCodes. */
  retryOn: string;
  numRetries: number;
  perTryTimeout?: string;
  retriableStatusCodes: number[];
  backOff?: { baseInterval: string; maxInterval?: string };
  /** Back off as the upstream's reset headers say (Gloo's rateLimitedRetryBackOff). */
  rateLimitedBackOff?: { resetHeaders: { name: string; format: 'SECONDS' | 'UNIX_TIMESTAMP' }[]; maxInterval?: string };
  /** Retries skip the priorities already tried, recomputed after this many attempts. */
  previousPrioritiesUpdateFrequency?: number;
}

/** A header added; `secret` (`namespace/name`): its value is that Secret's entry, which nothing but Envoy's configuration shows. */
export interface HeaderAddIR {
  key: string;
  value: string;
  append: boolean;
  secret?: string;
}

/** Headers added to and removed from requests and responses (Gloo's headerManipulation). */
export interface HeaderManipulationIR {
  requestAdd: HeaderAddIR[];
  requestRemove: string[];
  responseAdd: HeaderAddIR[];
  responseRemove: string[];
}

export interface RouteIR {
  /** `<vhost>/<index>`, then `:<name>/<name>` when routes on its delegation branch are named, then ` (RouteTable ns/name)` when delegated; stable for goldens. */
  name: string;
  match: RouteMatchIR;
  action: RouteActionIR;
  options?: RouteOptionsIR;
}

export type JwksIR =
  /** `keys`: a JWK Set document (JSON text), converted and checked from the key as written. */
  { kind: 'local'; keys: string } | { kind: 'remote'; url: string; cluster: string };

export interface JwtProviderIR {
  /** `<namespace>.<vs>.<provider>` */
  name: string;
  /** The provider's name in the virtual host: the key its verified payload is written under (Envoy's payload_in_metadata). */
  payloadKey: string;
  issuer: string;
  jwks: JwksIR;
  origin: Origin;
  /** Field path of this provider inside its VirtualService, for diagnostics. */
  path: ReadonlyArray<string | number>;
  /** Where tokens are looked for (Gloo's tokenSource); undefined: `Authorization: Bearer` and `?access_token=`. */
  tokenSource?: { headers: { name: string; prefix?: string }[]; queryParams: string[] };
  /** Forward the verified token upstream (Gloo's keepToken); by default Envoy removes it. */
  keepToken?: boolean;
  /** Claims copied to request headers (Gloo's claimsToHeaders); `claim` may be a path `a.b.c`, as Envoy reads it. */
  claimsToHeaders?: { claim: string; header: string }[];
  /** A token's aud must name one of these (Gloo's audiences). */
  audiences?: string[];
  /** Leeway on exp and nbf in seconds (0: Envoy's 60). */
  clockSkewSeconds?: number;
  /** A remote key set's cache duration (proto3 JSON), and whether the listener waits for the first fetch. */
  cacheDuration?: string;
  fastListener?: boolean;
  /** Gloo's attachFailedStatusToMetadata: the metadata key of a failed check's status (Envoy's failed_status_in_metadata). */
  failedStatusInMetadata?: string;
}

export interface RbacPolicyIR {
  name: string;
  /** Empty means any method. */
  methods: string[];
  pathPrefix?: string;
  /**
   * `matcher`: Gloo's ClaimMatcher; unset: EXACT_STRING. `providers`: the
   * payload keys (provider names) the claims are read under: the one the
   * principal names, or every provider of the virtual host.
   */
  principals: {
    claims: Record<string, string>;
    matcher?: 'BOOLEAN' | 'LIST_CONTAINS' | 'REGEX_MATCH';
    providers: string[];
  }[];
  /** Gloo's nestedClaimDelimiter: claim names are paths split by it (`org.team` with "." -> org, team); unset: names as written. */
  nestedClaimDelimiter?: string;
  origin: Origin;
  path: ReadonlyArray<string | number>;
}

export interface VirtualHostIR extends VirtualHostExtrasIR {
  /** `<namespace>.<name>` of the VirtualService. */
  name: string;
  namespace: string;
  origin: Origin;
  displayName?: string;
  domains: string[];
  routes: RouteIR[];
  /** `allowMissing`: Gloo's validationPolicy other than REQUIRE_VALID (allowMissingOrFailedJwt is ALLOW_MISSING_OR_FAILED); unset: a valid token is required. */
  jwt?: { providers: JwtProviderIR[]; allowMissing?: 'ALLOW_MISSING' | 'ALLOW_MISSING_OR_FAILED' };
  rbac?: { policies: RbacPolicyIR[] };
  extauth?: ExtauthRefIR;
  /** Gloo's customAuth: a team's own ext_authz server instead of sluice-extauth. */
  customAuth?: CustomAuthIR;
  /** Virtual-host options that apply to every route; a route's own retries replace these. */
  retries?: RetriesIR;
  /** CORS for every route without a policy of its own. */
  cors?: CorsIR;
  /** CSRF for every route without a policy of its own. */
  csrf?: CsrfIR;
  /** One bucket shared by every route without a limit of its own. */
  localRateLimit?: TokenBucketIR;
  /** Global rate limits of every route without its own of the same Gloo option. */
  rateLimits?: RateLimitsIR;
  headers?: HeaderManipulationIR;
  /** Its settings of the Gateway's ext_proc filters, for every route without its own (Envoy merges a route's over them). */
  extProc?: ExtProcRouteIR;
  /** The buffer filter off, or its own limit, for every route without its own. */
  buffer?: BufferPerRouteIR;
  /** Gloo's sslConfig: served only by ssl Gateways. */
  tls?: DownstreamTlsIR;
}

/** A team's own ext_authz server, as Gloo's Settings names it (extauth, or namedExtauth.<name>). */
export interface CustomAuthServerIR {
  /** The namedExtauth key; '' for Settings' extauth. */
  name: string;
  /** The cluster of its Upstream (HTTP/2). */
  cluster: string;
  /** Envoy duration, Gloo's default 200ms applied. */
  timeout: string;
  authority?: string;
  failureModeAllow: boolean;
  statusOnError?: number;
  requestBody?: { maxRequestBytes: number; allowPartialMessage: boolean; packAsBytes: boolean };
  clearRouteCache: boolean;
  statPrefix?: string;
  /** Set: the server answers Envoy's HTTP check instead of gRPC's Check. */
  http?: CustomAuthHttpIR;
}

/** Gloo's httpService: what the plain HTTP check request carries, and which answer headers go where. */
export interface CustomAuthHttpIR {
  /** Without a trailing '/'. */
  pathPrefix: string;
  /** Lower case header names copied from the client's request. */
  allowedHeaders: string[];
  allowedHeadersRegex: string[];
  headersToAdd: Record<string, string>;
  allowedUpstreamHeaders: string[];
  allowedClientHeaders: string[];
  allowedUpstreamHeadersToAppend: string[];
}

/** Gloo's customAuth on a virtual host or route. */
export interface CustomAuthIR {
  server: CustomAuthServerIR;
  contextExtensions: Record<string, string>;
}

/** The AuthConfig a virtual host or route is checked by. */
export interface ExtauthRefIR {
  /** `<namespace>.<name>` of the AuthConfig. */
  configRef: string;
  /** A config of it passes the request body through (passThroughBody): Envoy buffers the body for the check. */
  withRequestBody?: true;
}

export type {
  ApiKeyIR,
  AuthConfigEntryIR,
  AuthConfigIR,
  AuthKindIR,
  BasicAuthIR,
  LdapIR,
  OpaServerIR,
  PassThroughIR,
  PassThroughTlsIR,
} from './extauth.js';

// The GraphQL parts are the compiled contract's own shapes (one definition with sluice-graphql's).
export type {
  Target as TargetIR,
  GrpcResolution as GrpcResolverIR,
  RestResolution as RestResolverIR,
  Resolution as ResolutionIR,
  RemoteExecutor as RemoteExecutorIR,
  TypeMerge as TypeMergeIR,
} from '../../contract/graphql-api.js';

/** The descriptor set stays base64 as written. */
export type ExecutableSchemaIR = ExecutableSchema<string>;

export interface StitchedSchemaIR {
  subschemas: StitchedSubschema[];
}

export interface GraphQLApiIR {
  /** `<namespace>.<name>` */
  name: string;
  origin: Origin;
  logSensitiveInfo: boolean;
  /** options.explorer.enabled: sluice-graphql serves GraphiQL on the API's path. */
  explorer: boolean;
  executable?: ExecutableSchemaIR;
  stitched?: StitchedSchemaIR;
}

/**
 * Cluster names the sidecars take in the output when something uses them
 * (extauth: a virtual host with extauth; graphql: a route to a GraphQL API).
 */
export const SIDECAR_CLUSTERS = { extauth: 'extauth', graphql: 'graphql', ratelimit: 'ratelimit' } as const;

/** A Gateway resource: one listener serving the virtual hosts it selected. */
export interface GatewayIR {
  /** `<namespace>.<name>` */
  name: string;
  origin: Origin;
  /** The listener's name, `listener-<address>-<port>` as Gloo's; its route configuration is `<listener>-routes`. */
  listener: string;
  address: string;
  port: number;
  proxyNames: string[];
  /** `<namespace>.<name>` of each VirtualService it serves, in the virtual hosts' order. */
  virtualHosts: string[];
  /** The listener's filter chains: a plain Gateway has one, an ssl Gateway one per distinct sslConfig. */
  chains: GatewayChainIR[];
  /** useProxyProto: connections start with a PROXY protocol header (the proxy_protocol listener filter). */
  proxyProtocol: boolean;
  /** options.accessLoggingService: each log's sink and filter. */
  accessLogs: AccessLogIR[];
  /** options' fields of the listener itself; absent: none set. */
  listenerFields?: ListenerFieldsIR;
  /** A tcpGateway's (or a hybridGateway's matched tcpGateways') hosts: one filter chain each, proxied to a cluster. */
  tcpHosts: TcpHostIR[];
  /** routeOptions: fields of each of its route configurations; absent: none set. */
  routeConfig?: RouteConfigIR;
}

/** Gloo's RouteConfigurationOptions. */
export interface RouteConfigIR {
  maxDirectResponseBodySizeBytes?: number;
  mostSpecificHeaderMutationsWins?: boolean;
}

/** A TCP host: one filter chain, its connections proxied to its destination. */
export type TcpHostIR = TcpHostFieldsIR & TcpDestinationIR;

/** Where a TCP host's connections go: one cluster (and subset), or clusters by weight (tcp_proxy weighted_clusters). */
export type TcpDestinationIR = ClusterRefIR | { weighted: Array<ClusterRefIR & { weight: number }> };

export interface TcpHostFieldsIR {
  name: string;
  /** SNI the chain matches; empty: any connection. */
  serverNames: string[];
  /** undefined: the TLS connection (if any) is passed through to the upstream as it is. */
  tls?: DownstreamTlsIR;
  sourcePrefixRanges?: CidrIR[];
  /** Its tcpGateway's options; absent: none set. */
  options?: TcpProxyOptionsIR;
}

export interface GatewayChainIR {
  /** Its route configuration: only its virtual hosts, so a client cannot reach a host through another host's SNI. */
  routes: string;
  /** undefined: plain HTTP. */
  tls?: DownstreamTlsIR;
  /** `<namespace>.<name>` of its VirtualServices, in the virtual hosts' order. */
  virtualHosts: string[];
  /** httpGateway.options.httpConnectionManagerSettings, as set. */
  http: HttpSettingsIR;
  /** httpGateway.options' filters (gzip, healthCheck, ...), router settings and connection limit; absent: none set. */
  options?: HttpListenerOptionsIR;
  /** A hybridGateway's matcher: client addresses the chain is for; absent: any. */
  sourcePrefixRanges?: CidrIR[];
}

export interface CidrIR {
  address: string;
  prefixLen: number;
}

/** Headers the connection manager adds, then removes, before routing (Gloo's earlyHeaderManipulation). */
export interface EarlyHeadersIR {
  add: HeaderAddIR[];
  remove: string[];
}

/** Gloo's HttpConnectionManagerSettings that Sluice implements; unset: Sluice's defaults. */
export interface HttpSettingsIR extends HcmMoreIR {
  earlyHeaders?: EarlyHeadersIR;
  useRemoteAddress?: boolean;
  xffNumTrustedHops?: number;
  skipXffAppend?: boolean;
  serverName?: string;
  maxRequestHeadersKb?: number;
  /** Proto3 JSON durations. */
  idleTimeout?: string;
  streamIdleTimeout?: string;
  requestTimeout?: string;
  requestHeadersTimeout?: string;
  drainTimeout?: string;
  delayedCloseTimeout?: string;
  maxConnectionDuration?: string;
  maxStreamDuration?: string;
}

export interface Model {
  /** In a stable order: by namespace, then name. */
  virtualHosts: VirtualHostIR[];
  /** By namespace, then name. None: the default gateway, every virtual host on the listener the options set. */
  gateways: GatewayIR[];
  /** Only upstreams something refers to, sorted by name. */
  upstreams: UpstreamIR[];
  authConfigs: AuthConfigIR[];
  graphqlApis: GraphQLApiIR[];
  /** The TLS Secrets virtual hosts and upstreams use, by name; absent: none. */
  secrets?: TlsSecretIR[];
  /** The endpoints of the used upstreams with a service target, by cluster name; absent: none. */
  endpoints?: EndpointSetIR[];
  /** Global rate limits: the service's rules and how Envoy reaches it; absent: no global limit anywhere. */
  rateLimit?: RateLimitServiceIR;
}
