/**
 * When a check is tried a second time, against a real slapd behind a proxy
 * that cuts a connection at a chosen reply: never for an error raised before
 * anything was sent, never when a bind's reply is lost (the directory may
 * have counted the attempt towards a lockout), once when every bind sent
 * was answered.
 */
import { Client } from 'ldapts';
import { Authorizer } from '../../extauth-server/authorizer.js';
import { DEFAULT_POOL } from '../../extauth-server/config.js';
import { ldapModule, type LdapSettings } from '../../extauth-server/modules/ldap.js';
import { startSlapd, groupDn, userDn, USER_DN_TEMPLATE, SERVICE_ACCOUNT, type Slapd } from '../../harness/slapd.js';
import { basic } from '../../harness/extauth-check.js';
import { authConfigOf, ldapProxy, requestFor, until, type LdapProxy } from './helpers.js';
import { testLogger } from '../../harness/log-check.js';

const BIND_RESPONSE = 0x61;
const SEARCH_RESULT_ENTRY = 0x64;

let slapd: Slapd;
let proxy: LdapProxy;
let authorizer: Authorizer;

beforeAll(async () => {
  slapd = await startSlapd();
});

beforeEach(async () => {
  proxy = await ldapProxy(slapd.port);
  authorizer = new Authorizer({ logger: testLogger() });
});

afterEach(async () => {
  await authorizer.close();
  await proxy.close();
});

afterAll(async () => {
  await slapd?.close();
});

/** One AuthConfig `default.t` through the proxy; no connection opened ahead, so the proxy's connection 0 is the check's first. */
function configure(extra: Partial<LdapSettings> = {}): void {
  authorizer.setConfigs([
    authConfigOf('default.t', ldapModule, {
      address: proxy.url,
      userDnTemplate: USER_DN_TEMPLATE,
      allowedGroups: [groupDn('developers')],
      searchFilter: '(uid=*)',
      membershipAttributeName: 'memberOf',
      pool: { ...DEFAULT_POOL, initialSize: 0 },
      ...extra,
    }),
  ]);
}

/** BIND requests for `dn` that reached slapd (a successful bind logs a second line, with mech=). */
function binds(dn: string): number {
  return slapd.log().split(`BIND dn="${dn}" method=128`).length - 1;
}

let markers = 0;
/**
 * slapd's log is read from a pipe, apart from the LDAP replies. A bind sent
 * now reaches slapd after everything sent before it, so once its line is in
 * the log, every earlier request's line is too.
 */
async function logSettled(): Promise<void> {
  const marker = userDn(`marker-${++markers}`);
  const client = new Client({ url: slapd.url, timeout: 5000 });
  await client.bind(marker, 'x').catch(() => undefined);
  await client.unbind();
  await until(() => binds(marker) > 0);
}

/** Cuts connection 0 at its `nth` (1-based) reply with protocolOp `op`. */
function cutAt(op: number, nth = 1): void {
  let seen = 0;
  proxy.onReply = (tag, connection) => (connection === 0 && tag === op && ++seen === nth ? 'cut' : 'forward');
}

const alice = requestFor('default.t', { authorization: basic('alice', 'alice-pw') });

test('a search filter ldapts cannot parse (past config checks) is 500 after one bind, not a retry and "unreachable"', async () => {
  configure({ searchFilter: '(uid=%s' });
  const before = binds(userDn('alice'));
  expect(await authorizer.check(alice)).toMatchObject({ kind: 'deny', status: 500 });
  await logSettled();
  expect(binds(userDn('alice')) - before).toBe(1);
});

test("the user bind's reply is lost: 503, and the password was sent once", async () => {
  configure();
  cutAt(BIND_RESPONSE);
  const before = binds(userDn('alice'));
  expect(await authorizer.check(alice)).toMatchObject({ kind: 'deny', status: 503 });
  await logSettled();
  expect(binds(userDn('alice')) - before).toBe(1);
});

test("the service account bind's reply is lost: 503, and its password was sent once", async () => {
  configure({ serviceAccount: { username: SERVICE_ACCOUNT.dn, password: SERVICE_ACCOUNT.password } });
  cutAt(BIND_RESPONSE, 2);
  const before = binds(SERVICE_ACCOUNT.dn);
  expect(await authorizer.check(alice)).toMatchObject({ kind: 'deny', status: 503 });
  await logSettled();
  expect(binds(SERVICE_ACCOUNT.dn) - before).toBe(1);
});

test('the search reply is lost after the binds succeeded: one retry on a fresh connection -> OK', async () => {
  configure();
  cutAt(SEARCH_RESULT_ENTRY);
  const before = binds(userDn('alice'));
  expect(await authorizer.check(alice)).toMatchObject({ kind: 'allow' });
  await logSettled();
  expect(binds(userDn('alice')) - before).toBe(2);
});

test('a check after the sidecar closed its pools (shutdown): 503, unavailable, and nothing sent', async () => {
  configure();
  await authorizer.close();
  const before = binds(userDn('alice'));
  expect(await authorizer.check(alice)).toMatchObject({ kind: 'deny', status: 503 });
  await logSettled();
  expect(binds(userDn('alice')) - before).toBe(0);
});
