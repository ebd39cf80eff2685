/**
 * Group DNs are compared as DNs, against a real slapd: spelling variants of
 * one DN match, and a group whose DN differs only by an escaped separator
 * (`cn=admins\,ou=groups,<root>`, an entry directly under the root) is a
 * different group.
 */
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, userDn, BASE_DN, USER_DN_TEMPLATE, type Slapd } from '../../harness/slapd.js';
import { basic, writeConfig } from '../../harness/extauth-check.js';
import { checker, httpStatus, type Checker } from './helpers.js';
import { testLogger } from '../../harness/log-check.js';

/** cn is "admins,ou=groups": one RDN under the root, not the admins group under ou=groups. */
const LOOK_ALIKE = `cn=admins\\,ou=groups,${BASE_DN}`;
/** "admins" with a zero-width no-break space: slapd keeps it apart from cn=admins. */
const INVISIBLE_LOOK_ALIKE = groupDn('admins\ufeff');

let slapd: Slapd;
let server: RunningExtauth;
let check: Checker;

const config = (name: string, allowedGroups: string[]) => ({
  name,
  configs: [{ ldap: { address: slapd.url, user_dn_template: USER_DN_TEMPLATE, allowed_groups: allowedGroups } }],
});

beforeAll(async () => {
  slapd = await startSlapd();
  // dave is in no group of the fixture; here he joins the look-alike only.
  await slapd.add([
    { dn: LOOK_ALIKE, objectClass: 'groupOfNames', cn: 'admins,ou=groups', member: userDn('dave') },
    { dn: INVISIBLE_LOOK_ALIKE, objectClass: 'groupOfNames', cn: 'admins\ufeff', member: userDn('bob') },
  ]);
  const file = await writeConfig([
    config('default.admins', [groupDn('admins')]),
    config('default.look-alike', [`CN=Admins\\2cou=Groups , DC=Example, DC=org`]),
  ]);
  server = await startExtauth({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: testLogger(),
  });
  check = checker(server.port);
});

afterAll(async () => {
  check?.close();
  await server?.close();
  await slapd?.close();
});

const dave = { authorization: basic('dave', 'dave-pw') };

test('a member of cn=admins\\,ou=groups,<root> is not a member of cn=admins,ou=groups,<root> -> 403', async () => {
  expect(httpStatus(await check('default.admins', dave))).toBe(403);
});

test('the look-alike group itself, allowed with another spelling of its DN (hex escape, case, spaces) -> OK', async () => {
  expect(httpStatus(await check('default.look-alike', dave))).toBe(200);
  expect(httpStatus(await check('default.look-alike', { authorization: basic('alice', 'alice-pw') }))).toBe(403);
});

test('a member of cn=admins<U+FEFF>,ou=groups is not a member of cn=admins,ou=groups -> 403', async () => {
  expect(httpStatus(await check('default.admins', { authorization: basic('bob', 'bob-pw') }))).toBe(403);
});
