/**
 * Everything that turns client input into LDAP input: the Basic header, the
 * username cleaned and escaped before it enters a DN (RFC 4514), values
 * escaped before they enter a filter (RFC 4515). Used by sluice-extauth
 * and by `sluice explain`, so both build the same bind DN. DN comparison is
 * in ./ldap-dn.ts.
 */
import { DN, Filter } from 'ldapts';

export interface Credentials {
  username: string;
  password: string;
}

/** Longer Authorization headers are refused without decoding (4 KiB, as common proxies cap a header line). */
export const MAX_AUTHORIZATION_LENGTH = 4096;

const BASIC_RE = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
// ignoreBOM: a leading U+FEFF is part of the username, as the client sent it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Credentials from an `Authorization: Basic` header, or undefined when the
 * header is absent or malformed in any way (not base64, not UTF-8, no colon,
 * empty username or password, NUL bytes, oversized). Undefined means 401
 * without any bind.
 */
export function parseBasic(header: string | undefined): Credentials | undefined {
  if (!header || header.length > MAX_AUTHORIZATION_LENGTH) return undefined;
  const m = BASIC_RE.exec(header);
  if (!m || m[1].length % 4 !== 0) return undefined;
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(m[1], 'base64'));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  // An empty password would be an unauthenticated bind, which LDAP servers accept (RFC 4513 5.1.2).
  if (!password || decoded.includes('\0')) return undefined;
  return { username, password };
}

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
