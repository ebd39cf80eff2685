/** Gloo's AuthConfig (extauth.proto): sluice-extauth implements LDAP; every other type is refused with what to use. */
import { Type, type Static } from '@sinclair/typebox';
import { differs, note, notYet, refused, refuseEach } from './gloo.js';
import { kind, resourceRef } from './resource.js';
import { boolean, object, singleLine } from './schema.js';

const onlyLdap = () => refused('sluice-extauth implements LDAP only', 'use ldap, or JWT on the VirtualService (virtualHost.options.jwt)');

const ldap = note(
  object(
    {
      address: singleLine,
      userDnTemplate: singleLine,
      allowedGroups: differs(Type.Array(singleLine), 'required: a user is let in only as a member of one of these groups'),
      searchFilter: singleLine,
      membershipAttributeName: singleLine,
      groupLookupSettings: object({ checkGroupsWithServiceAccount: boolean, credentialsSecretRef: resourceRef }),
      pool: object({ initialSize: Type.Integer({ minimum: 0, maximum: 100 }), maxSize: Type.Integer({ minimum: 1, maximum: 100 }) }),
      disableGroupChecking: notYet(),
    },
    ['address', 'userDnTemplate', 'allowedGroups'],
  ),
  'one per config',
);

const config = object(
  {
    name: notYet(),
    ...refuseEach(['basicAuth', 'oauth', 'oauth2', 'apiKeyAuth', 'pluginAuth', 'opaAuth'], onlyLdap),
    ldap,
    ...refuseEach(['jwt', 'passThroughAuth', 'hmacAuth', 'opaServerAuth', 'portalAuth'], onlyLdap),
  },
  ['ldap'],
);

const authConfigSpec = object(
  {
    configs: note(Type.Array(config, { minItems: 1 }), 'evaluated in order; every config must allow the request'),
    booleanExpr: refused('every config must allow the request (no boolean expressions)', 'list only the configs that must all pass'),
    failOnRedirect: refused('only meaningful with OAuth, which is not supported'),
  },
  ['configs'],
);

export const AUTH_CONFIG = kind('enterprise.gateway.example/v1', 'AuthConfig', authConfigSpec, 'enterprise.gloo.solo.io/v1');

export type AuthConfigSpec = Static<typeof authConfigSpec>;
export type LdapSpec = Static<typeof ldap>;
