/**
 * The `oauth2` config: OpenID Connect login (./oidc/) or access-token
 * validation (./access-token.ts), one module of the sidecar that hands
 * each config to the half it names.
 */
import { ConfigError, message, type Obj } from '../config-fields.js';
import type { AuthModule, Prepared } from '../module.js';
import { accessTokenModule, type AccessTokenSettings } from './access-token.js';
import { oidcInstance } from './oidc/instance.js';
import { parseOidc, type OidcSettings } from './oidc/settings.js';

export type OAuth2Settings = { oidc: OidcSettings } | { accessToken: AccessTokenSettings };

export const oauth2Module: AuthModule<OAuth2Settings> = {
  field: 'oauth2',
  parse(raw: Obj, where, defaults) {
    const oidc = message(raw, 'oidc_authorization_code', where);
    const token = message(raw, 'access_token_validation', where);
    if (!oidc === !token)
      throw new ConfigError(`${where}: exactly one of oidc_authorization_code and access_token_validation`);
    if (oidc) return { oidc: parseOidc(oidc, `${where}.oidc_authorization_code`) };
    return { accessToken: accessTokenModule.parse(token!, `${where}.access_token_validation`, defaults) };
  },
  create(context) {
    const oidc = oidcInstance(context);
    const accessToken = accessTokenModule.create(context);
    return {
      prepare(all): Prepared<OAuth2Settings> {
        const o = oidc.prepare(all.flatMap((s) => ('oidc' in s ? [s.oidc] : [])));
        let t;
        try {
          t = accessToken.prepare(all.flatMap((s) => ('accessToken' in s ? [s.accessToken] : [])));
        } catch (err) {
          o.abort();
          throw err;
        }
        return {
          check: (s) => ('oidc' in s ? o.check(s.oidc) : t.check(s.accessToken)),
          commit() {
            o.commit();
            t.commit();
          },
          abort() {
            o.abort();
            t.abort();
          },
        };
      },
      close: async () => {
        await Promise.all([oidc.close(), accessToken.close()]);
      },
    };
  },
};
