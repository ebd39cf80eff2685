import { normalizeDn } from './ldap-dn.js';

describe('normalizeDn', () => {
  test.each([
    ['cn=Ops,ou=groups,dc=example,dc=org', 'CN=ops, OU=Groups , DC=Example,DC=org'],
    ['cn=a b,dc=x', 'cn=a   b,dc=x'],
    ['cn=a\\,b,dc=x', 'CN=A\\2cB,DC=X'],
    ['cn=x+sn=y,dc=z', 'sn=Y + cn=X,dc=z'],
    ['cn=jos\\c3\\a9,dc=x', 'cn=JOSÉ,dc=x'],
    ['cn="a,b",dc=x', 'cn=a\\,b,dc=x'],
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
