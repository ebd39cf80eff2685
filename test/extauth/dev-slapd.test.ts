/**
 * scripts/dev-slapd.sh, and the local path docs/extauth.md gives for the
 * examples' AuthConfigs: the script's directory answers as docker-compose's
 * does, and sluice-extauth on the compiled examples, their address rewritten
 * by the page's own `sed` line, decides as the examples' comments say.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Client } from 'ldapts';
import { basic } from '../../harness/extauth-check.js';
import { childOutput, type ChildOutput } from '../../harness/child-output.js';
import { tempDir } from '../../harness/temp-dir.js';
import { checker, closedPort, httpStatus } from './helpers.js';

const run = promisify(execFile);

let port: number;
let slapd: ChildProcess;
let ready: string;

/** Resolves with the first stdout line of `child` that `match` accepts; `output` gives the stderr to show if it ends first. */
async function line(child: ChildProcess, match: (l: string) => boolean, output?: ChildOutput): Promise<string> {
  for await (const l of createInterface({ input: child.stdout! })) if (match(l)) return l;
  throw new Error(`exited without the line; stderr: ${output ? (await output.ended).stderr : '(not piped)'}`);
}

beforeAll(async () => {
  port = await closedPort();
  slapd = spawn('bash', ['scripts/dev-slapd.sh', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  ready = await line(slapd, (l) => l.startsWith('dev-slapd: ready'), childOutput(slapd));
  expect(ready).toContain(`ldap://127.0.0.1:${port}`);
});

afterAll(async () => {
  // SIGTERM, not SIGKILL: the script stops slapd and removes its data on it, before it exits.
  if (slapd && slapd.exitCode === null && slapd.signalCode === null) {
    const exited = once(slapd, 'exit');
    slapd.kill('SIGTERM');
    await exited;
  }
});

test('the example directory: marie binds with her password and is a member of managers (memberOf), readable by the service account', async () => {
  const client = new Client({ url: `ldap://127.0.0.1:${port}` });
  try {
    await client.bind('uid=marie,ou=people,dc=example,dc=org', 'marie-password');
    const own = await client.search('uid=marie,ou=people,dc=example,dc=org', {
      scope: 'base',
      attributes: ['memberOf'],
    });
    expect(own.searchEntries[0]?.memberOf).toBe('cn=managers,ou=groups,dc=example,dc=org');
    await expect(client.bind('uid=marie,ou=people,dc=example,dc=org', 'wrong')).rejects.toThrow();
    await client.bind('cn=reader,dc=example,dc=org', 'reader-secret');
    const paul = await client.search('uid=paul,ou=people,dc=example,dc=org', {
      scope: 'base',
      attributes: ['memberOf'],
    });
    expect(paul.searchEntries[0]?.memberOf).toBe('cn=developers,ou=groups,dc=example,dc=org');
  } finally {
    await client.unbind();
  }
});

test("docs/extauth.md's local path: the compiled examples, the page's sed line, sluice-extauth --config", async () => {
  const out = tempDir('local-extauth');
  await run(process.execPath, ['bin/sluice.js', 'compile', '-f', 'examples', '-o', path.join(out, 'out')]);
  const sed = readFileSync('docs/extauth.md', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('sed -i '));
  expect(sed).toContain('out/extauth.json');
  await run('bash', ['-c', sed!.replace('127.0.0.1:3389', `127.0.0.1:${port}`)], { cwd: out });
  const sidecar = spawn(
    process.execPath,
    [path.resolve('bin/sluice-extauth.js'), '--config', 'out/extauth.json', '--port', '0', '--admin-port', '0'],
    {
      cwd: out,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const check = checker(
    (JSON.parse(await line(sidecar, (l) => l.includes('sluice-extauth listening'))) as { port: number }).port,
  );
  try {
    // The answers examples/ldap-user.yaml and examples/ldap-service-account.yaml promise.
    expect(httpStatus(await check('default.ldap-user', { authorization: basic('marie', 'marie-password') }))).toBe(200);
    expect(httpStatus(await check('default.ldap-user', { authorization: basic('paul', 'paul-password') }))).toBe(403);
    expect(httpStatus(await check('default.ldap-user', { authorization: basic('marie', 'wrong') }))).toBe(401);
    expect(
      httpStatus(await check('default.ldap-service-account', { authorization: basic('marie', 'marie-password') })),
    ).toBe(200);
  } finally {
    check.close();
    sidecar.kill('SIGKILL');
  }
});

test('a port in use is said with what to do (exit 1); Ctrl-C stops slapd, removes its files and exits 0', async () => {
  // Several at once, on a busy machine: each one's stderr is read whole (after 'close', not 'exit').
  const busy = await Promise.all(
    Array.from(
      { length: 6 },
      () =>
        childOutput(
          spawn('bash', ['scripts/dev-slapd.sh', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] }),
        ).ended,
    ),
  );
  const said = `dev-slapd: 127.0.0.1:${port} is already in use by another process; stop that process, or give --port another port\n`;
  expect(busy.map(({ code, stderr }) => [code, stderr])).toEqual(busy.map(() => [1, said]));

  const data = /data in (\S+)\)/.exec(ready)![1]!;
  expect(existsSync(data)).toBe(true);
  slapd.kill('SIGINT');
  const [code] = await once(slapd, 'exit');
  expect(code).toBe(0);
  expect(existsSync(data)).toBe(false);
  // Nothing listens there any more.
  const client = new Client({ url: `ldap://127.0.0.1:${port}`, connectTimeout: 1000 });
  await expect(client.bind('cn=reader,dc=example,dc=org', 'reader-secret')).rejects.toThrow();
});
