/** The real `sluice` binary (built by the global setup), as a user runs it. */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { tempDir } from '../harness/temp-dir.js';

const run = promisify(execFile);

async function sluice(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/sluice.js', ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('every command has --help', async () => {
  for (const cmd of [
    [],
    ['compile'],
    ['validate'],
    ['create'],
    ['create', 'secret', 'authcredentials'],
    ['create', 'upstream', 'kube'],
  ]) {
    const { code, stdout } = await sluice(...cmd, '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: sluice/);
  }
});

test('compile -o writes the bootstrap and the sidecar configs; the examples compile', async () => {
  const out = tempDir('cli');
  const { code, stderr } = await sluice('compile', '-f', 'examples', '-o', out);
  expect(stderr).toMatch(/^compiled \d+ virtual hosts/);
  expect(code).toBe(0);
  const bootstrap = parse(readFileSync(path.join(out, 'envoy.yaml'), 'utf8'));
  expect(bootstrap.static_resources.listeners[0].address.socket_address.port_value).toBe(8080);
  expect(JSON.parse(readFileSync(path.join(out, 'extauth.json'), 'utf8'))).toHaveProperty('resources');
  expect(JSON.parse(readFileSync(path.join(out, 'graphql.json'), 'utf8'))).toHaveProperty('resources');
});

test('--version and -V print the package version, for sluice and the sidecars', async () => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  for (const bin of ['bin/sluice.js', 'bin/sluice-extauth.js', 'bin/sluice-graphql.js', 'bin/sluice-ratelimit.js']) {
    for (const flag of ['--version', '-V']) {
      const { stdout } = await run(process.execPath, [bin, flag]);
      expect(stdout).toBe(`${version}\n`);
    }
  }
});

test('--help shows host:port defaults as they are written on the command line', async () => {
  const { stdout } = await sluice('compile', '--help');
  expect(stdout).toContain('(default: extauth:8083)');
  expect(stdout).toContain('(default: graphql:8084)');
});

test("a bad --format is compile's own usage error (exit 2), naming the choices", async () => {
  const { code, stderr } = await sluice('compile', '-f', 'examples', '--format', 'xml');
  expect(code).toBe(2);
  expect(stderr).toContain("option '--format <format>' argument 'xml' is invalid. Allowed choices are yaml, json.");
  expect(stderr).toContain('Usage: sluice compile');
});

test('compile -o with another --format replaces the bootstrap: no stale envoy.yaml next to envoy.json', async () => {
  const out = tempDir('cli');
  expect((await sluice('compile', '-f', 'golden/single-route/input', '-o', out)).code).toBe(0);
  expect(readFileSync(path.join(out, 'envoy.yaml'), 'utf8')).toMatch(/\n$/);
  expect((await sluice('compile', '-f', 'golden/single-route/input', '-o', out, '--format', 'json')).code).toBe(0);
  expect(readdirSync(out).sort()).toEqual(['envoy.json', 'extauth.json', 'graphql.json']);
  for (const file of readdirSync(out)) expect(readFileSync(path.join(out, file), 'utf8')).toMatch(/\n$/);
});

test('compile --format json prints a JSON bootstrap honouring the listener port flag', async () => {
  const { code, stdout } = await sluice(
    'compile',
    '-f',
    'golden/single-route/input',
    '--format',
    'json',
    '--listener-port',
    '9090',
  );
  expect(code).toBe(0);
  expect(JSON.parse(stdout).static_resources.listeners[0].name).toBe('http-9090');
});

test('errors: every one listed with file:line, exit 1, nothing written', async () => {
  const out = tempDir('cli');
  const { code, stderr } = await sluice('compile', '-f', 'golden/error-references/input', '-o', out);
  expect(code).toBe(1);
  expect(stderr).toContain(
    'golden/error-references/input/resources.yaml:16: error[resolve]: VirtualService default/dangling: spec.virtualHost.routes[0].routeAction.single.kube.ref: Service default/nowhere not found',
  );
  expect(stderr).toMatch(/\n9 errors; nothing was written\n$/);
  expect(() => readFileSync(path.join(out, 'envoy.yaml'))).toThrow();
});

test('an output path that cannot be a directory is a one-line error (exit 1), not a stack trace', async () => {
  const file = path.join(tempDir('cli'), 'taken');
  writeFileSync(file, '');
  const { code, stderr } = await sluice('compile', '-f', 'golden/single-route/input', '-o', file);
  expect(code).toBe(1);
  expect(stderr).toBe(
    `${file}: error[emit]: cannot write the output: EEXIST — give -o a directory this user can create and write\n`,
  );
});

test('bad flags are usage errors (exit 2)', async () => {
  expect((await sluice('compile', '-f', 'examples', '--listener-port', '70000')).code).toBe(2);
  expect((await sluice('compile', '-f', 'examples', '--format', 'toml')).code).toBe(2);
  expect((await sluice('frobnicate')).code).toBe(2);
});

test('create refuses what validate would reject: names, namespaces, ports that are not plain digits (exit 2)', async () => {
  const secret = (name: string, ns: string) =>
    sluice('create', 'secret', 'authcredentials', '--name', name, '-n', ns, '--username', 'cn=a', '--password', 'p');
  const upstream = (port: string) =>
    sluice(
      'create',
      'upstream',
      'kube',
      '--name',
      'u',
      '--kube-service',
      's',
      '--kube-service-namespace',
      'd',
      '--kube-service-port',
      port,
    );
  const bad = await secret('Bad_Name', 'auth');
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('"Bad_Name" is not a valid name');
  expect(bad.stdout).toBe('');
  expect((await secret('ok', 'a.b')).code).toBe(2);
  for (const port of ['1e3', '0x50', ' 80', '0']) expect((await upstream(port)).code).toBe(2);
  expect((await upstream('80')).code).toBe(0);
});

test('create secret authcredentials and create upstream kube round-trip through validate', async () => {
  const dir = tempDir('cli');
  const secret = await sluice(
    'create',
    'secret',
    'authcredentials',
    '--name',
    'ldap-sa',
    '-n',
    'auth',
    '--username',
    'cn=reader,dc=example,dc=org',
    '--password',
    'p@ss:word',
  );
  const upstream = await sluice(
    'create',
    'upstream',
    'kube',
    '--name',
    'pets',
    '--kube-service',
    'petstore',
    '--kube-service-namespace',
    'default',
    '--kube-service-port',
    '8080',
    '-n',
    'default',
  );
  expect(parse(secret.stdout)).toEqual({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ldap-sa', namespace: 'auth' },
    type: 'Opaque',
    data: {
      username: Buffer.from('cn=reader,dc=example,dc=org').toString('base64'),
      password: Buffer.from('p@ss:word').toString('base64'),
    },
  });
  expect(parse(upstream.stdout).spec).toEqual({
    kube: { serviceName: 'petstore', serviceNamespace: 'default', servicePort: 8080 },
  });
  writeFileSync(path.join(dir, 'secret.yaml'), secret.stdout);
  writeFileSync(path.join(dir, 'upstream.yaml'), upstream.stdout);
  // The Secret is used by an AuthConfig and the Upstream by a route, so both really resolve.
  writeFileSync(
    path.join(dir, 'users.yaml'),
    `apiVersion: enterprise.gateway.example/v1
kind: AuthConfig
metadata: {name: ldap, namespace: auth}
spec:
  configs:
    - ldap:
        address: ldap://openldap:389
        userDnTemplate: uid=%s,ou=people,dc=example,dc=org
        allowedGroups: ['cn=admins,ou=groups,dc=example,dc=org']
        groupLookupSettings: {checkGroupsWithServiceAccount: true, credentialsSecretRef: {name: ldap-sa}}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: pets, namespace: default}
spec:
  virtualHost:
    domains: [pets.example.com]
    routes:
      - routeAction: {single: {upstream: {name: pets}}}
`,
  );
  const validated = await sluice('validate', '-f', dir);
  expect(validated.stderr).toBe('valid: 1 virtual host, 1 cluster, 1 auth config, 0 GraphQL APIs\n');
  expect(validated.code).toBe(0);
  const compiled = await sluice('compile', '-f', dir, '-o', dir);
  expect(compiled.code).toBe(0);
  const authConfig = JSON.parse(readFileSync(path.join(dir, 'extauth.json'), 'utf8')).resources[0];
  expect(JSON.stringify(authConfig)).toContain('p@ss:word');
  // It holds a password: nobody but its owner may read it.
  expect(statSync(path.join(dir, 'extauth.json')).mode & 0o077).toBe(0);
});

test('the missing-Secret hint, followed as written, fixes the error (namespace included)', async () => {
  const dir = tempDir('cli');
  writeFileSync(
    path.join(dir, 'resources.yaml'),
    `apiVersion: enterprise.gateway.example/v1
kind: AuthConfig
metadata: {name: ldap, namespace: team-a}
spec:
  configs:
    - ldap:
        address: ldap://openldap:389
        userDnTemplate: uid=%s,ou=people,dc=example,dc=org
        allowedGroups: ['cn=admins,ou=groups,dc=example,dc=org']
        groupLookupSettings: {checkGroupsWithServiceAccount: true, credentialsSecretRef: {name: ldap-reader}}
`,
  );
  const broken = await sluice('validate', '-f', dir);
  expect(broken.code).toBe(1);
  const hint = /`sluice (create secret authcredentials [^`]+)`/.exec(broken.stderr);
  expect(hint).not.toBeNull();
  const args = hint![1]!
    .replace('<service account DN>', 'cn=reader,dc=example,dc=org')
    .replace('<password>', 'reader-pw')
    .split(' ');
  const created = await sluice(...args);
  expect(created.code).toBe(0);
  writeFileSync(path.join(dir, 'secret.yaml'), created.stdout);
  const fixed = await sluice('validate', '-f', dir);
  expect(fixed.stderr).toBe('valid: 0 virtual hosts, 0 clusters, 1 auth config, 0 GraphQL APIs\n');
  expect(fixed.code).toBe(0);
});

test('compile --dump-ir prints the IR as YAML: resolved names and hosts, no origins, secrets redacted', async () => {
  const { code, stdout } = await sluice('compile', '-f', 'golden/extauth-ldap/input', '--dump-ir');
  expect(code).toBe(0);
  const ir = parse(stdout) as {
    virtualHosts: { name: string }[];
    authConfigs: { configs: { ldap?: { serviceAccount?: { password: string } } }[] }[];
  };
  expect(ir.virtualHosts.length).toBeGreaterThan(0);
  expect(stdout).not.toContain('origin');
  const accounts = ir.authConfigs.flatMap((a) =>
    a.configs.flatMap((c) => (c.ldap?.serviceAccount ? [c.ldap.serviceAccount] : [])),
  );
  expect(accounts.length).toBeGreaterThan(0);
  for (const a of accounts) expect(a.password).toBe('<redacted>');
  // API keys and password hashes too.
  const keys = await sluice('compile', '-f', 'golden/extauth-boolean-expr/input', '--dump-ir');
  expect(keys.code).toBe(0);
  expect(keys.stdout).not.toContain('onylA6/Cwr3UY9D9vRKx01');
  expect(keys.stdout).toContain('apiKey: <redacted>');
  expect(keys.stdout).toContain('hashedPassword: <redacted>');
});

test("a fleet: compile needs --proxy and writes that proxy's bootstrap; validate checks every proxy", async () => {
  const input = 'golden/gateway-proxies/input';
  const none = await sluice('compile', '-f', input);
  expect(none.code).toBe(1);
  expect(none.stderr).toContain(
    'the Gateways name 2 proxies (external, internal), and each Envoy of a fleet gets its own configuration — choose one with --proxy NAME',
  );
  const internal = await sluice('compile', '-f', input, '--proxy', 'internal');
  expect(internal.code).toBe(0);
  expect(internal.stdout).toBe(readFileSync('golden/gateway-proxies/expected/internal.envoy.yaml', 'utf8'));
  const unknown = await sluice('compile', '-f', input, '--proxy', 'extrenal');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('no Gateway names proxy "extrenal": the Gateways name "external", "internal"');
  const valid = await sluice('validate', '-f', input);
  expect(valid.code).toBe(0);
  expect(valid.stderr).toBe(
    'valid: 3 virtual hosts, 3 clusters, 0 auth configs, 0 GraphQL APIs, for the proxies external, internal\n',
  );
});
