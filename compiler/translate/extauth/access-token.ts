/** `sluice.extauth.v1.AccessTokenValidation` (contract/proto/sluice/extauth/v1/access_token.proto). */
import type { AccessTokenIR } from '../../ir/access-token.js';
import type { Json } from '../output.js';

export function compileAccessToken(a: AccessTokenIR): Json {
  const i = a.introspection;
  const j = a.jwt;
  return {
    ...(i
      ? {
          introspection: {
            url: i.url,
            ...(i.clientId !== undefined ? { client_id: i.clientId } : {}),
            ...(i.clientSecret !== undefined ? { client_secret: i.clientSecret } : {}),
            ...(i.userIdAttributeName !== undefined ? { user_id_attribute_name: i.userIdAttributeName } : {}),
          },
        }
      : {}),
    ...(j
      ? {
          jwt: {
            ...(j.remoteJwks
              ? {
                  remote_jwks: {
                    url: j.remoteJwks.url,
                    ...(j.remoteJwks.refreshIntervalMs ? { refresh_interval_ms: j.remoteJwks.refreshIntervalMs } : {}),
                  },
                }
              : { local_jwks: j.localJwks }),
            ...(j.issuer !== undefined ? { issuer: j.issuer } : {}),
            ...(j.audiences.length ? { audiences: j.audiences } : {}),
          },
        }
      : {}),
    ...(a.userinfoUrl !== undefined ? { userinfo_url: a.userinfoUrl } : {}),
    ...(a.cacheTimeoutMs ? { cache_timeout_ms: a.cacheTimeoutMs } : {}),
    ...(a.requiredScopes.length ? { required_scopes: a.requiredScopes } : {}),
    ...(a.claimsToHeaders.length
      ? {
          claims_to_headers: a.claimsToHeaders.map((c) => ({
            claim: c.claim,
            header: c.header,
            ...(c.append ? { append: true } : {}),
          })),
        }
      : {}),
  };
}
