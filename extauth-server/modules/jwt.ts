/**
 * Gloo's `jwt: {}` config: the token Envoy's jwt_authn filter verified is
 * this config's result. jwt_authn writes a verified token's payload to its
 * dynamic metadata, which the ext_authz filter forwards (the compiler sets
 * metadata_context_namespaces): a payload there allows the request, none is
 * 401. It lets booleanExpr combine a JWT with other configs.
 */
import { JWT_AUTHN_NAMESPACE } from '../../contract/extauth.js';
import { allow, deny, stateless, type AuthModule } from '../module.js';

const verified = allow({ identity: 'the verified JWT' });
const unverified = deny(401, 'no JWT verified by jwt_authn on this route');

export const jwtModule: AuthModule<object> = {
  field: 'jwt',
  parse: () => ({}),
  create: () =>
    stateless(() => (request) => (request.filterMetadata[JWT_AUTHN_NAMESPACE]?.length ? verified : unverified)),
};
