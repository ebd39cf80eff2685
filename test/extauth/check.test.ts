/**
 * sluice-extauth against a real slapd, called over gRPC exactly as Envoy
 * calls it: the documented order of the LDAP check and every LDAP status of docs/extauth.md.
 */
import net from 'node:net';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, userDn, USER_DN_TEMPLATE, SERVICE_ACCOUNT, type Slapd } from '../../harness/slapd.js';
import { basic, writeConfig } from '../../harness/extauth-check.js';
import { checker, closedPort, header, httpStatus, memoryLogger, type Checker } from './helpers.js';

let slapd: Slapd;
let server: RunningExtauth;
/** A directory that accepts connections and never answers. */
let silent: net.Server;
let silentConnections = 0;
let check: Checker;
const logs = memoryLogger();

function ldap(extra: Record<string, unknown> = {}) {
  return {
    ldap: {
      address: slapd.url,
      user_dn_template: USER_DN_TEMPLATE,
      allowed_groups: [groupDn('developers'), groupDn('admins')],
      search_filter: '(uid=*)',
      membership_attribute_name: 'memberOf',
      ...extra,
    },
  };
}

beforeAll(async () => {
  slapd = await startSlapd();
  const unreachable = `ldap://127.0.0.1:${await closedPort()}`;
  silent = net.createServer(() => silentConnections++);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const hanging = `ldap://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
  const file = await writeConfig([
    { name: 'default.users', configs: [ldap()] },
    // Several allowed groups, written with other case and spaces than the directory returns.
    {
      name: 'default.ops',
      configs: [
        ldap({ allowed_groups: ['cn=nobody,ou=groups,dc=example,dc=org', 'CN=Ops, OU=Groups, DC=Example, DC=Org'] }),
      ],
    },
    {
      name: 'default.sa',
      configs: [ldap({ service_account: { username: SERVICE_ACCOUNT.dn, password: SERVICE_ACCOUNT.password } })],
    },
    {
      name: 'default.sa-wrong',
      configs: [ldap({ service_account: { username: SERVICE_ACCOUNT.dn, password: 'not-the-secret' } })],
    },
    { name: 'default.filter', configs: [ldap({ search_filter: '(&(objectClass=inetOrgPerson)(uid=%s))' })] },
    { name: 'default.attr', configs: [ldap({ membership_attribute_name: 'MEMBEROF' })] },
    {
      name: 'default.unreachable',
      configs: [ldap({ address: unreachable, pool: { connect_timeout_ms: 1000, operation_timeout_ms: 1000 } })],
    },
    // No initial connections, so every connection to it is one a check opened.
    {
      name: 'default.hanging',
      configs: [ldap({ address: hanging, pool: { max_size: 2, operation_timeout_ms: 300 } })],
    },
  ]);
  server = await startExtauth({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: logs.logger,
  });
  check = checker(server.port);
});

afterAll(async () => {
  check?.close();
  await server?.close();
  await slapd?.close();
  silent?.close();
});

function bindCount(): number {
  return (slapd.log().match(/ BIND dn=/g) ?? []).length;
}

describe('LDAP answers (docs/extauth.md)', () => {
  test('no Basic Authorization header -> 401, empty body, no bind', async () => {
    const before = bindCount();
    const res = await check('default.users', {});
    expect(httpStatus(res)).toBe(401);
    expect(res.denied_response?.body ?? '').toBe('');
    expect(header(res, 'www-authenticate')).toBe('Basic realm="default.users", charset="UTF-8"');
    expect(bindCount()).toBe(before);
  });

  test('a Bearer token is not Basic credentials -> 401', async () => {
    expect(httpStatus(await check('default.users', { authorization: 'Bearer abc.def.ghi' }))).toBe(401);
  });

  test('unknown user -> 401', async () => {
    const res = await check('default.users', { authorization: basic('mallory', 'whatever') });
    expect(httpStatus(res)).toBe(401);
    expect(res.denied_response?.body ?? '').toBe('');
  });

  test('known user, wrong password -> 401', async () => {
    expect(httpStatus(await check('default.users', { authorization: basic('alice', 'wrong') }))).toBe(401);
  });

  test('known user in no allowed group -> 403, empty body', async () => {
    for (const who of [
      ['bob', 'bob-pw'],
      ['dave', 'dave-pw'],
    ]) {
      const res = await check('default.users', { authorization: basic(who[0], who[1]) });
      expect(httpStatus(res)).toBe(403);
      expect(res.denied_response?.body ?? '').toBe('');
    }
  });

  test('member of an allowed group -> OK with x-user-id set (overwriting a client-sent one) and the credentials removed', async () => {
    const res = await check('default.users', {
      authorization: basic('alice', 'alice-pw'),
      'x-user-id': 'uid=admin,dc=example,dc=org',
    });
    expect(httpStatus(res)).toBe(200);
    expect(res.ok_response?.headers_to_remove).toEqual(['authorization']);
    expect(res.ok_response?.headers).toEqual([
      { header: { key: 'x-user-id', value: userDn('alice') }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
    ]);
  });

  test('member of one allowed group among several, group DNs compared case- and space-insensitively -> OK', async () => {
    expect(httpStatus(await check('default.ops', { authorization: basic('carol', 'carol-pw') }))).toBe(200);
    expect(httpStatus(await check('default.ops', { authorization: basic('alice', 'alice-pw') }))).toBe(403);
  });

  test('membership attribute name is case-insensitive', async () => {
    expect(httpStatus(await check('default.attr', { authorization: basic('alice', 'alice-pw') }))).toBe(200);
  });

  test('non-ASCII username and password; x-user-id stays ASCII (RFC 4514 hex escapes)', async () => {
    const res = await check('default.users', { authorization: basic('josé', 'pässwörd') });
    expect(httpStatus(res)).toBe(200);
    expect(header(res, 'x-user-id')).toBe('uid=jos\\c3\\a9,ou=people,dc=example,dc=org');
  });

  test('searchFilter with %s gets the escaped username', async () => {
    expect(httpStatus(await check('default.filter', { authorization: basic('alice', 'alice-pw') }))).toBe(200);
    expect(slapd.log()).toContain('filter="(&(objectClass=inetOrgPerson)(uid=alice))"');
  });
});

describe('service account mode', () => {
  test('right secret: the group lookup binds as the service account -> OK', async () => {
    const res = await check('default.sa', { authorization: basic('alice', 'alice-pw') });
    expect(httpStatus(res)).toBe(200);
    expect(slapd.log()).toContain(`BIND dn="${SERVICE_ACCOUNT.dn}"`);
    expect(httpStatus(await check('default.sa', { authorization: basic('bob', 'bob-pw') }))).toBe(403);
  });

  test('the user is still authenticated by their own bind first -> 401 on a wrong password', async () => {
    expect(httpStatus(await check('default.sa', { authorization: basic('alice', 'wrong') }))).toBe(401);
    expect(httpStatus(await check('default.sa-wrong', { authorization: basic('alice', 'wrong') }))).toBe(401);
  });

  test('wrong secret -> 500', async () => {
    const res = await check('default.sa-wrong', { authorization: basic('alice', 'alice-pw') });
    expect(httpStatus(res)).toBe(500);
    expect(res.denied_response?.body ?? '').toBe('');
  });
});

describe('configuration', () => {
  test('unknown or missing config_ref -> 500, fail closed', async () => {
    expect(httpStatus(await check('default.nope', { authorization: basic('alice', 'alice-pw') }))).toBe(500);
    expect(httpStatus(await check(undefined, { authorization: basic('alice', 'alice-pw') }))).toBe(500);
  });
});

describe('malformed Basic headers -> 401 without any bind', () => {
  const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
  const cases: [string, string][] = [
    ['not base64', 'Basic !!!notbase64!!!'],
    ['bad padding', 'Basic YWxpY2U6YWxpY2UtcH'],
    ['no colon', `Basic ${b64('alicealice-pw')}`],
    ['empty user', `Basic ${b64(':alice-pw')}`],
    ['empty password', `Basic ${b64('alice:')}`],
    ['NUL in password', `Basic ${b64('alice:alice-pw\0')}`],
    ['NUL in user', `Basic ${b64('alice\0:alice-pw')}`],
    ['not UTF-8', `Basic ${b64(Buffer.from([0x61, 0xff, 0x3a, 0x62]))}`],
    ['oversized', `Basic ${b64(`alice:${'x'.repeat(5000)}`)}`],
    ['no credentials', 'Basic '],
    ['username only specials', `Basic ${b64('*:alice-pw')}`],
  ];
  test.each(cases)('%s', async (_name, value) => {
    const before = bindCount();
    expect(httpStatus(await check('default.users', { authorization: value }))).toBe(401);
    expect(bindCount()).toBe(before);
  });
});

describe('LDAP injection corpus', () => {
  const corpus = [
    '*',
    '*)(uid=*))(|(uid=*',
    'admin)(&)',
    ')(cn=*',
    '\\',
    '\0',
    ',+"<>;=',
    '#admin',
    ' admin',
    'ädmin*',
    'alice)(uid=*',
    'alice,ou=people',
    '*)(memberOf=*',
  ];
  const passwords = ['alice-pw', '*', 'x)(|(userPassword=*)'];

  test('in the username: never OK, and every BIND DN that reaches slapd has a clean uid', async () => {
    const logStart = slapd.log().length;
    for (const u of corpus) {
      for (const p of passwords) {
        for (const ref of ['default.users', 'default.filter', 'default.sa']) {
          expect([u, p, ref, httpStatus(await check(ref, { authorization: basic(u, p) }))]).toEqual([u, p, ref, 401]);
        }
      }
    }
    const logged = slapd.log().slice(logStart);
    const binds = [...logged.matchAll(/ BIND dn="([^"]*)"/g)].map((m) => m[1]);
    expect(binds.length).toBeGreaterThan(0);
    for (const dn of binds) {
      expect(dn).toMatch(/^uid=[^,=+<>#;\\"*()\0 ]+,ou=people,dc=example,dc=org$/);
    }
    for (const f of [...logged.matchAll(/ filter="([^"]*)"/g)].map((m) => m[1])) {
      expect(['(uid=*)', '(&(objectClass=inetOrgPerson)(uid=alice))']).toContain(f);
    }
  });

  test('in the password of a real user: never OK', async () => {
    for (const p of corpus) {
      expect([p, httpStatus(await check('default.users', { authorization: basic('alice', p) }))]).toEqual([p, 401]);
    }
  });

  test('cleaning removes specials, so the remaining uid must still prove its own password', async () => {
    // "#alice" is cleaned to "alice" (special characters are removed from usernames): that is alice's bind.
    expect(httpStatus(await check('default.users', { authorization: basic('#alice', 'alice-pw') }))).toBe(200);
    expect(httpStatus(await check('default.users', { authorization: basic('#alice', 'bob-pw') }))).toBe(401);
  });
});

test('passwords, Authorization headers and query strings are never logged', async () => {
  await check('default.users', { authorization: basic('alice', 'alice-pw'), ':path': '/pets?access_token=tok-123' });
  await check('default.users', {
    authorization: basic('alice', 'wrong-secret-pw'),
    ':path': '/pets?access_token=tok-123',
  });
  const text = logs.text();
  expect(text).toContain('check denied');
  expect(text).toContain('"path":"/pets"');
  for (const secret of [
    'alice-pw',
    'wrong-secret-pw',
    SERVICE_ACCOUNT.password,
    'not-the-secret',
    basic('alice', 'alice-pw').slice(6),
    'tok-123',
  ]) {
    expect(text).not.toContain(secret);
  }
});

test('LDAP unreachable -> 503, never OK', async () => {
  const res = await check('default.unreachable', { authorization: basic('alice', 'alice-pw') });
  expect(httpStatus(res)).toBe(503);
  expect(res.denied_response?.body ?? '').toBe('');
});

test('a directory that never answers -> 503 after the operation timeout, without a second attempt', async () => {
  const res = await check('default.hanging', { authorization: basic('alice', 'alice-pw') });
  expect(httpStatus(res)).toBe(503);
  expect(res.status?.message).toContain('timed out');
  expect(silentConnections).toBe(1);
});

test('slapd stopped -> 503; after it restarts the same pool recovers', async () => {
  const auth = { authorization: basic('alice', 'alice-pw') };
  expect(httpStatus(await check('default.users', auth))).toBe(200);
  await slapd.stop();
  try {
    for (let i = 0; i < 3; i++) expect(httpStatus(await check('default.users', auth))).toBe(503);
  } finally {
    await slapd.start();
  }
  expect(httpStatus(await check('default.users', auth))).toBe(200);
  expect(httpStatus(await check('default.sa', auth))).toBe(200);
});

test('admin endpoints: /healthz, /readyz, /metrics with checks by result, LDAP latency and pool use', async () => {
  const base = `http://127.0.0.1:${server.adminPort}`;
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  expect(metrics).toMatch(/sluice_extauth_checks_total\{result="ok"\} [1-9]/);
  expect(metrics).toMatch(/sluice_extauth_checks_total\{result="unauthenticated"\} [1-9]/);
  expect(metrics).toMatch(/sluice_extauth_checks_total\{result="forbidden"\} [1-9]/);
  expect(metrics).toMatch(/sluice_extauth_checks_total\{result="unavailable"\} [1-9]/);
  expect(metrics).toMatch(/sluice_extauth_ldap_operation_seconds_count\{operation="bind",outcome="success"\} [1-9]/);
  expect(metrics).toContain(`sluice_extauth_ldap_pool_connections{server="${slapd.url}",state="idle"}`);
});
