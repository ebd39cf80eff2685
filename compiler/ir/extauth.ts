/**
 * The IR of AuthConfigs: each config's kind with its settings resolved
 * (Secrets read, defaults applied), for translate to write as
 * sluice.extauth.v1.AuthConfig (contract/proto/sluice/extauth/v1/). A kind
 * is one more member of AuthKindIR, resolved in compiler/resolve/extauth/
 * and compiled in compiler/translate/extauth/.
 */
import type { Origin } from '../diagnostics.js';

export interface LdapIR {
  address: string;
  userDnTemplate: string;
  allowedGroups: string[];
  searchFilter: string;
  membershipAttributeName: string;
  /** Present when checkGroupsWithServiceAccount is true: credentials resolved from the Secret. */
  serviceAccount?: { username: string; password: string };
  pool: { initialSize: number; maxSize: number };
}

/** One config's kind and settings, tagged by the kind's field in Gloo's AuthConfig. */
export type AuthKindIR = { kind: 'ldap'; ldap: LdapIR };

/** One config of an AuthConfig. */
export type AuthConfigEntryIR = AuthKindIR & {
  /** Gloo's configs[].name; unset: `config_<index>`, as Gloo names it. */
  name?: string;
};

export interface AuthConfigIR {
  /** `<namespace>.<name>` */
  name: string;
  origin: Origin;
  configs: AuthConfigEntryIR[];
  /** Gloo's booleanExpr over the configs' names, checked; unset: every config in order. */
  booleanExpr?: string;
  /** Gloo's failOnRedirect. */
  failOnRedirect?: true;
}
