/**
 * Everything that turns client input into LDAP input: the Basic header, the
 * username cleaned and escaped before it enters a DN (RFC 4514), values
 * escaped before they enter a filter (RFC 4515), and DN comparison.
 */
import { DN, Filter } from 'ldapts';

export interface Credentials {
  username: string;
  password: string;
}

/** Longer Authorization headers are refused without decoding (4 KiB, as common proxies cap a header line). */
export const MAX_AUTHORIZATION_LENGTH = 4096;

const BASIC_RE = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

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
 * SPEC.md 5.3: special characters are removed from the username before it
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

/** An attribute type: a name (`cn`, `memberOf`) or a numeric OID (`2.5.4.3`). */
const ATTRIBUTE_TYPE_RE = /^(?:[a-z][a-z0-9-]*|\d+(?:\.\d+)*)$/;
const HEX_PAIR_RE = /^[0-9a-fA-F]{2}$/;

/**
 * A value written back with every character that has a meaning in a DN
 * escaped, so the canonical string can be split only one way.
 */
function escapeCanonical(value: string): string {
  return value.replace(/[\\,+";<>=#\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * A DN in a canonical form for comparison, or undefined when `dn` does not
 * parse as one (it then equals nothing). The DN is parsed into RDNs and
 * attribute-value pairs (RFC 4514, plus the quoted values of RFC 1779 and `;`
 * between RDNs): attribute types and values lowercased, escapes decoded,
 * spaces around `,` `=` `+` and at the ends of values dropped and runs inside
 * values made one (RFC 4518), multi-valued RDNs sorted; then each value is
 * escaped again (`escapeCanonical`). So spellings of one DN give one string,
 * and DNs of different structure (`cn=a\,ou=b` against `cn=a,ou=b`) never
 * do. Good for the DNs a directory returns and administrators type; not a
 * full RFC 4517 matcher (a `#` BER value never equals a string value).
 */
export function normalizeDn(dn: string): string | undefined {
  const rdns: string[] = [];
  let avas: string[] = [];
  let i = 0;
  const skipSpaces = () => {
    while (dn[i] === ' ') i++;
  };
  const atSeparator = () => i >= dn.length || dn[i] === ',' || dn[i] === '+' || dn[i] === ';';

  /** The canonical value starting at i, leaving i on its separator (or the end); undefined when malformed. */
  const readValue = (): string | undefined => {
    if (dn[i] === '#') {
      const m = /^#((?:[0-9a-fA-F]{2})+)/.exec(dn.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      skipSpaces();
      return atSeparator() ? `#${m[1].toLowerCase()}` : undefined;
    }
    const quoted = dn[i] === '"';
    if (quoted) i++;
    let value = '';
    const bytes: number[] = [];
    const flushBytes = (): boolean => {
      if (!bytes.length) return true;
      try {
        value += utf8.decode(Buffer.from(bytes));
      } catch {
        return false;
      }
      bytes.length = 0;
      return true;
    };
    for (;;) {
      if (i >= dn.length) {
        if (quoted) return undefined;
        break;
      }
      const c = dn[i];
      if (c === '\\') {
        const hex = dn.slice(i + 1, i + 3);
        if (HEX_PAIR_RE.test(hex)) {
          bytes.push(parseInt(hex, 16));
          i += 3;
          continue;
        }
        if (i + 1 >= dn.length) return undefined;
        if (!flushBytes()) return undefined;
        value += dn[i + 1];
        i += 2;
        continue;
      }
      if (!flushBytes()) return undefined;
      if (quoted && c === '"') {
        i++;
        skipSpaces();
        if (!atSeparator()) return undefined;
        break;
      }
      if (!quoted && atSeparator()) break;
      value += c;
      i++;
    }
    if (!flushBytes()) return undefined;
    return escapeCanonical(value.trim().replace(/\s+/g, ' ').toLowerCase());
  };

  for (;;) {
    const eq = dn.indexOf('=', i);
    if (eq < 0) return undefined;
    const type = dn.slice(i, eq).trim().toLowerCase();
    if (!ATTRIBUTE_TYPE_RE.test(type)) return undefined;
    i = eq + 1;
    skipSpaces();
    const value = readValue();
    if (value === undefined) return undefined;
    avas.push(`${type}=${value}`);
    if (i >= dn.length) break;
    const separator = dn[i++];
    if (separator !== '+') {
      rdns.push(avas.sort().join('+'));
      avas = [];
    }
  }
  rdns.push(avas.sort().join('+'));
  return rdns.join(',');
}
