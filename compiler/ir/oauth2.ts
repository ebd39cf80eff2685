import type { OidcIR } from './oidc.js';
import type { AccessTokenIR } from './access-token.js';
export type OAuth2IR = { oidc: OidcIR } | { accessToken: AccessTokenIR };
