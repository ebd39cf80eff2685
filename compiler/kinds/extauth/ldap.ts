/** Gloo's `ldap` config of an AuthConfig (extauth.proto `Ldap`). */
import { Type, type Static } from '@sinclair/typebox';
import { differs, note } from '../gloo.js';
import { resourceRef } from '../resource.js';
import { boolean, object, singleLine } from '../schema.js';

export const ldap = note(
  object(
    {
      address: singleLine,
      userDnTemplate: singleLine,
      allowedGroups: differs(
        Type.Array(singleLine),
        'required unless disableGroupChecking: a user is let in only as a member of one of these groups',
      ),
      searchFilter: singleLine,
      membershipAttributeName: singleLine,
      groupLookupSettings: object({ checkGroupsWithServiceAccount: boolean, credentialsSecretRef: resourceRef }),
      pool: object({
        initialSize: Type.Integer({ minimum: 0, maximum: 100 }),
        maxSize: Type.Integer({ minimum: 1, maximum: 100 }),
      }),
      disableGroupChecking: note(
        boolean,
        'true: a user whose bind succeeds is let in, with no search of the user entry and no group check (allowedGroups, searchFilter, membershipAttributeName and groupLookupSettings are then not used: a warning)',
      ),
    },
    ['address', 'userDnTemplate'],
  ),
  'one per config',
);

export type LdapSpec = Static<typeof ldap>;
