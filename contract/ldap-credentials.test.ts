import { FilterParser } from 'ldapts';
import {
  cleanUsername,
  escapeDnValue,
  parseBasic,
  searchFilter,
  userDn,
  MAX_AUTHORIZATION_LENGTH,
} from './ldap-credentials.js';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describe('parseBasic', () => {
  test('well-formed header; the scheme is case-insensitive; the password may contain colons', () => {
    expect(parseBasic(`Basic ${b64('alice:alice-pw')}`)).toEqual({ username: 'alice', password: 'alice-pw' });
    expect(parseBasic(`basic ${b64('alice:a:b:c')}`)).toEqual({ username: 'alice', password: 'a:b:c' });
    expect(parseBasic(`BASIC ${b64('josé:pässwörd')}`)).toEqual({ username: 'josé', password: 'pässwörd' });
  });

  test('a leading U+FEFF stays in the username (it is not the user without it)', () => {
    expect(parseBasic(`Basic ${b64('\ufeffalice:alice-pw')}`)).toEqual({
      username: '\ufeffalice',
      password: 'alice-pw',
    });
  });

  test.each([
    ['absent', undefined],
    ['empty', ''],
    ['other scheme', `Bearer ${b64('alice:pw')}`],
    ['no space', `Basic${b64('alice:pw')}`],
    ['not base64', 'Basic a!b@c#d$'],
    ['bad length', 'Basic YWxpY2U6cHc'],
    ['no colon', `Basic ${b64('alicepw')}`],
    ['empty user', `Basic ${b64(':pw')}`],
    ['empty password', `Basic ${b64('alice:')}`],
    ['NUL', `Basic ${b64('alice:p\0w')}`],
    ['invalid UTF-8', `Basic ${b64(Buffer.from([0x61, 0x3a, 0xc3, 0x28]))}`],
    ['oversized', `Basic ${'A'.repeat(MAX_AUTHORIZATION_LENGTH)}`],
  ])('%s -> undefined', (_name, header) => {
    expect(parseBasic(header)).toBeUndefined();
  });
});

describe('cleanUsername', () => {
  test.each([
    ['alice', 'alice'],
    ['josé', 'josé'],
    ['*', ''],
    ['*)(uid=*))(|(uid=*', 'uid|uid'],
    ['admin)(&)', 'admin&'],
    [')(cn=*', 'cn'],
    ['\\', ''],
    ['a\0b\u0007c\u007f', 'abc'],
    [',+"<>;=', ''],
    ['#admin', 'admin'],
    ['  admin  ', 'admin'],
    ['alice,ou=people', 'aliceoupeople'],
  ])('%j -> %j', (input, out) => {
    expect(cleanUsername(input)).toBe(out);
  });
});

describe('DN and filter building', () => {
  test('escapeDnValue follows RFC 4514 for what cleaning would leave', () => {
    expect(escapeDnValue('a,b+c"d\\e<f>g;h=i#j')).toBe('a\\,b\\+c\\"d\\\\e\\<f\\>g\\;h\\=i\\#j');
    expect(escapeDnValue(' lead')).toBe('" lead"');
  });

  test('userDn replaces every %s with the escaped value', () => {
    expect(userDn('uid=%s,ou=people,dc=example,dc=org', 'alice')).toBe('uid=alice,ou=people,dc=example,dc=org');
    expect(userDn('uid=%s,ou=%s', 'a,b')).toBe('uid=a\\,b,ou=a\\,b');
  });

  test('searchFilter escapes the username (RFC 4515) and leaves filters without %s alone', () => {
    expect(searchFilter('(uid=*)', 'x*')).toBe('(uid=*)');
    expect(searchFilter('(&(objectClass=person)(uid=%s))', '*)(uid=*')).toBe(
      '(&(objectClass=person)(uid=\\2a\\29\\28uid=\\2a))',
    );
    expect(searchFilter('(uid=%s)', 'a\\b\0')).toBe('(uid=a\\5cb\\00)');
  });

  test('an escaped filter parses as one equality assertion', () => {
    const parsed = FilterParser.parseString(searchFilter('(uid=%s)', '*)(|(uid=*'));
    expect(parsed.constructor.name).toBe('EqualityFilter');
  });
});
