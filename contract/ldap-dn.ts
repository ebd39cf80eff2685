/**
 * DN comparison, shared by sluice-extauth (memberOf values against
 * allowedGroups) and the compiler (an allowedGroups entry that is not a DN is
 * an error on the AuthConfig, not a group that silently matches nobody).
 */

// ignoreBOM: a decoder strips a leading U+FEFF by default, and `\EF\BB\BF` is part of a value.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** An attribute type: a name (`cn`, `memberOf`) or a numeric OID (`2.5.4.3`). */
const ATTRIBUTE_TYPE_RE = /^(?:[a-z][a-z0-9-]*|\d+(?:\.\d+)*)$/;

/**
 * Other names and the OIDs of the attribute types DNs use (RFC 4519), to the
 * short name slapd writes in the DNs it returns (memberOf values).
 */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  commonname: 'cn',
  '2.5.4.3': 'cn',
  organizationalunitname: 'ou',
  '2.5.4.11': 'ou',
  domaincomponent: 'dc',
  '0.9.2342.19200300.100.1.25': 'dc',
  userid: 'uid',
  '0.9.2342.19200300.100.1.1': 'uid',
  organizationname: 'o',
  '2.5.4.10': 'o',
  countryname: 'c',
  '2.5.4.6': 'c',
  localityname: 'l',
  '2.5.4.7': 'l',
  stateorprovincename: 'st',
  '2.5.4.8': 'st',
  streetaddress: 'street',
  '2.5.4.9': 'street',
};

/** Unescaped whitespace that slapd's DN parser drops around separators and at the ends of a value. */
const DN_SPACE_RE = /[ \t\n\r]/;
/** Characters slapd's matching rules treat as a space (U+0020) inside a value. */
const OTHER_SPACES_RE = /[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g;
/**
 * Values made only of these code points get Unicode NFC: slapd's tables do
 * not know later compositions, and it folds U+0130 to i, not to what I +
 * U+0307 (left out) would compose to.
 */
const OLD_SCRIPTS_RE = /^[\u0000-\u0306\u0308-\u058f]*$/;
/** Capital letters of Latin, Greek and Cyrillic (Unicode 1.1): the only ones lowercased, as slapd's tables surely fold them. */
const OLD_CAPITALS_RE = /[A-Z\u00c0-\u00de\u0100-\u017f\u0386-\u03ab\u0400-\u042f]/g;

/**
 * A decoded value in the form compared. Every folding must be one slapd makes
 * too, or a look-alike entry would pass as an allowed group (JavaScript's
 * trim() and \s take U+FEFF, toLowerCase() folds final sigma, U+0130 and
 * scripts slapd does not, NFC composes scripts slapd does not know); when in
 * doubt a value is left as it is, which can only deny. Checked against slapd
 * by test/extauth/dn-differential.test.ts.
 */
function foldValue(value: string): string {
  const spaced = value.replace(OTHER_SPACES_RE, ' ');
  const composed = OLD_SCRIPTS_RE.test(spaced) ? spaced.normalize('NFC') : spaced;
  return composed
    .replace(/^ +| +$/g, '')
    .replace(/ {2,}/g, ' ')
    .replace(OLD_CAPITALS_RE, (c) => {
      const lower = c.toLowerCase();
      return lower.length === 1 ? lower : c;
    });
}

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
 * between RDNs): attribute types lowercased and their aliases and OIDs
 * mapped to the short name, escapes decoded, values folded (`foldValue`),
 * spaces around `,` `=` `+` dropped, multi-valued RDNs sorted; then each value is
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
    while (i < dn.length && DN_SPACE_RE.test(dn[i]!)) i++;
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
    // value[0, escapedEnd) ends with an escaped character: the DN parser keeps whitespace before it.
    let escapedEnd = 0;
    const bytes: number[] = [];
    const flushBytes = (): boolean => {
      if (!bytes.length) return true;
      try {
        value += utf8.decode(Buffer.from(bytes));
      } catch {
        return false;
      }
      escapedEnd = value.length;
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
        escapedEnd = value.length;
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
    if (!quoted) value = value.slice(0, escapedEnd) + value.slice(escapedEnd).replace(/[ \t\n\r]+$/, '');
    return escapeCanonical(foldValue(value));
  };

  for (;;) {
    const eq = dn.indexOf('=', i);
    if (eq < 0) return undefined;
    const written = dn
      .slice(i, eq)
      .replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '')
      .toLowerCase();
    if (!ATTRIBUTE_TYPE_RE.test(written)) return undefined;
    const type = TYPE_ALIASES[written] ?? written;
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
