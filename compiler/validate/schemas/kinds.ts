/**
 * One JSON Schema per apiVersion/kind of SPEC.md section 2, plus Kubernetes
 * `v1` Service and Secret. Every field SPEC.md names is typed.
 */
import { REQUEST_TEST_API_VERSION, REQUEST_TEST_KIND, requestTest } from '../../explain/schema.js';
import { LABEL_OPERATORS } from '../../resolve/label-expressions.js';
import { atMostOne, boolean, exactlyOne, mapOf, namespaceName, nonEmptyString, object, port, positiveDuration, resource, resourceName, resourceRef, singleLine, singleLineMap, string, stringMap, type Schema } from './common.js';

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];
const pathPrefix: Schema = { type: 'string', pattern: '^/', minLength: 1, format: 'path-prefix' };
const domain: Schema = { type: 'string', minLength: 1, format: 'domain' };
/** Gloo's RedirectAction.RedirectResponseCode, Envoy's names. */
export const REDIRECT_CODES = ['MOVED_PERMANENTLY', 'FOUND', 'SEE_OTHER', 'TEMPORARY_REDIRECT', 'PERMANENT_REDIRECT'];

// Gloo's Destination.
const destination: Schema = {
  ...object({
    kube: object({ ref: resourceRef, port }, ['ref', 'port']),
    upstream: resourceRef,
  }),
  ...exactlyOne('kube', 'upstream'),
};

// Gloo's MultiDestination, also the spec of an UpstreamGroup.
const weightedDestinations = object({ destinations: { type: 'array', minItems: 1, items: object({ destination, weight: { type: 'integer', minimum: 0, maximum: 4294967295 } }, ['destination']) } }, ['destinations']);

// Gloo's Matcher; at most one of prefix, exact, regex (resolve says so), none: prefix "/".
const matcher = object({
  prefix: pathPrefix,
  exact: pathPrefix,
  regex: singleLine,
  caseSensitive: boolean,
  headers: { type: 'array', items: object({ name: singleLine, value: { type: 'string', format: 'single-line' }, regex: boolean, invertMatch: boolean }, ['name']) },
  // Envoy takes a query parameter name of at most 1,024 bytes: 256 characters stay within it whatever their encoding.
  queryParameters: { type: 'array', items: object({ name: { ...singleLine, maxLength: 256 }, value: { type: 'string', format: 'single-line' }, regex: boolean }, ['name']) },
  methods: { type: 'array', items: { enum: HTTP_METHODS }, minItems: 1, uniqueItems: true },
});

// Gloo's CorsPolicy (cors.proto); origin regexes are checked by resolve.
const corsFields: Record<string, Schema> = {
  allowOrigin: { type: 'array', items: singleLine },
  allowOriginRegex: { type: 'array', items: singleLine },
  allowMethods: { type: 'array', items: singleLine },
  allowHeaders: { type: 'array', items: singleLine },
  exposeHeaders: { type: 'array', items: singleLine },
  maxAge: { type: 'string', pattern: '^[0-9]+$' },
  allowCredentials: boolean,
};
const cors = object({ ...corsFields, disableForRoute: boolean });
const hostCors = object(corsFields);

// Gloo's RetryPolicy (retries.proto); durations are checked by resolve.
const retries = object({
  retryOn: { type: 'string', format: 'single-line' },
  numRetries: { type: 'integer', minimum: 0, maximum: 4294967295 },
  perTryTimeout: string,
  retriableStatusCodes: { type: 'array', items: { type: 'integer', minimum: 100, maximum: 599 } },
  retryBackOff: object({ baseInterval: string, maxInterval: string }, ['baseInterval']),
});

// Gloo's HeaderManipulation (headers.proto); reserved names are checked by resolve.
const headerValues = { type: 'array', items: object({ header: object({ key: singleLine, value: { type: 'string', format: 'single-line' } }, ['key']), append: boolean }, ['header']) };
const headerNames = { type: 'array', items: singleLine };
const headerManipulation = object({ requestHeadersToAdd: headerValues, requestHeadersToRemove: headerNames, responseHeadersToAdd: headerValues, responseHeadersToRemove: headerNames });

// A Kubernetes label key: an optional DNS-subdomain prefix and "/", then a name of at most 63 characters.
const labelKey: Schema = { type: 'string', maxLength: 317, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$' };

// Gloo's DelegateAction: a RouteTable by ref or by selector, or by the deprecated name/namespace (with a name).
const delegateAction: Schema = {
  ...object({
    name: resourceName,
    namespace: namespaceName,
    ref: resourceRef,
    // Gloo refuses labels with expressions in one selector; values per operator: resolve.
    selector: {
      ...object({
        namespaces: { type: 'array', items: { anyOf: [namespaceName, { const: '*' }] }, uniqueItems: true },
        labels: stringMap,
        expressions: { type: 'array', minItems: 1, items: object({ key: labelKey, operator: { enum: [...LABEL_OPERATORS] }, values: { type: 'array', items: string } }, ['key']) },
      }),
      ...atMostOne('labels', 'expressions'),
    },
  }),
  ...exactlyOne('ref', 'selector', 'name'),
};

const route = {
  ...object({
    matchers: { type: 'array', items: matcher },
    inheritableMatchers: boolean,
    inheritablePathMatchers: boolean,
    delegateAction,
    routeAction: {
      ...object({
        single: destination,
        multi: weightedDestinations,
        upstreamGroup: resourceRef,
      }),
      ...exactlyOne('single', 'multi', 'upstreamGroup'),
    },
    graphqlApiRef: resourceRef,
    // pathRedirect with prefixRewrite: resolve says which to keep.
    redirectAction: object({
      hostRedirect: singleLine,
      pathRedirect: pathPrefix,
      prefixRewrite: { type: 'string', format: 'single-line' },
      responseCode: { enum: REDIRECT_CODES },
      httpsRedirect: boolean,
      stripQuery: boolean,
    }),
    directResponseAction: object({ status: { type: 'integer', minimum: 200, maximum: 599 }, body: string }, ['status']),
    // The route options Sluice implements; gloo-fields.ts says why each other one is refused. Durations and regexes: resolve.
    options: object({
      prefixRewrite: { type: 'string', format: 'single-line' },
      regexRewrite: object({ pattern: object({ regex: singleLine }, ['regex']), substitution: { type: 'string', format: 'single-line' } }, ['pattern', 'substitution']),
      hostRewrite: singleLine,
      autoHostRewrite: boolean,
      timeout: string,
      retries,
      upgrades: {
        type: 'array',
        minItems: 1,
        items: { ...object({ websocket: object({ enabled: boolean }), connect: object({ enabled: boolean }) }), minProperties: 1, maxProperties: 1 },
      },
      headerManipulation,
      cors,
      // Per-route security (Gloo's RouteExtension, ExtensionSettings, ExtAuthExtension); resolve checks the combinations.
      jwt: object({ disable: boolean }, ['disable']),
      rbac: object({ disable: boolean }, ['disable']),
      extauth: { ...object({ disable: { const: true }, configRef: resourceRef }), ...exactlyOne('disable', 'configRef') },
      faults: object({
        abort: object({ percentage: { type: 'number', minimum: 0, maximum: 100 }, httpStatus: { type: 'integer', minimum: 200, maximum: 599 } }, ['httpStatus']),
        delay: object({ percentage: { type: 'number', minimum: 0, maximum: 100 }, fixedDelay: positiveDuration }, ['fixedDelay']),
      }),
      shadowing: object({ upstream: resourceRef, percentage: { type: 'number', minimum: 0, maximum: 100 }, disableShadowHostSuffixAppend: boolean, hostRewriteLiteral: singleLine }, ['upstream']),
      lbHash: object(
        {
          hashPolicies: {
            type: 'array',
            minItems: 1,
            items: { ...object({ header: singleLine, cookie: object({ name: singleLine, ttl: positiveDuration, path: singleLine }, ['name']), sourceIp: { const: true }, terminal: boolean }), ...exactlyOne('header', 'cookie', 'sourceIp') },
          },
        },
        ['hashPolicies'],
      ),
    }),
  }),
  ...exactlyOne('routeAction', 'graphqlApiRef', 'redirectAction', 'directResponseAction', 'delegateAction'),
};

// Gloo's RouteTable: routes a delegateAction inlines; weight orders the tables one selector matches.
export const routeTable = resource('gateway.gateway.example/v1', 'RouteTable', object({ routes: { type: 'array', items: route }, weight: { type: 'integer', minimum: -2147483648, maximum: 2147483647 } }));

const jwtProvider = object(
  {
    issuer: singleLine,
    jwks: {
      ...object({
        local: object({ key: nonEmptyString }, ['key']),
        remote: object({ url: { type: 'string', pattern: '^https?://[^\\s/]+', format: 'single-line' }, upstreamRef: resourceRef }, ['url', 'upstreamRef']),
      }),
      ...exactlyOne('local', 'remote'),
    },
    // Gloo's TokenSource; at least one place to look.
    tokenSource: {
      ...object({ headers: { type: 'array', items: object({ header: singleLine, prefix: { type: 'string', format: 'single-line' } }, ['header']) }, queryParams: { type: 'array', items: singleLine } }),
      anyOf: [{ required: ['headers'] }, { required: ['queryParams'] }],
    },
    keepToken: boolean,
    // Gloo's ClaimToHeader; header names, claim paths and append are checked by resolve.
    claimsToHeaders: { type: 'array', items: object({ claim: singleLine, header: singleLine, append: boolean }, ['claim', 'header']) },
  },
  ['issuer', 'jwks'],
);

const rbacPolicy = object(
  {
    permissions: object({
      methods: { type: 'array', items: { enum: HTTP_METHODS }, uniqueItems: true },
      pathPrefix,
    }),
    principals: {
      type: 'array',
      items: object({ jwtPrincipal: object({ claims: { ...singleLineMap, minProperties: 1 } }, ['claims']) }, ['jwtPrincipal']),
    },
    // Empty: claim names as written (Gloo's default).
    nestedClaimDelimiter: { type: 'string', format: 'single-line' },
  },
);

/** Gloo's SslParameters.ProtocolVersion. */
const tlsVersion: Schema = { enum: ['TLS_AUTO', 'TLSv1_0', 'TLSv1_1', 'TLSv1_2', 'TLSv1_3'] };
const sslParameters = object({ minimumProtocolVersion: tlsVersion, maximumProtocolVersion: tlsVersion });
const alpnProtocols: Schema = { type: 'array', items: singleLine, uniqueItems: true };
const verifySubjectAltName: Schema = { type: 'array', items: singleLine, uniqueItems: true };

// Gloo's SslConfig (a VirtualService's or a TCP host's); the Secret is read by resolve/tls.ts.
export const sslConfig = object(
  { secretRef: resourceRef, sniDomains: { type: 'array', items: domain, uniqueItems: true }, parameters: sslParameters, alpnProtocols, oneWayTls: boolean, verifySubjectAltName },
  ['secretRef'],
);

export const virtualService = resource(
  'gateway.gateway.example/v1',
  'VirtualService',
  object(
    {
      displayName: string,
      virtualHost: object(
        {
          domains: { type: 'array', minItems: 1, items: domain },
          routes: { type: 'array', items: route },
          options: object({
            jwt: object({ providers: { ...mapOf(jwtProvider, singleLine), minProperties: 1 } }, ['providers']),
            rbac: object({ policies: { ...mapOf(rbacPolicy, singleLine), minProperties: 1 } }, ['policies']),
            extauth: object({ configRef: resourceRef }, ['configRef']),
            retries,
            headerManipulation,
            cors: hostCors,
          }),
        },
        ['domains'],
      ),
      sslConfig,
    },
    ['virtualHost'],
  ),
);

// An sslConfig whose secretRef is optional (TCP hosts, matchers): without it, connections are matched by SNI only.
const sniSslConfig = object({ ...(sslConfig.properties as Record<string, Schema>) });

// Gloo's HttpGateway.
const httpGateway = object({
  virtualServices: { type: 'array', items: resourceRef },
  virtualServiceSelector: stringMap,
  virtualServiceNamespaces: { type: 'array', minItems: 1, items: { anyOf: [{ const: '*' }, namespaceName] }, uniqueItems: true },
  options: object({
    // Durations are checked by resolve, which says what to write.
    httpConnectionManagerSettings: object({
      useRemoteAddress: boolean,
      xffNumTrustedHops: { type: 'integer', minimum: 0, maximum: 4294967295 },
      skipXffAppend: boolean,
      serverName: singleLine,
      // Envoy's bounds (HttpConnectionManager.max_request_headers_kb).
      maxRequestHeadersKb: { type: 'integer', minimum: 1, maximum: 8192 },
      idleTimeout: string,
      streamIdleTimeout: string,
      requestTimeout: string,
      requestHeadersTimeout: string,
      drainTimeout: string,
      delayedCloseTimeout: string,
      maxConnectionDuration: string,
      maxStreamDuration: string,
    }),
  }),
});

// Gloo's TcpGateway: TCP hosts proxied to an Upstream; sslConfig without secretRef: matched by SNI, passed through.
const tcpGateway = object({
  tcpHosts: {
    type: 'array',
    minItems: 1,
    items: object({ name: singleLine, sslConfig: sniSslConfig, destination: object({ single: object({ upstream: resourceRef }, ['upstream']) }, ['single']) }, ['name', 'destination']),
  },
}, ['tcpHosts']);

// Gloo's HybridGateway: matched gateways on one listener, by SNI and client address (resolve checks the CIDRs).
const hybridGateway = object(
  {
    matchedGateways: {
      type: 'array',
      minItems: 1,
      items: {
        ...object({
          matcher: object({
            sslConfig: sniSslConfig,
            sourcePrefixRanges: { type: 'array', items: object({ addressPrefix: singleLine, prefixLen: { type: 'integer', minimum: 0, maximum: 128 } }, ['addressPrefix']) },
          }),
          httpGateway,
          tcpGateway,
        }),
        ...exactlyOne('httpGateway', 'tcpGateway'),
      },
    },
  },
  ['matchedGateways'],
);

// Gloo's Gateway: where VirtualServices are served (one listener each); its selection is resolved in resolve/gateways.ts.
export const gateway = resource(
  'gateway.gateway.example/v1',
  'Gateway',
  {
    ...object({
      // true: TLS only, to the VirtualServices with sslConfig.
      ssl: boolean,
      // An IP address (resolve checks it: Envoy binds to addresses, not names).
      bindAddress: singleLine,
      bindPort: port,
      proxyNames: { type: 'array', minItems: 1, items: resourceName, uniqueItems: true },
      useProxyProto: boolean,
      options: object({
        accessLoggingService: object(
          {
            accessLog: {
              type: 'array',
              minItems: 1,
              // Both formats at once (Gloo's oneof) is reported by resolve.
              items: object({ fileSink: object({ path: singleLine, stringFormat: string, jsonFormat: { type: 'object', minProperties: 1 } }, ['path']) }, ['fileSink']),
            },
          },
          ['accessLog'],
        ),
      }),
      httpGateway,
      tcpGateway,
      hybridGateway,
    }, ['bindPort']),
    ...exactlyOne('httpGateway', 'tcpGateway', 'hybridGateway'),
  },
);

const ldap = object(
  {
    address: singleLine,
    userDnTemplate: singleLine,
    allowedGroups: { type: 'array', items: singleLine },
    searchFilter: singleLine,
    membershipAttributeName: singleLine,
    groupLookupSettings: object({ checkGroupsWithServiceAccount: boolean, credentialsSecretRef: resourceRef }),
    pool: object({ initialSize: { type: 'integer', minimum: 0, maximum: 100 }, maxSize: { type: 'integer', minimum: 1, maximum: 100 } }),
  },
  ['address', 'userDnTemplate', 'allowedGroups'],
);

export const authConfig = resource(
  'enterprise.gateway.example/v1',
  'AuthConfig',
  object({ configs: { type: 'array', minItems: 1, items: object({ ldap }, ['ldap']) } }, ['configs']),
);

const uint32: Schema = { type: 'integer', minimum: 0, maximum: 4294967295 };

// Gloo's Upstream settings that become Envoy Cluster fields (load_balancer.proto, circuit_breaker.proto, connection.proto, health checks, outlier detection).
const upstreamPolicy: Record<string, Schema> = {
  loadBalancerConfig: {
    ...object({
      healthyPanicThreshold: { type: 'number', minimum: 0, maximum: 100 },
      updateMergeWindow: positiveDuration,
      roundRobin: object({}),
      leastRequest: object({ choiceCount: { type: 'integer', minimum: 2, maximum: 4294967295 } }),
      random: object({}),
      ringHash: object({ ringHashConfig: object({ minimumRingSize: { type: 'integer', minimum: 1, maximum: 8388608 }, maximumRingSize: { type: 'integer', minimum: 1, maximum: 8388608 } }) }),
      maglev: object({}),
      useHostnameForHashing: boolean,
      closeConnectionsOnHostSetChange: boolean,
    }),
    ...atMostOne('roundRobin', 'leastRequest', 'random', 'ringHash', 'maglev'),
  },
  circuitBreakers: object({ maxConnections: uint32, maxPendingRequests: uint32, maxRequests: uint32, maxRetries: uint32, trackRemaining: boolean }),
  connectionConfig: object({
    maxRequestsPerConnection: uint32,
    connectTimeout: positiveDuration,
    tcpKeepalive: object({ keepaliveProbes: uint32, keepaliveTime: positiveDuration, keepaliveInterval: positiveDuration }),
    perConnectionBufferLimitBytes: uint32,
  }),
  outlierDetection: object({
    consecutive5xx: uint32,
    interval: positiveDuration,
    baseEjectionTime: positiveDuration,
    maxEjectionPercent: { type: 'integer', minimum: 0, maximum: 100 },
    enforcingConsecutive5xx: { type: 'integer', minimum: 0, maximum: 100 },
    enforcingSuccessRate: { type: 'integer', minimum: 0, maximum: 100 },
    successRateMinimumHosts: uint32,
    successRateRequestVolume: uint32,
    successRateStdevFactor: uint32,
    consecutiveGatewayFailure: uint32,
    enforcingConsecutiveGatewayFailure: { type: 'integer', minimum: 0, maximum: 100 },
  }),
  healthChecks: {
    type: 'array',
    minItems: 1,
    items: {
      ...object(
        {
          timeout: positiveDuration,
          interval: positiveDuration,
          unhealthyThreshold: uint32,
          healthyThreshold: uint32,
          noTrafficInterval: positiveDuration,
          httpHealthCheck: object({ path: { type: 'string', pattern: '^/', format: 'single-line' }, host: singleLine }, ['path']),
          tcpHealthCheck: object({}),
          grpcHealthCheck: object({ serviceName: singleLine, authority: singleLine }),
        },
        ['timeout', 'interval', 'unhealthyThreshold', 'healthyThreshold'],
      ),
      ...exactlyOne('httpHealthCheck', 'tcpHealthCheck', 'grpcHealthCheck'),
    },
  },
};

export const upstream = resource(
  'gloo.gateway.example/v1',
  'Upstream',
  {
    ...object({
      kube: object({ selector: stringMap, serviceName: resourceName, serviceNamespace: resourceName, servicePort: port }, ['serviceName', 'servicePort']),
      static: object({ hosts: { type: 'array', minItems: 1, items: object({ addr: { type: 'string', minLength: 1, format: 'host' }, port }, ['addr', 'port']) } }, ['hosts']),
      useHttp2: boolean,
      // Gloo's UpstreamSslConfig; the Secret is read by resolve/tls.ts.
      sslConfig: object({ secretRef: resourceRef, sni: singleLine, parameters: sslParameters, alpnProtocols, oneWayTls: boolean, verifySubjectAltName }),
      // Labels Gloo's discovery adds; no routing meaning (see gloo-fields.ts).
      discoveryMetadata: object({ labels: stringMap }),
      ...upstreamPolicy,
    }),
    ...exactlyOne('kube', 'static'),
  },
);

const typeMerge = object({ selectionSet: nonEmptyString, queryName: nonEmptyString, args: stringMap }, ['selectionSet', 'queryName']);

/**
 * Gloo fields sluice-graphql does not implement are typed loosely here and
 * refused by resolve with the reason (never accepted and ignored).
 */
const refused: Schema = {};

/** A proto3 JSON duration such as "5s"; its form is checked by resolve, which says what to write. */
const duration: Schema = string;

const grpcResolver = object(
  {
    upstreamRef: resourceRef,
    requestTransform: object(
      {
        serviceName: nonEmptyString,
        methodName: nonEmptyString,
        // A map of template strings, or any JSON value (Gloo's google.protobuf.Value).
        outgoingMessageJson: {},
        requestMetadata: stringMap,
      },
      ['serviceName', 'methodName'],
    ),
    timeout: duration,
    spanName: refused,
  },
  ['upstreamRef', 'requestTransform'],
);

const restResolver = object(
  {
    upstreamRef: resourceRef,
    request: object({ headers: stringMap, queryParams: stringMap, body: {} }),
    response: object({ resultRoot: string, setters: stringMap }),
    timeout: duration,
    spanName: refused,
  },
  ['upstreamRef'],
);

// Exactly one resolver per resolution is checked by resolve, which also explains mockResolver.
const resolutions = mapOf(object({ grpcResolver, restResolver, mockResolver: refused, statPrefix: refused }));

export const graphqlApi = resource(
  'graphql.gateway.example/v1beta1',
  'GraphQLApi',
  {
    ...object({
      executableSchema: object(
        {
          schemaDefinition: nonEmptyString,
          // Both executors, or resolutions in both places, are reported by resolve with the reason.
          executor: object({
            local: object({
              resolutions,
              enableIntrospection: boolean,
              options: object({ maxDepth: { type: 'integer', minimum: 0, maximum: 4294967295 } }),
            }),
            remote: object({ upstreamRef: resourceRef, headers: stringMap, queryParams: stringMap, spanName: string }, ['upstreamRef']),
          }),
          resolutions,
          grpcDescriptorRegistry: object({ protoDescriptorBin: string, protoDescriptor: refused, protoRefsList: refused }),
        },
        ['schemaDefinition'],
      ),
      stitchedSchema: object(
        {
          subschemas: {
            type: 'array',
            minItems: 1,
            items: object({ name: resourceName, namespace: resourceName, typeMerge: mapOf(typeMerge) }, ['name']),
          },
        },
        ['subschemas'],
      ),
      options: object({ logSensitiveInfo: boolean }),
      statPrefix: refused,
      persistedQueryCacheConfig: refused,
      allowedQueryHashes: refused,
    }),
    ...exactlyOne('executableSchema', 'stitchedSchema'),
  },
);

const servicePort = object(
  {
    name: string,
    port,
    targetPort: { type: ['integer', 'string'] },
    protocol: { enum: ['TCP', 'UDP', 'SCTP'] },
    nodePort: port,
    appProtocol: string,
  },
  ['port'],
);

export const service = resource(
  'v1',
  'Service',
  object({
    type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] },
    selector: stringMap,
    ports: { type: 'array', items: servicePort },
    clusterIP: string,
    clusterIPs: { type: 'array', items: string },
    externalName: string,
    sessionAffinity: string,
    ipFamilies: { type: 'array', items: string },
    ipFamilyPolicy: string,
    internalTrafficPolicy: string,
    externalTrafficPolicy: string,
    publishNotReadyAddresses: boolean,
  }),
);

const secretBase = resource('v1', 'Secret', {}, false) as { properties: Record<string, Schema>; [k: string]: unknown };
export const secret: Schema = {
  ...secretBase,
  properties: {
    apiVersion: secretBase.properties.apiVersion,
    kind: secretBase.properties.kind,
    metadata: secretBase.properties.metadata,
    type: string,
    data: mapOf({ type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$' }),
    stringData: stringMap,
    immutable: boolean,
  },
};

/** apiVersion -> kind -> schema */
export const SCHEMAS: Record<string, Record<string, Schema>> = {
  'gateway.gateway.example/v1': { VirtualService: virtualService, RouteTable: routeTable, Gateway: gateway },
  'enterprise.gateway.example/v1': { AuthConfig: authConfig },
  'gloo.gateway.example/v1': { Upstream: upstream, UpstreamGroup: resource('gloo.gateway.example/v1', 'UpstreamGroup', weightedDestinations) },
  'graphql.gateway.example/v1beta1': { GraphQLApi: graphqlApi },
  v1: { Service: service, Secret: secret },
  // Request tables for `sluice test`: validated here, ignored by resolve.
  [REQUEST_TEST_API_VERSION]: { [REQUEST_TEST_KIND]: requestTest },
};

