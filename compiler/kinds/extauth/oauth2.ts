/** Gloo's `oauth2` config: OpenID Connect login, or access-token validation (one of them). */
import { exactlyOne, object } from '../schema.js';
import { refused } from '../gloo.js';
import { oidcAuthorizationCode } from './oidc.js';
import { accessTokenValidation } from './access-token.js';

export const oauth2 = object(
  {
    oidcAuthorizationCode,
    accessTokenValidation,
    // Gloo's PlainOAuth2 (tech preview): a login whose access token, not an ID token, makes the session.
    oauth2: refused(
      'plain OAuth2 login (tech preview in Gloo) is not implemented',
      'use oidcAuthorizationCode with a provider that speaks OpenID Connect',
    ),
  },
  [],
  exactlyOne('oidcAuthorizationCode', 'accessTokenValidation'),
);
