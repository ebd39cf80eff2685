/**
 * DN comparison, shared by sluice-extauth (memberOf values against
 * allowedGroups) and the compiler (an allowedGroups entry that is not a DN is
 * an error on the AuthConfig, not a group that silently matches nobody).
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

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

/**
 * A decoded value in the form compared: canonical Unicode equivalence (NFC),
 * case, and U+0020 spaces at the ends and in runs folded; nothing more. Every
 * folding must be one slapd makes too, or a look-alike entry would pass as an
 * allowed group: JavaScript's \s and trim() also take U+FEFF and U+00A0,
 * which slapd keeps in a value.
 */
function foldValue(value: string): string {
  return value.normalize('NFC').replace(/^ +| +$/g, '').replace(/ {2,}/g, ' ').toLowerCase().normalize('NFC');
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
    return escapeCanonical(foldValue(value));
  };

  for (;;) {
    const eq = dn.indexOf('=', i);
    if (eq < 0) return undefined;
    const written = dn.slice(i, eq).replace(/^ +| +$/g, '').toLowerCase();
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
