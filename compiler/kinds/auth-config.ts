/**
 * Gloo's AuthConfig (extauth.proto): its configs, each of one kind whose
 * schema is in ./extauth/, combined in order or by booleanExpr. A kind
 * sluice-extauth does not implement is refused with what to use.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { kind } from './resource.js';
import { boolean, exactlyOne, object } from './schema.js';
import { apiKeyAuth } from './extauth/api-key.js';
import { basicAuth } from './extauth/basic-auth.js';
import { ldap } from './extauth/ldap.js';
import { opaAuth, opaServerAuth } from './extauth/opa.js';
import { oauth2 } from './extauth/oauth2.js';
import { passThroughAuth } from './extauth/pass-through.js';

/** A config's name as booleanExpr can refer to it. */
const configName = note(
  Type.String({ minLength: 1, pattern: '^[A-Za-z0-9_.:-]+$' }),
  'letters, digits and _ . : - (what booleanExpr can name); unset: config_<index>, as Gloo names it',
);

/** The kinds of config, one per config (Gloo's `auth_config` oneof). */
const KIND_NAMES = ['basicAuth', 'oauth2', 'apiKeyAuth', 'ldap', 'jwt', 'passThroughAuth', 'opaServerAuth'] as const;

const config = object(
  {
    name: configName,
    basicAuth,
    oauth: refused("Gloo's deprecated form of OpenID Connect login", 'use oauth2.oidcAuthorizationCode'),
    oauth2,
    apiKeyAuth,
    pluginAuth: refused(
      "Go plugins run only inside Gloo's own extauth server",
      'call a service of your own with passThroughAuth',
    ),
    opaAuth,
    ldap,
    jwt: note(
      object({}),
      "the token Envoy's jwt_authn verified on the route (virtualHost.options.jwt) is this config's result; without one, 401",
    ),
    passThroughAuth,
    hmacAuth: refused('HMAC authentication is not implemented'),
    opaServerAuth,
    portalAuth: refused('it serves Gloo Gateway Portal, which Sluice does not have'),
    ldapInternal: refused(
      "it is the form Gloo's control plane writes for its own extauth server, not a field of an AuthConfig",
      'write ldap, with groupLookupSettings for a service account',
    ),
  },
  [],
  exactlyOne(...KIND_NAMES),
);

const authConfigSpec = object(
  {
    configs: note(
      Type.Array(config, { minItems: 1 }),
      'evaluated in order; without booleanExpr every config must allow the request',
    ),
    booleanExpr: note(
      Type.String({ minLength: 1 }),
      'config names combined with &&, || and ! (tightest) and parentheses, evaluated left to right with short-circuit; a config that answers an error (5xx) ends the check with it',
    ),
    failOnRedirect: note(
      boolean,
      "a config's login redirect (302) is answered 401 instead, for clients that cannot follow it",
    ),
  },
  ['configs'],
);

export const AUTH_CONFIG = kind(
  'enterprise.gateway.example/v1',
  'AuthConfig',
  authConfigSpec,
  'enterprise.gloo.solo.io/v1',
);

export type AuthConfigSpec = Static<typeof authConfigSpec>;
