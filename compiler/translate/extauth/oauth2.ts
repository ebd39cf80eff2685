/** `sluice.extauth.v1.OAuth2Config`: OpenID Connect login or access-token validation, each compiled by its own file. */
import type { OAuth2IR } from '../../ir/oauth2.js';
import type { Json } from '../output.js';
import { compileAccessToken } from './access-token.js';
import { compileOidc } from './oidc.js';

export function compileOAuth2(o: OAuth2IR): Json {
  if ('oidc' in o) return { oidc_authorization_code: compileOidc(o.oidc) };
  return { access_token_validation: compileAccessToken(o.accessToken) };
}
