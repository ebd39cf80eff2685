/**
 * Gloo's `oauth2.oidcAuthorizationCode` (extauth.proto `OidcAuthorizationCode`):
 * a browser logs in at an OpenID provider and keeps a session, in an
 * encrypted cookie or in Redis. The fields sluice-extauth does not implement
 * are refused with the reason.
 */
import { Type, type Static } from '@sinclair/typebox';
import { differs, note, refused } from '../gloo.js';
import { resourceRef } from '../resource.js';
import {
  atMostOne,
  boolean,
  duration,
  mapOf,
  object,
  protoEnum,
  positiveDuration,
  singleLine,
  string,
  uint32,
} from '../schema.js';

const HEADER_NAME = Type.String({ minLength: 1, pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" });
const url = Type.String({ minLength: 1, pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' });
const path = Type.String({ minLength: 1, pattern: '^/[^\\s?#]*$' });

const redisOptions = object({
  host: note(singleLine, 'host:port (a unix socket is not supported)'),
  db: Type.Integer({ minimum: 0, maximum: 15 }),
  poolSize: refused('one connection per Redis per sidecar carries every session (Redis pipelines the commands)'),
  tlsCertMountPath: refused('TLS to Redis is not implemented', 'reach Redis over plain TCP inside the cluster'),
  socketType: refused('TLS to Redis is not implemented', 'leave it unset (TCP)'),
});

const targetDomain = note(singleLine, 'a request whose host does not domain-match it (RFC 6265 5.1.3) is answered 403');

const cookieSession = differs(
  object({
    allowRefreshing: note(boolean, 'default false'),
    keyPrefix: note(singleLine, 'the cookie is <keyPrefix>___session'),
    targetDomain,
  }),
  'the tokens are kept in one cookie, __session, always encrypted (AES-256-GCM) — with cipherConfig.keyRef when set, else with a key the sidecar makes at start (one replica only; sessions end when it restarts)',
);

const redisSession = object({
  options: redisOptions,
  keyPrefix: string,
  cookieName: note(singleLine, 'default __session; it holds a random session id'),
  allowRefreshing: note(boolean, 'default true'),
  preExpiryBuffer: note(duration, 'default 2s'),
  targetDomain,
  headerName: refused('the session id is not sent to the token endpoint'),
});

const cookieOptions = object({
  maxAge: note(uint32, 'seconds; default 30 days; 0: no Max-Age'),
  notSecure: boolean,
  httpOnly: note(boolean, 'default true'),
  path: note(string, 'default /; "" sets no Path'),
  sameSite: protoEnum(['DefaultMode', 'LaxMode', 'StrictMode', 'NoneMode'] as const),
  domain: singleLine,
});

const session = object(
  {
    failOnFetchFailure: note(
      boolean,
      'a session Redis cannot give (down, timed out) is answered 503 instead of a new login',
    ),
    cookieOptions,
    cookie: cookieSession,
    redis: redisSession,
    cipherConfig: object({
      keyRef: note(
        resourceRef,
        'a Secret whose `key` entry (32 bytes) seals session cookies; its entries named previous-key* still open cookies sealed before a rotation',
      ),
    }),
  },
  [],
  atMostOne('cookie', 'redis'),
);

const claimToHeader = object({ claim: singleLine, header: HEADER_NAME, append: boolean }, ['claim', 'header']);

const endpointOverride = note(url, 'replaces what discovery found');
const unusedMetadata = () => refused('provider metadata Sluice does not read; it would change nothing');

const discoveryOverride = object({
  authEndpoint: endpointOverride,
  tokenEndpoint: endpointOverride,
  jwksUri: endpointOverride,
  idTokenAlgs: note(Type.Array(singleLine), 'the only algorithms an ID token may be signed with'),
  authMethods: note(
    Type.Array(singleLine),
    'client_secret_basic (preferred) or client_secret_post: how the client authenticates at the token endpoint',
  ),
  scopes: unusedMetadata(),
  responseTypes: unusedMetadata(),
  subjects: unusedMetadata(),
  claims: unusedMetadata(),
  revocationEndpoint: refused('tokens are not revoked at logout; the gateway session ends'),
  endSessionEndpoint: refused("the provider's end-session endpoint is not called at logout; the gateway session ends"),
});

const clientSecretFields = {
  clientSecretRef: note(
    resourceRef,
    "a Secret whose client-secret entry is the client secret; the namespace defaults to the AuthConfig's",
  ),
  disableClientSecret: note(boolean, 'a public client: no secret at the token endpoint (PKCE is always used)'),
};

export const oidcAuthorizationCode = object(
  {
    clientId: singleLine,
    ...clientSecretFields,
    issuerUrl: note(url, 'discovered at <issuerUrl>/.well-known/openid-configuration'),
    authEndpointQueryParams: mapOf(string),
    tokenEndpointQueryParams: differs(mapOf(string), 'sent as form parameters of the token request (its body)'),
    appUrl: note(url, 'every redirect back to the application goes to this origin (no open redirect)'),
    callbackPath: path,
    logoutPath: note(path, 'ends the session (cookie cleared, Redis entry deleted) and redirects to afterLogoutUrl'),
    afterLogoutUrl: note(url, 'default appUrl'),
    scopes: note(Type.Array(singleLine), 'openid is always requested'),
    session,
    headers: object({
      idTokenHeader: HEADER_NAME,
      accessTokenHeader: HEADER_NAME,
      useBearerSchemaForAuthorization: note(boolean, 'default false'),
    }),
    discoveryOverride,
    discoveryPollInterval: note(
      positiveDuration,
      'default 30m; a provider not reached yet is asked again every second',
    ),
    jwksCacheRefreshPolicy: refused(
      'the JWKS is read again when an ID token names a key not in the cache, at most once every 30 s',
    ),
    sessionIdHeaderName: refused('the session id is not sent to the token endpoint'),
    parseCallbackPathAsRegex: refused('callbackPath is an exact path', 'write the one path the provider redirects to'),
    autoMapFromMetadata: refused('the query parameters are not taken from dynamic metadata'),
    endSessionProperties: refused("the provider's end-session endpoint is not called at logout"),
    dynamicMetadataFromClaims: refused(
      'sluice-extauth sets no dynamic metadata',
      'send the claims upstream as headers (identityToken.claimsToHeaders)',
    ),
    accessToken: object({
      claimsToHeaders: note(Type.Array(claimToHeader), 'read only when the access token is a JWT'),
    }),
    identityToken: object({ claimsToHeaders: Type.Array(claimToHeader) }),
    clientAuthentication: object(
      {
        clientSecret: object(clientSecretFields),
        privateKeyJwt: refused('private_key_jwt client authentication is not implemented', 'use a client secret'),
      },
      [],
      atMostOne('clientSecret', 'privateKeyJwt'),
    ),
    default: object({}),
    azure: refused('Microsoft Entra distributed claims are not implemented', 'use Entra ID as a plain OpenID provider'),
    frontChannelLogout: refused('front-channel logout is not implemented', 'end sessions with logoutPath'),
  },
  ['clientId', 'issuerUrl', 'appUrl', 'callbackPath'],
  atMostOne('default', 'azure'),
);

export type OidcSpec = Static<typeof oidcAuthorizationCode>;
