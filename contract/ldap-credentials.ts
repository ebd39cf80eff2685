/**
 * Everything that turns client input into LDAP input: the Basic header
 * (./basic-credentials.ts), the username cleaned and escaped before it enters a DN (RFC 4514), values
 * escaped before they enter a filter (RFC 4515). Used by sluice-extauth
 * and by `sluice explain`, so both build the same bind DN. DN comparison is
 * in ./ldap-dn.ts.
 */
import { DN, Filter } from 'ldapts';

export { parseBasic, MAX_AUTHORIZATION_LENGTH, type Credentials } from './basic-credentials.js';

/**
 * Special characters are removed from the username before it
 * enters the DN. Removed: the DN specials of RFC 4514 (`,+"\<>;=#`), the
 * filter specials of RFC 4515 (`*()\` and NUL), every control character; then
 * surrounding spaces. Letters of any script stay (`josé` is a valid uid).
 */
export function cleanUsername(username: string): string {
  return username.replace(/[,+"\\<>;=#*()\p{Cc}]/gu, '').trim();
}

/** RFC 4514 escaping of one attribute value, by ldapts' DN serializer. */
export function escapeDnValue(value: string): string {
  return new DN().addPairRDN('x', value).toString().slice('x='.length);
}

/** The user's DN: the template with `%s` replaced by the cleaned, escaped username. */
export function userDn(template: string, cleanedUsername: string): string {
  return template.split('%s').join(escapeDnValue(cleanedUsername));
}

/** The search filter; a `%s` in it is replaced by the username escaped for a filter (RFC 4515). */
export function searchFilter(filter: string, cleanedUsername: string): string {
  return filter.includes('%s') ? filter.split('%s').join(Filter.escape(cleanedUsername)) : filter;
}
