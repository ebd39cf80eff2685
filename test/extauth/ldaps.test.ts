/** ldaps:// to slapd with a self-signed certificate: trusted through --ldap-ca, refused (503) without it. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from '../../extauth-server/cli.js';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, USER_DN_TEMPLATE, type Slapd } from '../../harness/slapd.js';
import { basic, writeConfig } from '../../harness/extauth-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { checker, httpStatus } from './helpers.js';
import { testLogger } from '../../harness/log-check.js';

let slapd: Slapd;
const running: RunningExtauth[] = [];

beforeAll(async () => {
  slapd = await startSlapd({ tls: true });
});

afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
  await slapd?.close();
});

async function sidecar(extraFlags: string[]): Promise<RunningExtauth> {
  const config = (name: string, address: string | undefined) => ({
    name,
    configs: [{ ldap: { address, user_dn_template: USER_DN_TEMPLATE, allowed_groups: [groupDn('developers')] } }],
  });
  const file = await writeConfig([config('default.tls', slapd.ldapsUrl), config('default.plain', slapd.url)]);
  const opts = parseArgs([
    '--config',
    file,
    '--port',
    '0',
    '--admin-port',
    '0',
    '--bind',
    '127.0.0.1',
    '--ldap-connect-timeout-ms',
    '2000',
    ...extraFlags,
  ]);
  const r = await startExtauth({ ...opts, logger: testLogger() });
  running.push(r);
  return r;
}

test('with the CA given by --ldap-ca: binds and searches over TLS; ldap:// servers stay plain', async () => {
  const dir = tempDir('ca');
  await writeFile(path.join(dir, 'ca.pem'), slapd.caPem!);
  const check = checker((await sidecar(['--ldap-ca', path.join(dir, 'ca.pem')])).port);
  expect(httpStatus(await check('default.tls', { authorization: basic('alice', 'alice-pw') }))).toBe(200);
  expect(httpStatus(await check('default.tls', { authorization: basic('alice', 'wrong') }))).toBe(401);
  // ldapts speaks TLS to any URL it gets TLS options for; a plain listener then fails the handshake.
  expect(httpStatus(await check('default.plain', { authorization: basic('alice', 'alice-pw') }))).toBe(200);
  check.close();
});

test('an untrusted certificate is a connection failure: 503, never a bind', async () => {
  const check = checker((await sidecar([])).port);
  const binds = (slapd.log().match(/ BIND dn=/g) ?? []).length;
  expect(httpStatus(await check('default.tls', { authorization: basic('alice', 'alice-pw') }))).toBe(503);
  expect((slapd.log().match(/ BIND dn=/g) ?? []).length).toBe(binds);
  check.close();
});
