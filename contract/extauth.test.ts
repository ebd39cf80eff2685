import { ldapAddressProblem, quotableAddress, searchFilterProblem } from './extauth.js';

describe('ldapAddressProblem', () => {
  test.each([
    'ldap://openldap:389',
    'ldaps://ldap.example.org:636',
    'ldap://127.0.0.1:1389',
    'ldap://[::1]:389',
    'ldap://ldap_1:65535',
  ])('%s is accepted', (address) => {
    expect(ldapAddressProblem(address)).toBeUndefined();
  });

  test.each([
    ['http://openldap:389', 'is not ldap://host:port or ldaps://host:port'],
    ['ldap://openldap', 'is not ldap://host:port or ldaps://host:port'],
    ['ldap://openldap:389/', 'is not ldap://host:port or ldaps://host:port'],
    // ldapts reads these through new URL as another host or port (a?b:1 is host a, port 389).
    ['ldap://a?b:1', 'is not ldap://host:port or ldaps://host:port'],
    ['ldap://a#b:99999', 'is not ldap://host:port or ldaps://host:port'],
    ['ldap://a|b:389', 'is not ldap://host:port or ldaps://host:port'],
    ['ldap://admin:pw@openldap:389', 'is not ldap://host:port or ldaps://host:port'],
    ['ldap://[1:2:3:4:5:6:7:8:9]:389', 'is not a valid URL'],
    ['ldap://openldap:0', 'has port 0, outside 1-65535'],
    ['ldap://openldap:99999', 'has port 99999, outside 1-65535'],
  ])('%s %s', (address, problem) => {
    expect(ldapAddressProblem(address)).toBe(problem);
  });

  test('an address is quoted in errors without its user:password@ part', () => {
    expect(quotableAddress('ldap://admin:s3cret@openldap:389')).toBe('ldap://<user info removed>@openldap:389');
    expect(quotableAddress('ldap://openldap:389')).toBe('ldap://openldap:389');
  });
});

describe('searchFilterProblem', () => {
  test.each(['(uid=*)', '(&(objectClass=person)(uid=%s))', '(|(uid=%s)(mail=%s))'])('%s parses', (filter) => {
    expect(searchFilterProblem(filter)).toBeUndefined();
  });

  test.each([
    ['(uid=%s', 'is not an LDAP search filter (unbalanced parens)'],
    ['(uid)', 'is not an LDAP search filter (invalid expression)'],
    ['', 'is not an LDAP search filter (filter cannot be empty)'],
  ])('%j: %s', (filter, problem) => {
    expect(searchFilterProblem(filter)).toBe(problem);
  });
});
