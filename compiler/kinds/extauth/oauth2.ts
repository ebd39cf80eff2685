/** Gloo's `oauth2` config: OpenID Connect login, or access-token validation (one of them). */
import { exactlyOne, object } from '../schema.js';
import { refused } from '../gloo.js';
import { oidcAuthorizationCode } from './oidc.js';
import { accessTokenValidation } from './access-token.js';

export const oauth2 = object(
  { oidcAuthorizationCode, accessTokenValidation },
  [],
  exactlyOne('oidcAuthorizationCode', 'accessTokenValidation'),
);
