/**
 * Gloo's `oauth2.accessTokenValidation` config (extauth.proto
 * `AccessTokenValidation`): the request's bearer token validated by an
 * RFC 7662 introspection endpoint or as a JWT against a JWKS.
 */
import { Type, type Static } from '@sinclair/typebox';
import { differs, note, refused } from '../gloo.js';
import { resourceRef } from '../resource.js';
import { boolean, duration, exactlyOne, object, singleLine } from '../schema.js';

const HEADER_NAME = Type.String({ minLength: 1, pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" });
const url = note(singleLine, 'http:// or https:// URL');

const introspection = object(
  {
    introspectionUrl: url,
    clientId: note(
      singleLine,
      'sent with the client secret as HTTP Basic credentials (RFC 7662 client authentication)',
    ),
    clientSecretRef: note(
      resourceRef,
      "a Secret (type extauth.solo.io/oauth) whose client-secret entry is the secret; the namespace defaults to the AuthConfig's",
    ),
    userIdAttributeName: note(
      singleLine,
      'the member of the introspection answer sent upstream as x-user-id; an answer without it is denied (403)',
    ),
    disableClientSecret: note(boolean, 'clientId without a secret: sent alone, as client_id in the form'),
  },
  ['introspectionUrl'],
);

const jwt = object(
  {
    remoteJwks: object(
      {
        url,
        refreshInterval: note(
          duration,
          'default 5m; a token signed by a key not yet seen fetches the keys again at once (at most every 30s)',
        ),
      },
      ['url'],
    ),
    localJwks: object({ inlineString: note(singleLine, 'a JWKS document (JSON)') }, ['inlineString']),
    issuer: note(singleLine, 'the iss a token must have; unset: not checked'),
    audiences: note(Type.Array(singleLine), "the token's aud must hold one of these; unset or empty: not checked"),
  },
  [],
  exactlyOne('remoteJwks', 'localJwks'),
);

const claimToHeader = object({ claim: singleLine, header: HEADER_NAME, append: boolean }, ['claim', 'header']);

export const accessTokenValidation = object(
  {
    introspectionUrl: note(url, "Gloo's deprecated form of introspection.introspectionUrl (no client credentials)"),
    jwt,
    introspection,
    userinfoUrl: note(
      url,
      'asked with the token once it is valid (a refusal: 403); its answer is the state entry `introspection` for the configs after this one',
    ),
    cacheTimeout: note(
      duration,
      "default 10m; 0s: not kept; a result is never kept beyond the token's exp. Valid tokens only, at most 10000 per config",
    ),
    requiredScopes: note(
      object({ scope: Type.Array(singleLine) }),
      "every one must be in the token's space-separated scope (the scope member of the introspection answer, or the JWT's scope claim)",
    ),
    dynamicMetadataFromClaims: refused(
      "sluice-extauth sends no dynamic metadata with an allowed check's answer",
      'send the claims upstream as headers with claimsToHeaders',
    ),
    claimsToHeaders: differs(
      Type.Array(claimToHeader),
      'also for introspected (opaque) tokens, from the members of the introspection answer; a claim that is not a string is sent as JSON; an absent claim sets no header',
    ),
    default: note(object({}), "Gloo's explicit default claims behaviour: nothing to configure"),
    azure: refused("Microsoft Entra ID's distributed claims are not implemented"),
  },
  [],
  exactlyOne('introspectionUrl', 'jwt', 'introspection'),
);

export type AccessTokenValidationSpec = Static<typeof accessTokenValidation>;
