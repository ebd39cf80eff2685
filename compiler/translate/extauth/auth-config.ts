/**
 * One `sluice.extauth.v1.AuthConfig` (proto3 JSON), secrets already
 * resolved: each config as its kind's message (./<kind>.ts), under the
 * field of Config's `kind` oneof that sluice-extauth's module reads.
 */
import type { AuthConfigIR, AuthKindIR } from '../../ir/model.js';
import type { Json } from '../output.js';
import { compileApiKey } from './api-key.js';
import { compileBasicAuth } from './basic-auth.js';
import { compileLdap } from './ldap.js';
import { compileOAuth2 } from './oauth2.js';
import { compileOpaServer } from './opa-server.js';
import { compilePassThrough } from './pass-through.js';

function compileKind(c: AuthKindIR): Json {
  switch (c.kind) {
    case 'ldap':
      return { ldap: compileLdap(c.ldap) };
    case 'apiKeyAuth':
      return { api_key_auth: compileApiKey(c.apiKeyAuth) };
    case 'basicAuth':
      return { basic_auth: compileBasicAuth(c.basicAuth) };
    case 'passThroughAuth':
      return { pass_through_auth: compilePassThrough(c.passThroughAuth) };
    case 'opaServerAuth':
      return { opa_server_auth: compileOpaServer(c.opaServerAuth) };
    case 'jwt':
      return { jwt: {} };
    case 'oauth2':
      return { oauth2: compileOAuth2(c.oauth2) };
  }
}

export function compileAuthConfig(ac: AuthConfigIR): Json {
  return {
    name: ac.name,
    configs: ac.configs.map((c) => ({ ...(c.name !== undefined ? { name: c.name } : {}), ...compileKind(c) })),
    ...(ac.booleanExpr !== undefined ? { boolean_expr: ac.booleanExpr } : {}),
    ...(ac.failOnRedirect ? { fail_on_redirect: true } : {}),
  };
}
