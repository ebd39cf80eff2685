/**
 * The `oauth2` config: OpenID Connect login (./oidc/) or access-token
 * validation, one module for the field, each half by its own code.
 */
import { ConfigError, message, type Obj } from '../config-fields.js';
import type { AuthModule } from '../module.js';
import { oidcInstance } from './oidc/instance.js';
import { parseOidc, type OidcSettings } from './oidc/settings.js';

export interface OAuth2Settings {
  oidc?: OidcSettings;
}

function parseOAuth2(raw: Obj, where: string): OAuth2Settings {
  const oidc = message(raw, 'oidc_authorization_code', where);
  if (oidc) return { oidc: parseOidc(oidc, `${where}.oidc_authorization_code`) };
  throw new ConfigError(`${where}: sets no kind sluice-extauth implements (it implements oidc_authorization_code)`);
}

export const oauth2Module: AuthModule<OAuth2Settings> = {
  field: 'oauth2',
  parse: parseOAuth2,
  create(context) {
    const oidc = oidcInstance(context);
    return {
      prepare(all) {
        const prepared = oidc.prepare(all.flatMap((s) => (s.oidc ? [s.oidc] : [])));
        return {
          check: (s) => prepared.check(s.oidc!),
          commit: () => prepared.commit(),
          abort: () => prepared.abort(),
        };
      },
      close: () => oidc.close(),
    };
  },
};
