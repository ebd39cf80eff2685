/** Gloo's `ldap` config: the address, templates and groups checked; the service account's Secret read. */
import {
  DEFAULT_MEMBERSHIP_ATTRIBUTE,
  DEFAULT_POOL_SIZE,
  DEFAULT_SEARCH_FILTER,
  ldapAddressProblem,
  quotableAddress,
  searchFilterProblem,
} from '../../../contract/extauth.js';
import { normalizeDn } from '../../../contract/ldap-dn.js';
import { asWarning, fieldError, notFound, quote, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { LdapIR } from '../../ir/model.js';
import type { LdapSpec } from '../../kinds/extauth/ldap.js';
import type { Resource } from '../../validate/validate.js';
import { refOf, showRef } from '../index.js';
import type { Lookups } from '../lookups.js';
import { secretEntry } from '../tls.js';

export const LDAP_DEFAULTS = {
  searchFilter: DEFAULT_SEARCH_FILTER,
  membershipAttributeName: DEFAULT_MEMBERSHIP_ATTRIBUTE,
  pool: DEFAULT_POOL_SIZE,
} as const;

export function resolveLdap(
  ac: Resource,
  path: FieldPath,
  spec: LdapSpec,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): LdapIR | undefined {
  let ok = true;
  const fail = (field: string, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, [...path, field], message, hint));
    ok = false;
  };
  const addressProblem = ldapAddressProblem(spec.address);
  if (addressProblem)
    fail(
      'address',
      `${quote(quotableAddress(spec.address))} ${addressProblem}`,
      'e.g. ldap://openldap:389 or ldaps://openldap:636',
    );
  const filterProblem = spec.searchFilter === undefined ? undefined : searchFilterProblem(spec.searchFilter);
  if (filterProblem)
    fail(
      'searchFilter',
      `${quote(spec.searchFilter!)} ${filterProblem}`,
      'e.g. (uid=*) or (&(objectClass=person)(uid=%s)); %s is the escaped username',
    );
  if (!spec.userDnTemplate.includes('%s'))
    fail('userDnTemplate', 'has no "%s" placeholder for the username', 'e.g. uid=%s,ou=people,dc=example,dc=org');
  const disabled = spec.disableGroupChecking === true;
  if (disabled) unusedWithoutGroups(ac, path, spec, diagnostics);
  else if (spec.allowedGroups === undefined)
    fail(
      'allowedGroups',
      'is missing: a user is let in only as a member of one of these groups',
      'list the DNs of the groups whose members are let in, or set disableGroupChecking: true to let in every user whose bind succeeds',
    );
  if (!disabled)
    (spec.allowedGroups ?? []).forEach((group, i) => {
      // sluice-extauth compares memberOf values by this parse; an entry that fails it would match nobody.
      const canonical = normalizeDn(group);
      if (canonical === undefined) {
        diagnostics.push(
          fieldError(
            'resolve',
            ac.origin,
            [...path, 'allowedGroups', i],
            `${quote(group)} is not a DN`,
            'write the DN of a group entry, e.g. cn=developers,ou=groups,dc=example,dc=org; escape a literal , + " \\ < > ; = with a backslash',
          ),
        );
        ok = false;
      } else if (!canonical.includes(',')) {
        // `[cn=a,ou=groups,dc=x]` in YAML flow style is four one-RDN items, not one DN.
        diagnostics.push(
          fieldError(
            'resolve',
            ac.origin,
            [...path, 'allowedGroups', i],
            `${quote(group)} is a single RDN, not the DN of a group entry`,
            "quote each DN in a YAML flow list ['cn=a,ou=groups,dc=example,dc=org'], or use one '- ' line per DN",
          ),
        );
        ok = false;
      }
    });
  const pool = { ...LDAP_DEFAULTS.pool, ...spec.pool };
  if (pool.initialSize > pool.maxSize)
    fail(
      'pool',
      `initialSize ${pool.initialSize} is larger than maxSize ${pool.maxSize}`,
      'lower initialSize or raise maxSize',
    );

  const ldap: LdapIR = {
    address: spec.address,
    userDnTemplate: spec.userDnTemplate,
    allowedGroups: disabled ? [] : (spec.allowedGroups ?? []),
    searchFilter: spec.searchFilter ?? LDAP_DEFAULTS.searchFilter,
    membershipAttributeName: spec.membershipAttributeName ?? LDAP_DEFAULTS.membershipAttributeName,
    pool,
    ...(disabled ? { disableGroupChecking: true as const } : {}),
  };
  const lookup = spec.groupLookupSettings;
  if (!disabled && lookup?.checkGroupsWithServiceAccount) {
    const secretPath = [...path, 'groupLookupSettings', 'credentialsSecretRef'];
    if (!lookup.credentialsSecretRef) {
      diagnostics.push(
        fieldError(
          'resolve',
          ac.origin,
          [...path, 'groupLookupSettings'],
          'checkGroupsWithServiceAccount is true but credentialsSecretRef is missing',
          'reference a Secret made with `sluice create secret authcredentials`',
        ),
      );
      return undefined;
    }
    const ref = refOf(lookup.credentialsSecretRef, ac);
    const secret = lookups.resource('Secret', ref);
    if (!secret) {
      const hint = `create it with \`sluice create secret authcredentials --name ${ref.name} --namespace ${ref.namespace} --username <service account DN> --password <password>\` and add its output to the resources`;
      diagnostics.push(
        notFound(
          fieldError('resolve', ac.origin, secretPath, `Secret ${showRef(ref)} not found`, hint),
          `Secret ${showRef(ref)}`,
        ),
      );
      return undefined;
    }
    const username = secretValue(secret, 'username');
    const password = secretValue(secret, 'password');
    const missing = [username === undefined ? 'username' : '', password === undefined ? 'password' : ''].filter(
      Boolean,
    );
    if (missing.length > 0) {
      diagnostics.push(
        fieldError(
          'resolve',
          ac.origin,
          secretPath,
          `Secret ${showRef(ref)} has no ${missing.join(' or ')} key`,
          'an authcredentials Secret holds "username" (a DN) and "password"',
        ),
      );
      return undefined;
    }
    // An empty password would be an unauthenticated bind, which LDAP servers accept as anonymous.
    const empty = [username === '' ? 'username' : '', password === '' ? 'password' : ''].filter(Boolean);
    if (empty.length > 0) {
      diagnostics.push(
        fieldError(
          'resolve',
          ac.origin,
          secretPath,
          `Secret ${showRef(ref)} has an empty ${empty.join(' and ')}`,
          'set the service account DN and its password in the Secret',
        ),
      );
      return undefined;
    }
    ldap.serviceAccount = { username: username!, password: password! };
  }
  return ok ? ldap : undefined;
}

function secretValue(secret: Resource, key: string): string | undefined {
  return secretEntry(secret, key)?.value;
}

/** With disableGroupChecking nothing searches the user entry: the fields that shape that search do nothing (Gloo ignores them too). */
function unusedWithoutGroups(ac: Resource, path: FieldPath, spec: LdapSpec, diagnostics: Diagnostic[]): void {
  const unused = (['allowedGroups', 'searchFilter', 'membershipAttributeName', 'groupLookupSettings'] as const).filter(
    (f) => spec[f] !== undefined && !(f === 'allowedGroups' && spec.allowedGroups!.length === 0),
  );
  for (const f of unused)
    diagnostics.push(
      asWarning(
        fieldError(
          'resolve',
          ac.origin,
          [...path, f],
          'not used: with disableGroupChecking a successful bind lets the user in, and the user entry is not searched',
          `remove ${f}, or disableGroupChecking to check groups`,
        ),
      ),
    );
}
