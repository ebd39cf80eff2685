/**
 * What the compiler and sluice-extauth must agree on beyond sluice/extauth/v1/authconfig.proto's
 * fields: one definition, so the two can never drift apart.
 */

/**
 * Set by sluice-extauth on allowed requests with the user's DN. The compiler
 * strips it on every virtual host without extauth; a second spelling here and
 * there would let a client choose its own identity.
 */
export const USER_ID_HEADER = 'x-user-id';

/** Defaults of LdapConfig fields the AuthConfig may leave unset (DESIGN.md). */
export const DEFAULT_SEARCH_FILTER = '(uid=*)';
export const DEFAULT_MEMBERSHIP_ATTRIBUTE = 'memberOf';
export const DEFAULT_POOL_SIZE = { initialSize: 2, maxSize: 5 } as const;
