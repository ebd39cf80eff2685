/**
 * Gloo's VirtualHostOptions: JWT providers, RBAC policies and ext auth (the
 * security a virtual host asks for), with the options it shares with routes.
 * Header names, claim paths and append are checked by resolve.
 */
import { Type, type Static } from '@sinclair/typebox';
import { hostCsrf } from './csrf.js';
import { routeExtProc } from './ext-proc.js';
import { rbacPolicies } from './rbac.js';
import { bufferPerRoute } from './gateway-http-options.js';
import { globalRateLimitOptions, hostRateLimit, hostStagedRateLimit } from './rate-limit.js';
import { differs, glooEnvoy, note, REASONS, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import { customAuth, headerManipulation, hostCors, jwtStaged, retries } from './route-options.js';
import {
  boolean,
  exactlyOne,
  httpMethod,
  lineOrEmpty,
  mapOf,
  nonEmptyString,
  object,
  pathPrefix,
  positiveDuration,
  protoEnum,
  singleLine,
  uint32,
} from './schema.js';

const jwks = object(
  {
    local: object(
      {
        key: note(nonEmptyString, 'a PEM public key or a JWK Set; checked and converted to a JWK Set at compile time'),
      },
      ['key'],
    ),
    remote: object(
      {
        url: Type.String({ pattern: '^https?://[^\\s/]+', format: 'single-line' }),
        upstreamRef: resourceRef,
        cacheDuration: note(positiveDuration, 'unset: 300s'),
        asyncFetch: differs(
          object({ fastListener: note(boolean, 'the listener starts before the first fetch ends') }),
          'Sluice always fetches the key set in the background (unset too: Gloo fetches on the first request then)',
        ),
      },
      ['url', 'upstreamRef'],
    ),
  },
  [],
  exactlyOne('local', 'remote'),
);

// Gloo's TokenSource; at least one place to look.
const tokenSource = note(
  object(
    {
      headers: Type.Array(object({ header: singleLine, prefix: note(lineOrEmpty, 'e.g. "Bearer "') }, ['header'])),
      queryParams: Type.Array(singleLine),
    },
    [],
    {
      anyOf: [{ required: ['headers'] }, { required: ['queryParams'] }],
    },
  ),
  'unset: Authorization: Bearer and ?access_token=',
);

// Gloo's ClaimToHeader.
const claimToHeader = object(
  {
    claim: note(
      singleLine,
      'a path a.b.c reads a nested claim (Envoy splits the name at dots); strings, numbers and booleans are copied, lists and objects are not',
    ),
    header: note(
      singleLine,
      ":-prefixed names, host, x-user-id, x-sluice-graphql-api and the provider's own token headers are refused",
    ),
    append: differs(
      boolean,
      "false only: Envoy removes a client-sent copy of the header before it adds the claim, so true (trusting the client's value) is an error",
    ),
  },
  ['claim', 'header'],
);

export const jwtProvider = object(
  {
    issuer: differs(singleLine, 'required: every provider names the issuer it accepts tokens from'),
    jwks,
    audiences: note(
      Type.Array(singleLine, { minItems: 1 }),
      "a token's aud must name one of them (403 Audiences in Jwt are not allowed)",
    ),
    tokenSource,
    keepToken: note(boolean, 'the verified token is forwarded upstream (by default it is removed)'),
    claimsToHeaders: note(
      Type.Array(claimToHeader),
      'a client-sent copy of the header is removed on every route of the virtual host, whether or not the token carries the claim; a route is chosen again once the claims are in, so routing on a claim header follows the token',
    ),
    clockSkewSeconds: note(uint32, 'leeway on exp and nbf; unset or 0: 60 seconds, as Envoy'),
    attachFailedStatusToMetadata: note(
      lineOrEmpty,
      "key under the jwt_authn metadata namespace where Envoy writes a failed check's code and message (read by access logs, e.g. %DYNAMIC_METADATA(envoy.filters.http.jwt_authn:KEY)%); a provider's name on the virtual host is refused (the key of that provider's verified payload, which RBAC reads); empty: unset, as Gloo",
    ),
  },
  ['issuer', 'jwks'],
);

/** A virtual host without a security option has none: disable has something to turn off only on a route. */
const HOST_DISABLE = (what: string) =>
  `a virtual host without ${what} checks none, so there is nothing to disable (disable acts on routes)`;

export const virtualHostOptions = object({
  extensions: refused(REASONS.extensions),
  jwt: object(
    {
      providers: note(mapOf(jwtProvider, singleLine, { minProperties: 1 }), 'at least one'),
      allowMissingOrFailedJwt: note(
        boolean,
        'deprecated form of validationPolicy ALLOW_MISSING_OR_FAILED, and it wins over validationPolicy when true, as in Gloo',
      ),
      validationPolicy: note(
        protoEnum(['REQUIRE_VALID', 'ALLOW_MISSING', 'ALLOW_MISSING_OR_FAILED']),
        "REQUIRE_VALID (unset): only a valid token passes; ALLOW_MISSING: a request without a token passes too, an invalid token gets 401; ALLOW_MISSING_OR_FAILED: every request passes, and a valid token's claims still reach RBAC and claimsToHeaders",
      ),
    },
    ['providers'],
  ),
  rbac: object(
    {
      disable: refused(HOST_DISABLE('RBAC policies'), 'leave rbac unset on the virtual host'),
      policies: rbacPolicies,
    },
    ['policies'],
  ),
  extauth: object(
    {
      configRef: resourceRef,
      disable: refused(HOST_DISABLE('ext auth'), 'leave extauth unset on the virtual host'),
      customAuth: customAuth(),
    },
    [],
    exactlyOne('configRef', 'customAuth'),
  ),
  retries: note(retries, 'every route without retries of its own'),
  stats: object({
    virtualClusters: note(
      Type.Array(
        object(
          {
            name: note(singleLine, 'dots become underscores, as Gloo writes it (vhost.<host>.vcluster.<name>.*)'),
            pattern: note(singleLine, 'the whole path must match; RE2, checked at compile time'),
            method: note(singleLine, 'any case; unset: every method'),
          },
          ['name', 'pattern'],
        ),
      ),
      "Envoy's virtual clusters: statistics for the requests each matches",
    ),
  }),
  headerManipulation: note(headerManipulation, "every route, after the route's own"),
  cors: hostCors,
  transformations: glooEnvoy(),
  stagedTransformations: glooEnvoy(),
  ratelimit: hostRateLimit,
  ...globalRateLimitOptions,
  ratelimitEarly: hostStagedRateLimit('before authentication'),
  ratelimitRegular: hostStagedRateLimit('after authentication'),
  waf: glooEnvoy(),
  jwtStaged: jwtStaged('use options.jwt'),
  dlp: glooEnvoy(),
  bufferPerRoute,
  csrf: hostCsrf,
  includeRequestAttemptCount: note(boolean, 'x-envoy-attempt-count on every request sent upstream'),
  includeAttemptCountInResponse: note(boolean, 'x-envoy-attempt-count on every response'),
  ...routeExtProc,
  corsPolicyMergeSettings: note(
    object({
      exposeHeaders: note(protoEnum(['DEFAULT', 'UNION']), "unset or DEFAULT: the route's list replaces the host's"),
    }),
    "UNION: a route with cors exposes the virtual host's exposeHeaders too (when both list some), as Gloo merges them",
  ),
});

export type JwtProviderSpec = Static<typeof jwtProvider>;
export type VirtualHostOptionsSpec = Static<typeof virtualHostOptions>;
