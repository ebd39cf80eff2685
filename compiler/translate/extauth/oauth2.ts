/** `sluice.extauth.v1.OAuth2Config` (contract/proto/sluice/extauth/v1/oauth2.proto): each half by its own translator. */
import type { OAuth2IR } from '../../ir/oauth2.js';
import type { Json } from '../output.js';
import { compileOidc } from './oidc.js';

export function compileOAuth2(o: OAuth2IR): Json {
  if ('oidc' in o) return { oidc_authorization_code: compileOidc(o.oidc) };
  return {};
}
