/**
 * One `sluice.extauth.v1.AuthConfig` (proto3 JSON), secrets already
 * resolved: each config as its kind's message (./<kind>.ts), under the
 * field of Config's `kind` oneof that sluice-extauth's module reads.
 */
import type { AuthConfigIR, AuthKindIR } from '../../ir/model.js';
import type { Json } from '../output.js';
import { compileLdap } from './ldap.js';

function compileKind(c: AuthKindIR): Json {
  switch (c.kind) {
    case 'ldap':
      return { ldap: compileLdap(c.ldap) };
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
