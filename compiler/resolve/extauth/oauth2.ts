/** Gloo's `oauth2` config: OpenID Connect login or access-token validation, each resolved by its own file. */
import type { Diagnostic, FieldPath } from '../../diagnostics.js';
import type { OAuth2IR } from '../../ir/oauth2.js';
import type { Static } from '@sinclair/typebox';
import type { oauth2 } from '../../kinds/extauth/oauth2.js';
import type { Resource } from '../../validate/validate.js';
import type { Lookups } from '../lookups.js';
import { resolveAccessToken } from './access-token.js';
import { resolveOidc } from './oidc.js';

export function resolveOAuth2(
  ac: Resource,
  path: FieldPath,
  spec: Static<typeof oauth2>,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): OAuth2IR | undefined {
  if (spec.oidcAuthorizationCode) {
    const oidc = resolveOidc(ac, [...path, 'oidcAuthorizationCode'], spec.oidcAuthorizationCode, lookups, diagnostics);
    return oidc && { oidc };
  }
  const accessToken = resolveAccessToken(
    ac,
    [...path, 'accessTokenValidation'],
    spec.accessTokenValidation!,
    lookups,
    diagnostics,
  );
  return accessToken && { accessToken };
}
