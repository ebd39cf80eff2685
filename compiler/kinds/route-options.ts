/**
 * Gloo's options on a route (RouteOptions) and the pieces virtual host
 * options share with it (retries, headerManipulation, cors). Durations,
 * regexes, reserved header names and combinations are checked by resolve.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { routeCsrf } from './csrf.js';
import { globalRateLimitOptions, routeRateLimit, routeStagedRateLimit } from './rate-limit.js';
import { routeExtProc } from './ext-proc.js';
import { rbacPolicies } from './rbac.js';
import { bufferPerRoute } from './gateway-http-options.js';
import { glooEnvoy, note, REASONS, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import {
  boolean,
  constant,
  duration,
  exactlyOne,
  lineOrEmpty,
  object,
  percentage,
  positiveDuration,
  protoEnum,
  singleLine,
  string,
  stringMap,
  uint32,
} from './schema.js';

/** Gloo's RetryPolicy (retries.proto). */
export const retries = object({
  retryOn: note(
    lineOrEmpty,
    "Envoy's x-envoy-retry-on conditions; with retriableStatusCodes, retriable-status-codes is added",
  ),
  numRetries: note(uint32, '0 or unset: 1, as Gloo'),
  perTryTimeout: duration,
  retriableStatusCodes: Type.Array(Type.Integer({ minimum: 100, maximum: 599 })),
  retryBackOff: object(
    { baseInterval: note(duration, 'at least 1ms'), maxInterval: note(duration, 'not below baseInterval') },
    ['baseInterval'],
  ),
  previousPriorities: note(
    object({ updateFrequency: note(Type.Integer({ minimum: 1, maximum: 2147483647 }), 'unset: 1') }),
    "Envoy's previous_priorities retry priority: a retry avoids the priorities tried before (Upstream failover)",
  ),
  rateLimitedRetryBackOff: note(
    object(
      {
        resetHeaders: Type.Array(
          object({ name: singleLine, format: note(protoEnum(['SECONDS', 'UNIX_TIMESTAMP']), 'unset: SECONDS') }, [
            'name',
          ]),
          { minItems: 1 },
        ),
        maxInterval: note(duration, 'more than 0s; unset: 300s, as Envoy'),
      },
      ['resetHeaders'],
    ),
    "retries wait as long as the upstream's 429/503 reset headers say (retryOn must name retriable-headers or status codes Envoy retries)",
  ),
});

/**
 * Gloo's HeaderManipulation (headers.proto). Request headers are Gloo's
 * core HeaderValueOption, a header or a Secret's entries (headerSecretRef,
 * resolve/header-secrets.ts); response headers are its own HeaderValueOption,
 * which has no headerSecretRef.
 */
const headerValues = <S extends TSchema>(headerSecretRef: S) =>
  Type.Array(
    object(
      {
        header: object(
          {
            key: note(
              singleLine,
              ':-prefixed names, host, x-user-id and x-sluice-graphql-api are refused (Envoy or Sluice owns them)',
            ),
            value: lineOrEmpty,
          },
          ['key'],
        ),
        append: note(boolean, 'unset or true: appended to a header already there; false: overwrites it'),
        headerSecretRef,
      },
      [],
      exactlyOne('header', 'headerSecretRef'),
    ),
  );
export const headerNames = Type.Array(singleLine);
/** Gloo's core HeaderValueOption list (request headers). */
export const requestHeaderValues = headerValues(
  note(
    resourceRef,
    'instead of header: each entry of the Secret (type gloo.solo.io/header or Opaque) is a header of that name and value, in the order of the names; append applies to each. explain and --dump-ir show <from Secret namespace/name>, never the value',
  ),
);
export const headerManipulation = object({
  requestHeadersToAdd: requestHeaderValues,
  requestHeadersToRemove: headerNames,
  responseHeadersToAdd: headerValues(
    refused(
      "Gloo's response header options have no headerSecretRef: a Secret's value would be sent to every client",
      'write the value inline',
    ),
  ),
  responseHeadersToRemove: headerNames,
});

const corsFields = {
  allowOrigin: note(Type.Array(singleLine), 'exact origins'),
  allowOriginRegex: note(Type.Array(singleLine), 'checked with RE2 at compile time'),
  allowMethods: Type.Array(singleLine),
  allowHeaders: Type.Array(singleLine),
  exposeHeaders: Type.Array(singleLine),
  maxAge: note(Type.String({ pattern: '^[0-9]+$' }), 'seconds'),
  allowCredentials: boolean,
};

/** Gloo's CorsPolicy (cors.proto) on a virtual host. */
export const hostCors = note(
  object({
    ...corsFields,
    disableForRoute: refused("applies to a route's cors only", 'set cors with disableForRoute on the route'),
  }),
  "every route without its own; Envoy's cors filter runs before the authentication filters, so preflights are answered without credentials",
);

/** Gloo's CorsPolicy on a route. */
const routeCors = note(
  object({ ...corsFields, disableForRoute: boolean }),
  "replaces the virtual host's whole; routes with routeAction or graphqlApiRef",
);

const forwarding = 'routes with routeAction only';

const upgrades = note(
  Type.Array(
    object(
      {
        websocket: object({ enabled: note(boolean, 'unset: enabled') }),
        connect: object({ enabled: note(boolean, 'unset: enabled') }),
        connectTerminate: refused('terminating CONNECT is not implemented'),
      },
      [],
      { minProperties: 1, maxProperties: 1 },
    ),
    { minItems: 1 },
  ),
  forwarding,
);

const hashPolicy = object(
  {
    header: singleLine,
    cookie: object({ name: singleLine, ttl: positiveDuration, path: singleLine }, ['name']),
    sourceIp: constant(true),
    terminal: boolean,
  },
  [],
  exactlyOne('header', 'cookie', 'sourceIp'),
);

const faults = note(
  object({
    abort: object(
      {
        percentage: note(percentage, '0 to 100 (unset: 0)'),
        httpStatus: note(Type.Integer({ minimum: 200, maximum: 599 }), '200 to 599'),
      },
      ['httpStatus'],
    ),
    delay: object({ percentage: note(percentage, '0 to 100 (unset: 0)'), fixedDelay: positiveDuration }, [
      'fixedDelay',
    ]),
  }),
  `${forwarding}; requests cannot ask for faults with x-envoy-fault-* headers`,
);

export const customAuth = () =>
  note(
    object({
      contextExtensions: note(stringMap, "sent to the server as the check's context_extensions"),
      name: note(singleLine, "the server of Settings' namedExtauth with this name; unset: Settings' extauth"),
    }),
    "a team's own ext_authz server (gRPC), as the Settings resource names it",
  );
export const jwtStaged = (instead: string) => refused('JWT is always checked before ext auth', instead);

/** Gloo's RegexMatchAndSubstitute. */
const regexMatchAndSubstitute = object(
  {
    pattern: object(
      {
        regex: note(singleLine, 'checked with RE2 at compile time'),
        googleRe2: refused('RE2 program size limits are not implemented'),
      },
      ['regex'],
    ),
    substitution: lineOrEmpty,
  },
  ['pattern', 'substitution'],
);

const noLimit = '"0s": none';

/** Gloo's RouteOptions: those Sluice implements, and why each other one is refused. */
export const routeOptions = object({
  transformations: glooEnvoy(),
  stagedTransformations: glooEnvoy(),
  prefixRewrite: note(lineOrEmpty, `${forwarding}; replaces the matched prefix`),
  regexRewrite: note(regexMatchAndSubstitute, `${forwarding}; not with prefixRewrite`),
  hostRewrite: note(singleLine, `${forwarding}: the Host header sent upstream`),
  autoHostRewrite: note(boolean, `${forwarding}; not with hostRewrite`),
  hostRewritePathRegex: note(
    regexMatchAndSubstitute,
    `${forwarding}: the Host header sent upstream is the request's path rewritten by the pattern`,
  ),
  hostRewriteHeader: note(
    singleLine,
    `${forwarding}: the Host header sent upstream is this request header's value (unchanged when the request lacks it)`,
  ),
  appendXForwardedHost: note(
    boolean,
    `${forwarding}, with one of the host rewrites: the original Host is appended to x-forwarded-host`,
  ),
  timeout: note(duration, `${forwarding}; "0s": none (Envoy's default is 15s)`),
  retries: note(retries, `${forwarding}; replaces the virtual host's`),
  extensions: refused(REASONS.extensions),
  tracing: note(
    object({
      routeDescriptor: note(singleLine, "the span's operation name (Envoy's route decorator)"),
      tracePercentages: note(
        object({
          clientSamplePercentage: percentage,
          randomSamplePercentage: percentage,
          overallSamplePercentage: percentage,
        }),
        'each 0 to 100; unset: 100, as Gloo',
      ),
      propagate: note(
        boolean,
        'with routeDescriptor: the operation name is sent upstream (x-envoy-decorator-operation)',
      ),
    }),
    "Envoy's route tracing settings; spans are sent where the Gateway's tracing provider says",
  ),
  upgrades,
  headerManipulation: note(headerManipulation, "applied before the virtual host's"),
  cors: routeCors,
  ratelimit: routeRateLimit,
  ...globalRateLimitOptions,
  ratelimitEarly: routeStagedRateLimit('before authentication'),
  ratelimitRegular: routeStagedRateLimit('after authentication'),
  waf: glooEnvoy(),
  // Per-route security (Gloo's RouteExtension, ExtensionSettings, ExtAuthExtension); resolve checks the combinations.
  jwt: object({ disable: note(boolean, 'the route asks for no token (jwt_authn PerRouteConfig disabled)') }, [
    'disable',
  ]),
  jwtStaged: jwtStaged('use options.jwt on the virtual host'),
  jwtProvidersStaged: jwtStaged('use options.jwt on the virtual host'),
  rbac: object(
    {
      disable: note(boolean, 'no policy is checked on the route'),
      policies: note(
        rbacPolicies,
        "the route's own policies, replacing the virtual host's (they match the virtual host's JWT providers' claims)",
      ),
    },
    [],
    { minProperties: 1 },
  ),
  extauth: object(
    {
      disable: note(constant(true), 'no ext auth on the route'),
      configRef: note(
        resourceRef,
        "another AuthConfig than the virtual host's; only where the virtual host has extauth",
      ),
      customAuth: customAuth(),
    },
    [],
    exactlyOne('disable', 'configRef', 'customAuth'),
  ),
  faults,
  shadowing: note(
    object(
      {
        upstream: resourceRef,
        percentage: note(percentage, '0 to 100 (unset: 0, nothing mirrored, as Gloo)'),
        disableShadowHostSuffixAppend: boolean,
        hostRewriteLiteral: singleLine,
      },
      ['upstream'],
    ),
    `${forwarding}; the shadow's answers are ignored`,
  ),
  lbHash: note(
    object({ hashPolicies: Type.Array(hashPolicy, { minItems: 1 }) }, ['hashPolicies']),
    `${forwarding}; used by ringHash and maglev upstreams`,
  ),
  dlp: glooEnvoy(),
  bufferPerRoute,
  csrf: routeCsrf,
  envoyMetadata: refused('nothing in Sluice reads route metadata'),
  maxStreamDuration: note(
    object({ maxStreamDuration: duration, grpcTimeoutHeaderMax: duration, grpcTimeoutHeaderOffset: duration }),
    `${forwarding}; each ${noLimit}; grpcTimeoutHeaderOffset only with grpcTimeoutHeaderMax`,
  ),
  idleTimeout: note(
    duration,
    `${forwarding}; ${noLimit} (Envoy's default is the connection manager's stream idle timeout)`,
  ),
  ...routeExtProc,
  ai: glooEnvoy(),
});

export type RetriesSpec = Static<typeof retries>;
export type HeaderManipulationSpec = Static<typeof headerManipulation>;
export type CorsSpec = Static<typeof routeCors>;
export type RouteOptionsSpec = Static<typeof routeOptions>;
