/**
 * `sluice-extauth --config FILE` follows the file: each change is applied all
 * or nothing, a bad edit is logged and the last good AuthConfigs stay in
 * force (runtime/config-file.ts, shared with sluice-graphql). Against a real
 * slapd, with the file edited under the running sidecar.
 */
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, USER_DN_TEMPLATE, type Slapd } from '../../harness/slapd.js';
import { basic, writeConfig } from '../../harness/extauth-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { checker, httpStatus, memoryLogger, until, type Checker } from './helpers.js';

let slapd: Slapd;
const alice = { authorization: basic('alice', 'alice-pw') };
const bob = { authorization: basic('bob', 'bob-pw') };

function authConfig(name: string, group: string, address = slapd.url) {
  return {
    name,
    configs: [{ ldap: { address, user_dn_template: USER_DN_TEMPLATE, allowed_groups: [groupDn(group)] } }],
  };
}

const set = (...resources: unknown[]) => JSON.stringify({ resources }, null, 2);

/** Writes through a temporary file and a rename, as editors and `sluice compile -o` do. */
function edit(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

async function running(
  file: string,
): Promise<{ server: RunningExtauth; check: Checker; logs: ReturnType<typeof memoryLogger> }> {
  const logs = memoryLogger();
  const server = await startExtauth({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: logs.logger,
  });
  return { server, check: checker(server.port), logs };
}

/** How many times the log holds `message`. */
const count = (text: string, message: string) => text.split(message).length - 1;

beforeAll(async () => {
  slapd = await startSlapd({ statsLog: false });
});

afterAll(async () => {
  await slapd?.close();
});

test('an edit is applied as a whole; a bad edit is logged and the last good set stays in force', async () => {
  const file = await writeConfig([authConfig('default.users', 'developers')]);
  const { server, check, logs } = await running(file);
  try {
    expect(httpStatus(await check('default.users', alice))).toBe(200);
    expect(httpStatus(await check('default.sales', bob))).toBe(500);

    // A new AuthConfig and a changed one, in one edit.
    edit(file, set(authConfig('default.users', 'sales'), authConfig('default.sales', 'sales')));
    await until(() => count(logs.text(), 'configuration file applied') === 1);
    expect(httpStatus(await check('default.sales', bob))).toBe(200);
    expect(httpStatus(await check('default.users', alice))).toBe(403);

    // Not JSON, then JSON with one AuthConfig that does not validate next to a good one: neither changes anything.
    edit(file, set(authConfig('default.users', 'developers')).replace('"name"', 'name'));
    await until(() => count(logs.text(), 'configuration file rejected') === 1);
    expect(logs.text()).toContain(`${file}: not JSON: invalid symbol at line`);
    edit(file, set(authConfig('default.users', 'developers'), authConfig('default.sales', 'sales', 'http://not-ldap')));
    await until(() => count(logs.text(), 'configuration file rejected') === 2);
    expect(logs.text()).toContain('is not ldap://host:port');
    expect(httpStatus(await check('default.sales', bob))).toBe(200);
    expect(httpStatus(await check('default.users', alice))).toBe(403);
    expect((await fetch(`http://127.0.0.1:${server.adminPort}/readyz`)).status).toBe(200);

    // Fixed: applied, and an AuthConfig left out of the file is gone (the file is the whole set).
    edit(file, set(authConfig('default.users', 'developers')));
    await until(() => count(logs.text(), 'configuration file applied') === 2);
    expect(httpStatus(await check('default.users', alice))).toBe(200);
    expect(httpStatus(await check('default.sales', bob))).toBe(500);
  } finally {
    check.close();
    await server.close();
  }
});

test('a Kubernetes ConfigMap volume: the file is a link through ..data, and an update swaps ..data', async () => {
  const dir = tempDir('extauth-configmap');
  // The kubelet's layout: <dir>/..<timestamp>/extauth.json, ..data -> ..<timestamp>, extauth.json -> ..data/extauth.json.
  const version = (name: string, text: string) => {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'extauth.json'), text);
  };
  version('..v1', set(authConfig('default.users', 'developers')));
  symlinkSync('..v1', path.join(dir, '..data'));
  symlinkSync('..data/extauth.json', path.join(dir, 'extauth.json'));
  const { server, check, logs } = await running(path.join(dir, 'extauth.json'));
  try {
    expect(httpStatus(await check('default.users', bob))).toBe(403);
    version('..v2', set(authConfig('default.users', 'sales')));
    symlinkSync('..v2', path.join(dir, '..data_tmp'));
    renameSync(path.join(dir, '..data_tmp'), path.join(dir, '..data'));
    await until(() => count(logs.text(), 'configuration file applied') === 1);
    expect(httpStatus(await check('default.users', bob))).toBe(200);
  } finally {
    check.close();
    await server.close();
  }
});

test('a file that does not validate stops the start with the file and the field', async () => {
  const file = await writeConfig([authConfig('default.users', 'developers', 'http://not-ldap')]);
  await expect(running(file)).rejects.toThrow(
    `${file}: resources[0] default.users.configs[0].ldap.address: "http://not-ldap" is not ldap://host:port`,
  );
});
