/** `sluice.extauth.v1.LdapConfig` (contract/proto/sluice/extauth/v1/ldap.proto). */
import type { LdapIR } from '../../ir/model.js';
import type { Json } from '../output.js';

export function compileLdap(l: LdapIR): Json {
  return {
    address: l.address,
    user_dn_template: l.userDnTemplate,
    allowed_groups: l.allowedGroups,
    search_filter: l.searchFilter,
    membership_attribute_name: l.membershipAttributeName,
    ...(l.serviceAccount
      ? { service_account: { username: l.serviceAccount.username, password: l.serviceAccount.password } }
      : {}),
    // Timeouts are left to the sidecar's flags (0 = its default).
    pool: { initial_size: l.pool.initialSize, max_size: l.pool.maxSize },
    ...(l.disableGroupChecking ? { disable_group_checking: true } : {}),
  };
}
