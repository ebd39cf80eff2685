/** `sluice.extauth.v1.BasicAuthConfig` (contract/proto/sluice/extauth/v1/basic_auth.proto). */
import type { BasicAuthIR } from '../../ir/model.js';
import type { Json } from '../output.js';

export function compileBasicAuth(b: BasicAuthIR): Json {
  return {
    realm: b.realm,
    algorithm: b.algorithm,
    users: Object.fromEntries(
      Object.entries(b.users).map(([user, u]) => [user, { salt: u.salt, hashed_password: u.hashedPassword }]),
    ),
  };
}
