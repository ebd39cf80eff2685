/**
 * Gloo compatibility as data: every field of Gloo Edge's routing resources,
 * each supported, supported with a difference, or refused with the reason.
 * One table drives three things that must never disagree: the API groups
 * accepted as aliases of ours, the "not supported" errors validate reports
 * before any schema hint (./gloo-refusals.ts), and docs/gloo-compatibility.md
 * (rendered from it and checked by test/gloo). Field names are Gloo's proto
 * fields in their JSON (lowerCamel) spelling, under `spec`.
 */

export type Support = 'supported' | 'different' | 'refused';

export interface FieldEntry {
  support: Support;
  /** supported: optional remark; different: how Sluice differs from Gloo; refused: why. */
  note?: string;
  /** refused: what to write instead, when something exists. */
  instead?: string;
  /** A message Sluice reads part of: its own fields. */
  fields?: FieldTable;
  /** Whether the field holds a list or a map of that message. */
  shape?: 'list' | 'map';
}

export type FieldTable = Record<string, FieldEntry>;

export interface GlooKind {
  /** Sluice's own apiVersion of the kind. */
  apiVersion: string;
  /** Gloo's apiVersion of the kind, accepted as an alias of Sluice's. */
  glooApiVersion: string;
  /** The fields under `spec`. */
  spec: FieldTable;
  /** Set when the whole kind is refused: why. */
  refused?: { reason: string; instead?: string };
}

const supported = (note?: string): FieldEntry => ({ support: 'supported', ...(note ? { note } : {}) });
const message = (fields: FieldTable, shape?: 'list' | 'map', note?: string): FieldEntry => ({ support: 'supported', fields, ...(shape ? { shape } : {}), ...(note ? { note } : {}) });
const different = (note: string, fields?: FieldTable, shape?: 'list' | 'map'): FieldEntry => ({ support: 'different', note, ...(fields ? { fields } : {}), ...(shape ? { shape } : {}) });
const refused = (reason: string, instead?: string): FieldEntry => ({ support: 'refused', note: reason, ...(instead ? { instead } : {}) });

/** Reasons shared by many fields. */
export const REASONS = {
  notYet: 'not implemented yet',
  glooEnvoy: "it needs Gloo's own Envoy build (envoy-gloo filters), and Sluice configures upstream Envoy",
  rateLimit: 'rate limiting is out of scope for Sluice',
  optionResources: 'RouteOption and VirtualHostOption resources are not read',
  extProc: 'external processing (ext_proc) is not implemented',
  noEndpoints: 'Sluice routes to a Kubernetes Service by its DNS name and does not discover pod endpoints',
} as const;

const notYet = () => refused(REASONS.notYet);
const glooEnvoy = () => refused(REASONS.glooEnvoy);
const rateLimit = () => refused(REASONS.rateLimit, 'rate-limit in front of the gateway or in the service');
const extProc = () => refused(REASONS.extProc);

const ref: FieldTable = { name: supported(), namespace: supported('defaults to the namespace of the resource that holds the reference') };

const destination: FieldTable = {
  upstream: message(ref),
  kube: message({ ref: message(ref), port: supported() }),
  consul: refused('Sluice does not read Consul', 'use an Upstream with static hosts'),
  destinationSpec: glooEnvoy(),
  subset: refused(`subsets select pods, and ${REASONS.noEndpoints}`, 'use one Kubernetes Service (or Upstream) per subset'),
};

const matcher: FieldTable = {
  prefix: supported(),
  exact: supported(),
  regex: supported('RE2 syntax, checked at compile time; the whole path (without the query) must match'),
  connectMatcher: refused('CONNECT requests are not proxied'),
  caseSensitive: supported('applies to prefix and exact; a regex is always case sensitive (write (?i) in it)'),
  headers: message({ name: supported(), value: supported('absent or empty: the header must be present'), regex: supported(), invertMatch: supported() }, 'list'),
  queryParameters: message({ name: supported(), value: supported('absent or empty: the parameter must be present'), regex: supported() }, 'list'),
  methods: supported('matched as the :method header'),
};

const jwtProvider: FieldTable = {
  jwks: message({
    remote: message({ url: supported(), upstreamRef: message(ref), cacheDuration: notYet(), asyncFetch: notYet() }),
    local: message({ key: supported('a PEM public key or a JWK Set; checked and converted to a JWK Set at compile time') }),
  }),
  audiences: notYet(),
  issuer: different('required: every provider names the issuer it accepts tokens from'),
  tokenSource: message({ headers: message({ header: supported(), prefix: supported('e.g. "Bearer "') }, 'list'), queryParams: supported() }, undefined, 'unset: Authorization: Bearer and ?access_token='),
  keepToken: supported('the verified token is forwarded upstream (by default it is removed)'),
  claimsToHeaders: message(
    {
      claim: supported('a path a.b.c reads a nested claim (Envoy splits the name at dots); strings, numbers and booleans are copied, lists and objects are not'),
      header: supported(':-prefixed names, host, x-user-id, x-sluice-graphql-api and the provider\'s own token headers are refused'),
      append: different('false only: Envoy removes a client-sent copy of the header before it adds the claim, so true (trusting the client\'s value) is an error'),
    },
    'list',
    'a client-sent copy of the header is removed on every route of the virtual host, whether or not the token carries the claim; a route is chosen again once the claims are in, so routing on a claim header follows the token',
  ),
  clockSkewSeconds: notYet(),
  attachFailedStatusToMetadata: notYet(),
};

const rbacPolicy: FieldTable = {
  principals: message({ jwtPrincipal: message({ claims: supported(), provider: notYet(), matcher: notYet() }) }, 'list'),
  permissions: message({ pathPrefix: supported(), methods: supported() }, undefined, 'none: any request of a matching principal, as Gloo'),
  nestedClaimDelimiter: supported('claim names are split by it into a path in the token (e.g. "." makes org.team the team field of org); empty or unset: names as written'),
};

const rbac: FieldTable = { disable: notYet(), policies: message(rbacPolicy, 'map') };

const extauth: FieldTable = {
  configRef: message(ref),
  disable: notYet(),
  customAuth: refused('ext auth is served by sluice-extauth', 'use an AuthConfig with ldap'),
};

const retries: FieldTable = {
  retryOn: supported("Envoy's x-envoy-retry-on conditions; with retriableStatusCodes, retriable-status-codes is added"),
  numRetries: supported('0 or unset: 1, as Gloo'),
  perTryTimeout: supported(),
  retryBackOff: message({ baseInterval: supported('at least 1ms'), maxInterval: supported('not below baseInterval') }),
  retriableStatusCodes: supported(),
  previousPriorities: refused('Upstream failover priorities are not implemented'),
  rateLimitedRetryBackOff: rateLimit(),
};

const headerValue: FieldTable = {
  header: message({ key: supported(':-prefixed names, host, x-user-id and x-sluice-graphql-api are refused (Envoy or Sluice owns them)'), value: supported() }),
  append: supported('unset or true: appended to a header already there; false: overwrites it'),
  headerSecretRef: refused('header values from Secrets are not implemented', 'write the value inline'),
};

const headerManipulation: FieldTable = {
  requestHeadersToAdd: message(headerValue, 'list'),
  requestHeadersToRemove: supported(),
  responseHeadersToAdd: message(headerValue, 'list'),
  responseHeadersToRemove: supported(),
};

const cors = (onRoute: boolean): FieldEntry =>
  message(
    {
      allowOrigin: supported('exact origins'),
      allowOriginRegex: supported('checked with RE2 at compile time'),
      allowMethods: supported(),
      allowHeaders: supported(),
      exposeHeaders: supported(),
      maxAge: supported('seconds'),
      allowCredentials: supported(),
      disableForRoute: onRoute ? supported() : refused('applies to a route\'s cors only', 'set cors with disableForRoute on the route'),
    },
    undefined,
    onRoute ? "replaces the virtual host's whole; routes with routeAction or graphqlApiRef" : "every route without its own; Envoy's cors filter runs before the authentication filters, so preflights are answered without credentials",
  );

const headerRewrites = { hostRewrite: notYet(), autoHostRewrite: supported('routes with routeAction only; not with hostRewrite'), hostRewritePathRegex: notYet(), hostRewriteHeader: notYet(), appendXForwardedHost: notYet() };

const routeOptions: FieldTable = {
  transformations: glooEnvoy(),
  stagedTransformations: glooEnvoy(),
  faults: message({ abort: message({ percentage: supported('0 to 100 (unset: 0)'), httpStatus: supported('200 to 599') }), delay: message({ percentage: supported('0 to 100 (unset: 0)'), fixedDelay: supported() }) }, undefined, 'routes with routeAction only; requests cannot ask for faults with x-envoy-fault-* headers'),
  prefixRewrite: supported('routes with routeAction only; replaces the matched prefix'),
  regexRewrite: message({ pattern: message({ regex: supported('checked with RE2 at compile time'), googleRe2: refused('RE2 program size limits are not implemented') }), substitution: supported() }, undefined, 'routes with routeAction only; not with prefixRewrite'),
  ...headerRewrites,
  hostRewrite: supported('routes with routeAction only: the Host header sent upstream'),
  timeout: supported('routes with routeAction only; "0s": none (Envoy\'s default is 15s)'),
  retries: message(retries, undefined, 'routes with routeAction only; replaces the virtual host\'s'),
  extensions: refused('Gloo plugin extensions do not exist in Sluice'),
  tracing: refused('tracing is not implemented'),
  shadowing: message({ upstream: message(ref), percentage: supported('0 to 100 (unset: 0, nothing mirrored, as Gloo)'), disableShadowHostSuffixAppend: supported(), hostRewriteLiteral: supported() }, undefined, 'routes with routeAction only; the shadow\'s answers are ignored'),
  headerManipulation: message(headerManipulation, undefined, 'applied before the virtual host\'s'),
  cors: cors(true),
  lbHash: message({ hashPolicies: message({ header: supported(), cookie: message({ name: supported(), ttl: supported(), path: supported() }), sourceIp: supported(), terminal: supported() }, 'list') }, undefined, 'routes with routeAction only; used by ringHash and maglev upstreams'),
  upgrades: message({ websocket: message({ enabled: supported('unset: enabled') }), connect: message({ enabled: supported('unset: enabled') }), connectTerminate: refused('terminating CONNECT is not implemented') }, 'list', 'routes with routeAction only'),
  ratelimitBasic: rateLimit(),
  ratelimitEarly: rateLimit(),
  rateLimitEarlyConfigs: rateLimit(),
  ratelimit: rateLimit(),
  rateLimitConfigs: rateLimit(),
  ratelimitRegular: rateLimit(),
  rateLimitRegularConfigs: rateLimit(),
  waf: glooEnvoy(),
  jwt: message({ disable: supported('the route asks for no token (jwt_authn PerRouteConfig disabled)') }),
  jwtStaged: refused('JWT is always checked before ext auth', 'use options.jwt on the virtual host'),
  jwtProvidersStaged: refused('JWT is always checked before ext auth', 'use options.jwt on the virtual host'),
  rbac: message({ disable: supported('no policy is checked on the route'), policies: refused('route-level RBAC policies are not implemented', 'put the policies on the virtual host (a permission pathPrefix narrows one to a path)') }),
  extauth: message({ disable: supported('no ext auth on the route'), configRef: message(ref, undefined, "another AuthConfig than the virtual host's; only where the virtual host has extauth"), customAuth: refused('ext auth is served by sluice-extauth', 'use an AuthConfig with ldap') }),
  dlp: glooEnvoy(),
  bufferPerRoute: notYet(),
  csrf: notYet(),
  envoyMetadata: refused('nothing in Sluice reads route metadata'),
  maxStreamDuration: notYet(),
  idleTimeout: notYet(),
  extProcEarly: extProc(),
  extProc: extProc(),
  extProcLate: extProc(),
  ai: glooEnvoy(),
};

const virtualHostOptions: FieldTable = {
  extensions: refused('Gloo plugin extensions do not exist in Sluice'),
  retries: message(retries, undefined, "every route without retries of its own"),
  stats: refused('virtual cluster statistics are not implemented'),
  headerManipulation: message(headerManipulation, undefined, "every route, after the route's own"),
  cors: cors(false),
  transformations: glooEnvoy(),
  stagedTransformations: glooEnvoy(),
  ratelimitBasic: rateLimit(),
  ratelimitEarly: rateLimit(),
  rateLimitEarlyConfigs: rateLimit(),
  ratelimit: rateLimit(),
  rateLimitConfigs: rateLimit(),
  ratelimitRegular: rateLimit(),
  rateLimitRegularConfigs: rateLimit(),
  waf: glooEnvoy(),
  jwt: message({ providers: message(jwtProvider, 'map', 'at least one'), allowMissingOrFailedJwt: notYet(), validationPolicy: notYet() }),
  jwtStaged: refused('JWT is always checked before ext auth', 'use options.jwt'),
  rbac: message(rbac),
  extauth: message(extauth),
  dlp: glooEnvoy(),
  bufferPerRoute: notYet(),
  csrf: notYet(),
  includeRequestAttemptCount: notYet(),
  includeAttemptCountInResponse: notYet(),
  extProcEarly: extProc(),
  extProc: extProc(),
  extProcLate: extProc(),
  corsPolicyMergeSettings: notYet(),
};

const route: FieldTable = {
  matchers: message(matcher, 'list', 'none: the route matches every path (prefix "/")'),
  inheritableMatchers: supported("on a delegating route or a RouteTable's route: the child routes add the parent matcher's headers, query parameters and methods to theirs; unset: the parent's setting (false at the VirtualService)"),
  inheritablePathMatchers: supported("on a delegating route or a RouteTable's route: the child routes match the parent's prefix (and case sensitivity) instead of their own path; unset: the parent's setting (false at the VirtualService)"),
  routeAction: message({
    single: message(destination),
    multi: message({ destinations: message({ destination: message(destination), weight: supported('requests are split in proportion to the weights; all 0 is an error'), options: notYet() }, 'list') }),
    upstreamGroup: message(ref, undefined, 'weighted as routeAction.multi, with the destinations in the UpstreamGroup'),
    clusterHeader: refused('cluster names are internal to Sluice', 'name the upstream in routeAction.single'),
    dynamicForwardProxy: refused('Sluice sends requests only to upstreams its resources name', 'use an Upstream with static hosts'),
  }),
  redirectAction: message({
    hostRedirect: supported(),
    pathRedirect: supported('not with prefixRewrite'),
    prefixRewrite: supported('not with pathRedirect'),
    responseCode: supported('MOVED_PERMANENTLY (the default), FOUND, SEE_OTHER, TEMPORARY_REDIRECT, PERMANENT_REDIRECT'),
    httpsRedirect: supported(),
    stripQuery: supported(),
  }),
  directResponseAction: message({ status: supported('200 to 599, as Envoy allows'), body: supported("at most 4096 bytes (Envoy's limit for a route configuration)") }),
  delegateAction: message(
    {
      ref: message(ref),
      selector: message({
        namespaces: supported('"*": every namespace; unset: the namespace of the delegating resource'),
        labels: supported("every label must be on the RouteTable; none: every RouteTable of the namespaces"),
        expressions: message({ key: supported(), operator: supported('Equals (unset), DoubleEquals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan, by name'), values: supported() }, 'list', 'Kubernetes label requirements, all of which must hold; not with labels (Gloo would select nothing)'),
      }),
      name: different('deprecated, as in Gloo; not together with ref or selector (Gloo would silently ignore them)'),
      namespace: supported('deprecated, with name'),
    },
    undefined,
    "the route's single prefix matcher (none: \"/\") is delegated; the RouteTables' routes are inlined in its place (by weight, then namespace and name), each path starting with that prefix; routes inherit the delegating route's options they do not set; nested at most 8 RouteTables deep; cycles are errors",
  ),
  graphqlApiRef: message(ref, undefined, "Gloo Enterprise 1.x's field: the route is served by sluice-graphql"),
  options: message(routeOptions),
  name: notYet(),
  optionsConfigRefs: refused(REASONS.optionResources, 'write the options inline in the route\'s options'),
};

const tlsUnsupported = {
  sslFiles: refused('Sluice reads certificates from Secrets only (served over SDS), not from files on the proxy', 'put the certificate in a kubernetes.io/tls Secret and use secretRef'),
  sds: refused('Sluice serves the certificates over SDS itself', 'use secretRef'),
  verifySubjectAltName: supported("the peer's certificate must carry one of these subject alternative names (DNS, URI, email or IP, exactly); needs ca.crt in the Secret"),
};

const sslParameters: FieldTable = {
  minimumProtocolVersion: supported('TLS_AUTO, TLSv1_0 to TLSv1_3'),
  maximumProtocolVersion: supported('TLS_AUTO, TLSv1_0 to TLSv1_3; not below the minimum'),
  cipherSuites: notYet(),
  ecdhCurves: notYet(),
};

/** Gloo's SslConfig (ssl.proto): TLS termination. */
const sslConfig: FieldTable = {
  secretRef: message(ref, undefined, 'required: a kubernetes.io/tls Secret (tls.crt, tls.key; ca.crt requires client certificates unless oneWayTls); checked at compile time (PEM, key matches certificate, not expired; names not covering the domains: a warning)'),
  ...tlsUnsupported,
  sniDomains: supported('one filter chain per distinct sslConfig, matched by SNI; empty: any SNI (and none). Two chains sharing an SNI domain on one Gateway are an error'),
  parameters: message(sslParameters),
  alpnProtocols: supported('default ["h2", "http/1.1"]'),
  oneWayTls: supported(),
  disableTlsSessionResumption: notYet(),
  transportSocketConnectTimeout: notYet(),
  ocspStaplePolicy: notYet(),
};

/** Gloo's UpstreamSslConfig. */
const upstreamSslConfig: FieldTable = {
  secretRef: message(ref, undefined, "a Secret: its ca.crt verifies the upstream's certificate, its tls.crt and tls.key are the client certificate. Without one (or without ca.crt) the upstream's certificate is not verified, as Gloo (a warning)"),
  ...tlsUnsupported,
  sni: supported(),
  parameters: message(sslParameters),
  alpnProtocols: supported(),
  allowRenegotiation: notYet(),
  oneWayTls: supported('true: no client certificate even when the Secret has one'),
};

const virtualService: FieldTable = {
  virtualHost: message({
    domains: supported(),
    routes: message(route, 'list', 'kept in the order written'),
    options: message(virtualHostOptions),
    optionsConfigRefs: refused(REASONS.optionResources, 'write the options inline in virtualHost.options'),
  }),
  sslConfig: message(sslConfig, undefined, 'served only by Gateways with ssl: true (and one without sslConfig only by plain ones), as Gloo'),
  displayName: different('kept in the compiled model (sluice compile --dump-ir); no Envoy field carries it'),
};

const routeTable: FieldTable = {
  routes: message(route, 'list', 'kept in the order written'),
  weight: supported('the tables one delegateAction selects are inlined by ascending weight (unset: 0); tables of equal weight have their routes sorted by path specificity, as Gloo (a warning)'),
};

const lbTypeNote = 'one of roundRobin, leastRequest, random, ringHash, maglev (unset: round robin)';
const slowStart = refused('slow start is not implemented');
const loadBalancerConfig: FieldTable = {
  healthyPanicThreshold: supported('a percentage, 0 to 100'),
  updateMergeWindow: supported(),
  roundRobin: message({ slowStartConfig: slowStart }, undefined, lbTypeNote),
  leastRequest: message({ choiceCount: supported('at least 2'), slowStartConfig: slowStart }, undefined, lbTypeNote),
  random: supported(lbTypeNote),
  ringHash: message({ ringHashConfig: message({ minimumRingSize: supported(), maximumRingSize: supported('at most 8388608 (Envoy\'s bound)') }) }, undefined, `${lbTypeNote}; routes choose the hash with options.lbHash`),
  maglev: supported(`${lbTypeNote}; routes choose the hash with options.lbHash`),
  localityWeightedLbConfig: refused('localities are not implemented (endpoints carry none)'),
  useHostnameForHashing: supported(),
  closeConnectionsOnHostSetChange: supported(),
};

const circuitBreakers: FieldTable = {
  maxConnections: supported(),
  maxPendingRequests: supported(),
  maxRequests: supported(),
  maxRetries: supported(),
  trackRemaining: supported(),
};

const connectionConfig: FieldTable = {
  maxRequestsPerConnection: supported(),
  connectTimeout: supported('default 5s'),
  tcpKeepalive: message({ keepaliveProbes: supported(), keepaliveTime: supported('whole seconds (Envoy\'s unit), rounded up'), keepaliveInterval: supported('whole seconds (Envoy\'s unit), rounded up') }),
  perConnectionBufferLimitBytes: supported(),
  commonHttpProtocolOptions: notYet(),
  http1ProtocolOptions: notYet(),
};

const healthCheck: FieldTable = {
  timeout: supported('required'),
  interval: supported('required'),
  unhealthyThreshold: supported('required'),
  healthyThreshold: supported('required'),
  noTrafficInterval: supported(),
  httpHealthCheck: message({ path: supported('required'), host: supported(), serviceName: notYet(), requestHeadersToAdd: notYet(), requestHeadersToRemove: notYet(), useHttp2: notYet(), expectedStatuses: notYet(), responseAssertions: refused(REASONS.glooEnvoy) }, undefined, 'one of httpHealthCheck, tcpHealthCheck, grpcHealthCheck'),
  tcpHealthCheck: message({ send: notYet(), receive: notYet() }, undefined, 'without send/receive: healthy when a connection opens'),
  grpcHealthCheck: message({ serviceName: supported(), authority: supported() }),
  customHealthCheck: refused('custom health checkers are not implemented'),
  initialJitter: notYet(),
  intervalJitter: notYet(),
  intervalJitterPercent: notYet(),
  altPort: notYet(),
  reuseConnection: notYet(),
  unhealthyInterval: notYet(),
  unhealthyEdgeInterval: notYet(),
  healthyEdgeInterval: notYet(),
  eventLogPath: refused('health check event logs are not implemented'),
  alwaysLogHealthCheckFailures: refused('health check event logs are not implemented'),
  tlsOptions: notYet(),
};

const outlierDetection: FieldTable = Object.fromEntries([
  ...['consecutive5xx', 'interval', 'baseEjectionTime', 'maxEjectionPercent', 'enforcingConsecutive5xx', 'enforcingSuccessRate', 'successRateMinimumHosts', 'successRateRequestVolume', 'successRateStdevFactor', 'consecutiveGatewayFailure', 'enforcingConsecutiveGatewayFailure'].map((f) => [f, supported()] as const),
  ...['splitExternalLocalOriginErrors', 'consecutiveLocalOriginFailure', 'enforcingConsecutiveLocalOriginFailure', 'enforcingLocalOriginSuccessRate'].map((f) => [f, notYet()] as const),
]);

const upstream: FieldTable = {
  discoveryMetadata: different("accepted and not used: labels Gloo's discovery adds, with no routing meaning", { labels: supported() }),
  sslConfig: message(upstreamSslConfig),
  circuitBreakers: message(circuitBreakers, undefined, 'one threshold at the default priority'),
  loadBalancerConfig: message(loadBalancerConfig),
  healthChecks: message(healthCheck, 'list', 'active health checks from every Envoy'),
  outlierDetection: message(outlierDetection),
  kube: message({
    serviceName: supported(),
    serviceNamespace: supported('defaults to the Upstream\'s namespace'),
    servicePort: supported(),
    selector: different(`must equal the Service's own selector, and the Service must be among the inputs: ${REASONS.noEndpoints}, so a narrower selector (one Upstream per version) would reach every pod`),
    serviceSpec: notYet(),
    subsetSpec: refused(`subsets select pods, and ${REASONS.noEndpoints}`, 'use one Kubernetes Service per subset'),
  }),
  static: message({
    hosts: message({ addr: supported('an IP address or a DNS name'), port: supported(), sniAddr: notYet(), loadBalancingWeight: notYet(), healthCheckConfig: notYet(), metadata: notYet() }, 'list'),
    useTls: notYet(),
    serviceSpec: notYet(),
    autoSniRewrite: notYet(),
  }),
  pipe: refused('Sluice does not proxy to Unix sockets'),
  aws: glooEnvoy(),
  azure: glooEnvoy(),
  consul: refused('Sluice does not read Consul', 'use an Upstream with static hosts'),
  awsEc2: glooEnvoy(),
  gcp: glooEnvoy(),
  ai: glooEnvoy(),
  failover: notYet(),
  connectionConfig: message(connectionConfig),
  protocolSelection: notYet(),
  useHttp2: supported(),
  initialStreamWindowSize: notYet(),
  initialConnectionWindowSize: notYet(),
  maxConcurrentStreams: notYet(),
  overrideStreamErrorOnInvalidHttpMessage: notYet(),
  httpProxyHostname: refused('tunnelling through an HTTP CONNECT proxy is not implemented'),
  httpConnectSslConfig: refused('tunnelling through an HTTP CONNECT proxy is not implemented'),
  httpConnectHeaders: refused('tunnelling through an HTTP CONNECT proxy is not implemented'),
  ignoreHealthOnHostRemoval: notYet(),
  respectDnsTtl: notYet(),
  dnsRefreshRate: notYet(),
  proxyProtocolVersion: notYet(),
  preconnectPolicy: notYet(),
  disableIstioAutoMtls: refused('Sluice has no Istio integration'),
};

const upstreamGroup: FieldTable = {
  destinations: message({ destination: message(destination), weight: supported('requests are split in proportion to the weights; all 0 is an error'), options: notYet() }, 'list'),
};

const onlyLdap = () => refused('sluice-extauth implements LDAP only', 'use ldap, or JWT on the VirtualService (virtualHost.options.jwt)');

const authConfig: FieldTable = {
  configs: message(
    {
      name: notYet(),
      basicAuth: onlyLdap(),
      oauth: onlyLdap(),
      oauth2: onlyLdap(),
      apiKeyAuth: onlyLdap(),
      pluginAuth: onlyLdap(),
      opaAuth: onlyLdap(),
      ldap: message(
        {
          address: supported(),
          userDnTemplate: supported(),
          membershipAttributeName: supported(),
          allowedGroups: different('required: a user is let in only as a member of one of these groups'),
          pool: message({ maxSize: supported(), initialSize: supported() }),
          searchFilter: supported(),
          disableGroupChecking: notYet(),
          groupLookupSettings: message({ credentialsSecretRef: message(ref), checkGroupsWithServiceAccount: supported() }),
        },
        undefined,
        'one per config',
      ),
      jwt: onlyLdap(),
      passThroughAuth: onlyLdap(),
      hmacAuth: onlyLdap(),
      opaServerAuth: onlyLdap(),
      portalAuth: onlyLdap(),
    },
    'list',
    'evaluated in order; every config must allow the request',
  ),
  booleanExpr: refused('every config must allow the request (no boolean expressions)', 'list only the configs that must all pass'),
  failOnRedirect: refused('only meaningful with OAuth, which is not supported'),
};

/** GraphQL resolvers' fields; their form is checked by resolve. */
const resolution: FieldTable = {
  restResolver: message({ upstreamRef: message(ref), request: supported(), response: supported(), timeout: supported(), spanName: refused('sluice-graphql does not trace resolver calls') }),
  grpcResolver: message({ upstreamRef: message(ref), requestTransform: supported(), timeout: supported(), spanName: refused('sluice-graphql does not trace resolver calls') }),
  mockResolver: refused('sluice-graphql only calls real upstreams', 'point a restResolver or grpcResolver at a test upstream'),
  statPrefix: refused('sluice-graphql labels its metrics with the API and resolution names'),
};

const descriptorInline = 'inline the descriptor set as protoDescriptorBin: `protoc --include_imports --descriptor_set_out=/dev/stdout x.proto | base64 -w0`';

const graphqlApi: FieldTable = {
  executableSchema: message({
    schemaDefinition: supported(),
    executor: message({
      local: message({ resolutions: message(resolution, 'map'), enableIntrospection: supported(), options: supported() }),
      remote: supported(),
    }),
    resolutions: message(resolution, 'map', 'also accepted beside executor.local'),
    grpcDescriptorRegistry: message({
      protoDescriptorBin: supported(),
      protoDescriptor: refused('it names a file on the gateway, and sluice-graphql reads no files named by resources', descriptorInline),
      protoRefsList: refused('the compiler reads no ConfigMaps', descriptorInline),
    }),
  }),
  stitchedSchema: supported(),
  options: supported(),
  statPrefix: refused('sluice-graphql labels its metrics with the API and resolution names'),
  persistedQueryCacheConfig: refused('sluice-graphql executes the query text each request carries (no persisted queries)'),
  allowedQueryHashes: refused('sluice-graphql does not check query hashes', 'limit what clients may do with RBAC on the route'),
};

const hcmSettings: FieldTable = {
  useRemoteAddress: supported('default true (as Gloo)'),
  xffNumTrustedHops: supported(),
  skipXffAppend: supported(),
  serverName: supported(),
  maxRequestHeadersKb: supported('1 to 8192'),
  idleTimeout: supported('a duration, e.g. "60s"'),
  streamIdleTimeout: supported('a duration'),
  requestTimeout: supported('a duration'),
  requestHeadersTimeout: supported('a duration'),
  drainTimeout: supported('a duration'),
  delayedCloseTimeout: supported('a duration'),
  maxConnectionDuration: supported('a duration'),
  maxStreamDuration: supported('a duration'),
  ...Object.fromEntries(
    ['via', 'generateRequestId', 'proxy100Continue', 'maxHeadersCount', 'stripAnyHostPort', 'acceptHttp10', 'defaultHostForHttp10', 'allowChunkedLength', 'enableTrailers', 'properCaseHeaderKeyFormat', 'preserveCaseHeaderKeyFormat', 'forwardClientCertDetails', 'setCurrentClientCertDetails', 'preserveExternalRequestId', 'serverHeaderTransformation', 'codecType', 'uuidRequestIdConfig', 'http2ProtocolOptions', 'internalAddressConfig', 'appendXForwardedPort', 'earlyHeaderManipulation'].map((f) => [f, notYet()]),
  ),
  tracing: refused('tracing is not implemented'),
  headersWithUnderscoresAction: refused('fixed: headers with underscores are dropped (a client could pose as an identity header a sidecar sets)'),
  pathWithEscapedSlashesAction: refused('fixed: escaped slashes are decoded with a redirect, so path-based policies see the path the upstream sees'),
  mergeSlashes: refused('fixed: on, so path-based policies see the path the upstream sees'),
  normalizePath: refused('fixed: on, so path-based policies see the path the upstream sees'),
};

/** Gloo's AccessLoggingService (als.proto). */
const accessLoggingService: FieldTable = {
  accessLog: message(
    {
      fileSink: message({ path: supported('a file on the proxy, or /dev/stdout'), stringFormat: supported("Envoy's command operators, e.g. %REQ(:PATH)%"), jsonFormat: supported("an object of Envoy's command operators") }),
      grpcService: refused('Sluice runs no access log service', 'write to a fileSink (e.g. /dev/stdout) and collect the proxy\'s output'),
      openTelemetryService: refused('OpenTelemetry is not implemented', 'write to a fileSink'),
      filter: notYet(),
    },
    'list',
  ),
};

const httpGateway: FieldEntry = message({
  virtualServices: message(ref, 'list', 'the VirtualServices served; setting it with virtualServiceSelector is an error (Gloo would silently prefer the selector)'),
  virtualServiceSelector: supported('matches metadata.labels'),
  virtualServiceExpressions: notYet(),
  virtualServiceNamespaces: supported('"*" or a list; applies to the selector and to "every VirtualService", not to virtualServices'),
  options: message(
    {
      httpConnectionManagerSettings: message(hcmSettings),
      ...Object.fromEntries('grpcWeb healthCheck extensions waf dlp wasm extauth ratelimitServer caching disableExtProcEarly extProcEarly disableExtProc extProc disableExtProcLate extProcLate gzip proxyLatency buffer csrf grpcJsonTranscoder sanitizeClusterHeader leftmostXffAddress dynamicForwardProxy connectionLimit networkLocalRatelimit httpLocalRatelimit router tap statefulSession headerValidationSettings'.split(' ').map((f) => [f, notYet()])),
    },
    undefined,
    'only httpConnectionManagerSettings',
  ),
});

const tcpGateway: FieldEntry = message({
  tcpHosts: message(
    {
      name: supported('names the filter chain and its statistics'),
      sslConfig: message({ ...sslConfig, secretRef: message(ref, undefined, 'optional: with it, TLS is terminated with its certificate; without it, connections are matched by SNI and passed through as they are') }),
      destination: message({
        single: message({ upstream: message(ref), kube: notYet(), consul: refused('Sluice does not read Consul', 'use an Upstream with static hosts'), destinationSpec: glooEnvoy(), subset: notYet() }),
        multi: notYet(),
        upstreamGroup: notYet(),
        forwardSniClusterName: refused('cluster names are internal to Sluice', 'name the upstream in destination.single'),
      }),
    },
    'list',
    'one filter chain each, in order: matched by sslConfig.sniDomains (none: any connection), proxied to the Upstream (tcp_proxy)',
  ),
  options: notYet(),
});

const hybridGateway: FieldEntry = message({
  matchedGateways: message(
    {
      matcher: message({
        sslConfig: message({ ...sslConfig, secretRef: message(ref, undefined, "required for a matched httpGateway (its TLS: a VirtualService's own sslConfig is not used there, so VirtualServices with one are not served); not allowed on a matched tcpGateway (its TCP hosts have their own)") }),
        sourcePrefixRanges: message({ addressPrefix: supported('an IP address'), prefixLen: supported('default: the whole address') }, 'list'),
        passthroughCipherSuites: refused("an Enterprise Gloo feature of its own Envoy build", 'terminate TLS or pass it through by SNI'),
      }),
      httpGateway,
      tcpGateway,
    },
    'list',
    'one filter chain each (a matched tcpGateway: one per TCP host), matched by the matcher\'s SNI domains and source prefixes; each matched httpGateway has its own route configuration',
  ),
  delegatedHttpGateways: refused('MatchableHttpGateway resources are not read', 'write the gateways in matchedGateways'),
  delegatedTcpGateways: refused('MatchableTcpGateway resources are not read', 'write the gateways in matchedGateways'),
});

/** Gloo's Gateway (gateway.proto, http_gateway.proto): one listener each. */
const gateway: FieldTable = {
  ssl: supported('true: TLS only, serving the VirtualServices with sslConfig (one filter chain per distinct sslConfig, matched by SNI)'),
  bindAddress: supported('an IP address; defaults to "::" with IPv4 accepted too (ipv4_compat), as Gloo'),
  bindPort: supported(),
  proxyNames: supported('defaults to ["gateway-proxy"]; an Envoy names its proxy in node metadata `role` (`NAMESPACE~NAME` as Gloo\'s bootstrap writes it, or `NAME`; none: gateway-proxy) and is served only the Gateways that list it'),
  httpGateway,
  tcpGateway,
  hybridGateway,
  useProxyProto: supported('the proxy_protocol listener filter: every connection must start with a PROXY header (v1 or v2), whose source address Envoy then uses'),
  options: message(
    {
      accessLoggingService: message(accessLoggingService),
      ...Object.fromEntries(['extensions', 'perConnectionBufferLimitBytes', 'socketOptions', 'proxyProtocol', 'connectionBalanceConfig', 'listenerAccessLoggingService', 'tcpStats'].map((f) => [f, notYet()])),
    },
    undefined,
    'only accessLoggingService',
  ),
  routeOptions: notYet(),
};

/** Every Gloo kind of the routing API, by kind. */
export const GLOO_KINDS: Record<string, GlooKind> = {
  VirtualService: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: virtualService },
  RouteTable: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: routeTable },
  Gateway: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: gateway },
  Upstream: { apiVersion: 'gloo.gateway.example/v1', glooApiVersion: 'gloo.solo.io/v1', spec: upstream },
  UpstreamGroup: { apiVersion: 'gloo.gateway.example/v1', glooApiVersion: 'gloo.solo.io/v1', spec: upstreamGroup },
  AuthConfig: { apiVersion: 'enterprise.gateway.example/v1', glooApiVersion: 'enterprise.gloo.solo.io/v1', spec: authConfig },
  GraphQLApi: { apiVersion: 'graphql.gateway.example/v1beta1', glooApiVersion: 'graphql.gloo.solo.io/v1beta1', spec: graphqlApi },
  // Kinds a Gloo export carries that Sluice refuses as a whole, each with the reason: never "unknown kind".
  RouteOption: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: {}, refused: { reason: REASONS.optionResources, instead: "write the options inline in the route's options" } },
  VirtualHostOption: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: {}, refused: { reason: REASONS.optionResources, instead: 'write the options inline in virtualHost.options' } },
  MatchableHttpGateway: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: {}, refused: { reason: 'delegated hybrid gateways are not implemented yet', instead: "write the gateway in the Gateway's hybridGateway.matchedGateways" } },
  MatchableTcpGateway: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: {}, refused: { reason: 'delegated hybrid gateways are not implemented yet', instead: "write the gateway in the Gateway's hybridGateway.matchedGateways" } },
  HttpListenerOption: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: {}, refused: { reason: 'listener option resources are not read', instead: "write the settings in the Gateway's httpGateway.options" } },
  ListenerOption: { apiVersion: 'gateway.gateway.example/v1', glooApiVersion: 'gateway.solo.io/v1', spec: {}, refused: { reason: 'listener option resources are not read', instead: "write the settings in the Gateway's options" } },
  Proxy: { apiVersion: 'gloo.gateway.example/v1', glooApiVersion: 'gloo.solo.io/v1', spec: {}, refused: { reason: "a Proxy is what Gloo's gateway controller writes from Gateways and VirtualServices, and Sluice compiles those itself", instead: 'leave Proxy resources out of the inputs' } },
  Settings: { apiVersion: 'gloo.gateway.example/v1', glooApiVersion: 'gloo.solo.io/v1', spec: {}, refused: { reason: "Gloo's control-plane settings have no counterpart in the resources", instead: "use sluice serve's flags (sluice serve --help)" } },
  RateLimitConfig: { apiVersion: 'ratelimit.gateway.example/v1alpha1', glooApiVersion: 'ratelimit.solo.io/v1alpha1', spec: {}, refused: { reason: 'rate limiting is out of scope for Sluice', instead: 'rate-limit in front of the gateway, or leave the RateLimitConfig out' } },
};

/** Gloo's API groups -> Sluice's: the same kinds under either name, with identical output. */
export const GLOO_API_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(Object.values(GLOO_KINDS).map((k) => [k.glooApiVersion, k.apiVersion]));

/** The Gloo kind a document's apiVersion and kind name (under Sluice's or Gloo's group), if any. */
export function glooKind(apiVersion: string, kind: string): GlooKind | undefined {
  const entry = Object.hasOwn(GLOO_KINDS, kind) ? GLOO_KINDS[kind] : undefined;
  return entry && (apiVersion === entry.apiVersion || apiVersion === entry.glooApiVersion) ? entry : undefined;
}
