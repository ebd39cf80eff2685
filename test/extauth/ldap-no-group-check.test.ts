/**
 * Gloo's disableGroupChecking against a real slapd: the user's bind alone
 * decides. dave, in no group of the fixture, is let in; a wrong password is
 * still 401; the user entry is not searched, so a searchFilter that would
 * exclude him (kept in the sidecar's config only, as the compiler warns it
 * is unused) changes nothing. The same user under group checking gets 403.
 */
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, userDn, USER_DN_TEMPLATE, type Slapd } from '../../harness/slapd.js';
import { basic, writeConfig } from '../../harness/extauth-check.js';
import { checker, header, httpStatus, type Checker } from './helpers.js';
import { testLogger } from '../../harness/log-check.js';

let slapd: Slapd;
let server: RunningExtauth;
let check: Checker;

beforeAll(async () => {
  slapd = await startSlapd();
  const ldap = { address: slapd.url, user_dn_template: USER_DN_TEMPLATE };
  const file = await writeConfig([
    {
      name: 'default.any-user',
      configs: [{ ldap: { ...ldap, disable_group_checking: true, search_filter: '(uid=nobody)' } }],
    },
    { name: 'default.admins', configs: [{ ldap: { ...ldap, allowed_groups: [groupDn('admins')] } }] },
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

test('a user in no group whose bind succeeds is let in, as his own DN', async () => {
  const res = await check('default.any-user', dave);
  expect(httpStatus(res)).toBe(200);
  expect(header(res, 'x-user-id')).toBe(userDn('dave'));
});

test('a wrong password is still 401', async () => {
  expect(httpStatus(await check('default.any-user', { authorization: basic('dave', 'wrong') }))).toBe(401);
  expect(httpStatus(await check('default.any-user', { authorization: basic('nobody-here', 'x') }))).toBe(401);
});

test('under group checking the same user is refused (403)', async () => {
  expect(httpStatus(await check('default.admins', dave))).toBe(403);
});
