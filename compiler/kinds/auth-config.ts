/**
 * Gloo's AuthConfig (extauth.proto): its configs, each of one kind whose
 * schema is in ./extauth/, combined in order or by booleanExpr. A kind
 * sluice-extauth does not implement is refused with what to use.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused, refuseEach } from './gloo.js';
import { kind } from './resource.js';
import { object } from './schema.js';
import { ldap } from './extauth/ldap.js';

const onlyLdap = () => refused('sluice-extauth implements LDAP only', 'use ldap, or JWT on the VirtualService (virtualHost.options.jwt)');

/** A config's name as booleanExpr can refer to it. */
const configName = note(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9_.:-]+$' }), 'letters, digits and _ . : - (what booleanExpr can name); unset: config_<index>, as Gloo names it');

const config = object(
  {
    name: configName,
    ...refuseEach(['basicAuth', 'oauth', 'oauth2', 'apiKeyAuth', 'pluginAuth', 'opaAuth'], onlyLdap),
    ldap,
    ...refuseEach(['jwt', 'passThroughAuth', 'hmacAuth', 'opaServerAuth', 'portalAuth'], onlyLdap),
  },
  ['ldap'],
);

const authConfigSpec = object(
  {
    configs: note(Type.Array(config, { minItems: 1 }), 'evaluated in order; without booleanExpr every config must allow the request'),
    booleanExpr: note(
      Type.String({ minLength: 1 }),
      'config names combined with &&, || and ! (tightest) and parentheses, evaluated left to right with short-circuit; a config that answers an error (5xx) ends the check with it',
    ),
    failOnRedirect: refused('only meaningful with OAuth, which is not supported'),
  },
  ['configs'],
);

export const AUTH_CONFIG = kind('enterprise.gateway.example/v1', 'AuthConfig', authConfigSpec, 'enterprise.gloo.solo.io/v1');

export type AuthConfigSpec = Static<typeof authConfigSpec>;
