import { normalizeDn } from './ldap-dn.js';

describe('normalizeDn', () => {
  test.each([
    ['cn=Ops,ou=groups,dc=example,dc=org', 'CN=ops, OU=Groups , DC=Example,DC=org'],
    ['cn=a b,dc=x', 'cn=a   b,dc=x'],
    ['cn=a\\,b,dc=x', 'CN=A\\2cB,DC=X'],
    ['cn=x+sn=y,dc=z', 'sn=Y + cn=X,dc=z'],
    ['cn=jos\\c3\\a9,dc=x', 'cn=JOSÉ,dc=x'],
    ['cn="a,b",dc=x', 'cn=a\\,b,dc=x'],
    // Other names and OIDs of an attribute type are the short name slapd returns.
    ['commonName=x,organizationalUnitName=y,domainComponent=z', 'cn=x,ou=y,dc=z'],
    ['2.5.4.3=x,0.9.2342.19200300.100.1.25=z', 'cn=x,dc=z'],
    // Canonically equivalent Unicode (NFD against NFC), as slapd compares.
    ['cn=Cafe\u0301,dc=x', 'cn=café,dc=x'],
    // slapd's matching treats these as spaces; its DN parser drops unescaped tabs and line ends at the ends.
    ['cn=a\u00a0b,dc=x', 'cn=a b,dc=x'],
    ['cn=a\u3000b,dc=x', 'cn=a b,dc=x'],
    ['cn=ops team\t,dc=x', 'cn=ops team,dc=x'],
    ['cn=\n ops team,dc=x', 'cn=ops team,dc=x'],
    ['cn=\u039f\u0394\u039f\u03a3,dc=x', 'cn=\u03bf\u03b4\u03bf\u03c3,dc=x'],
  ])('%s equals %s', (a, b) => {
    expect(normalizeDn(a)).toBe(normalizeDn(b));
  });

  test.each([
    ['cn=ops,ou=groups,dc=example,dc=org', 'cn=ops,ou=groups,dc=example'],
    ['cn=a\\,b,dc=x', 'cn=a,b=,dc=x'],
    ['cn=ops,dc=x', 'uid=ops,dc=x'],
    // An escaped separator is part of the value: one RDN against two or a multi-valued one.
    ['cn=admins\\,ou=groups,dc=x', 'cn=admins,ou=groups,dc=x'],
    ['cn=admins\\2cou=groups,dc=x', 'cn=admins,ou=groups,dc=x'],
    ['cn="admins,ou=groups",dc=x', 'cn=admins,ou=groups,dc=x'],
    ['cn=a\\+ou=b,dc=x', 'cn=a+ou=b,dc=x'],
    ['cn=a\\;ou=b,dc=x', 'cn=a;ou=b,dc=x'],
    ['cn=a\\=b,dc=x', 'cn=a,b=,dc=x'],
    ['cn=a\\\\,b=c,dc=x', 'cn=a\\,b\\=c,dc=x'],
    // A BER value (`#` + hex) is not the string of its hex digits.
    ['cn=#0403616263,dc=x', 'cn=\\#0403616263,dc=x'],
    // slapd keeps these in a value, so a look-alike group could be made with them.
    ['cn=developers\ufeff,dc=x', 'cn=developers,dc=x'],
    ['cn=developers\\ef\\bb\\bf,dc=x', 'cn=developers,dc=x'],
    ['cn=a\ufeffb,dc=x', 'cn=a b,dc=x'],
    ['cn=a\tb,dc=x', 'cn=a b,dc=x'],
    ['cn=ops\\20team\\09,dc=x', 'cn=ops team,dc=x'],
    // Case pairs slapd does not fold, though JavaScript's toLowerCase does.
    ['cn=\u039f\u0394\u039f\u03a3,dc=x', 'cn=\u03bf\u03b4\u03bf\u03c2,dc=x'],
    ['cn=STRA\u1e9eE,dc=x', 'cn=stra\u00dfe,dc=x'],
    ['cn=d\u0130r,dc=x', 'cn=dI\u0307r,dc=x'],
  ])('%s differs from %s', (a, b) => {
    expect(normalizeDn(a)).not.toBe(normalizeDn(b));
  });

  test.each([
    ['not a DN'],
    [''],
    ['cn=a,'],
    ['cn=a\\'],
    ['cn="a,dc=x'],
    ['cn="a"b,dc=x'],
    ['cn=#zz,dc=x'],
    ['c\\6e=x,dc=y'],
    // Two different invalid UTF-8 sequences must not both become U+FFFD.
    ['cn=\\ff,dc=x'],
  ])('%j does not parse: it equals nothing', (dn) => {
    expect(normalizeDn(dn)).toBeUndefined();
  });
});
