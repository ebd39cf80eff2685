/** The files docker-compose.yml mounts and the Dockerfile copies stay in step with the code and the examples. */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLocalJWKSet, importPKCS8, jwtVerify, SignJWT } from 'jose';
import { load } from 'js-yaml';
import { formatDiagnostic } from '../compiler/diagnostics.js';
import { loadPaths } from '../compiler/load/load.js';
import { compileFiles } from '../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { ENVOY_IMAGE } from '../scripts/start-local.js';

const run = promisify(execFile);

test('deploy/envoy-bootstrap.yaml is what `sluice bootstrap` prints for the compose network', async () => {
  const { stdout } = await run(process.execPath, [
    'bin/sluice.js',
    'bootstrap',
    '--xds-address',
    'sluice:18000',
    '--node-id',
    'envoy',
    '--listener-port',
    '8080',
  ]);
  expect(readFileSync('deploy/envoy-bootstrap.yaml', 'utf8')).toBe(stdout);
});

test('deploy/jwks/jwks.json serves the demo key: a token from scripts/demo-token.mjs verifies against it', async () => {
  const { stdout } = await run(process.execPath, ['scripts/demo-token.mjs', '{"sub":"alice","role":"reader"}']);
  const jwks = createLocalJWKSet(JSON.parse(readFileSync('deploy/jwks/jwks.json', 'utf8')));
  const { payload } = await jwtVerify(stdout.trim(), jwks, { issuer: 'https://issuer.sluice.example' });
  expect(payload).toMatchObject({ sub: 'alice', role: 'reader' });

  const other = await importPKCS8(
    (await run('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'])).stdout,
    'RS256',
  );
  const forged = await new SignJWT({ sub: 'alice' })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer('https://issuer.sluice.example')
    .sign(other);
  await expect(jwtVerify(forged, jwks)).rejects.toThrow();
});

test('every host the compiled examples reach has a network alias (or service name) in docker-compose.yml', async () => {
  const compose = load(readFileSync('docker-compose.yml', 'utf8')) as {
    services: Record<string, { networks?: { default?: { aliases?: string[] } } }>;
  };
  const names = new Set(
    Object.entries(compose.services).flatMap(([name, s]) => [name, ...(s.networks?.default?.aliases ?? [])]),
  );
  const result = await compileFiles(['examples'], DEFAULT_OPTIONS);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  const hosts = JSON.stringify([...result.xds!.clusters.values(), ...result.xds!.endpoints.values()])
    .match(/"address":"[^"]+"/g)!
    .map((m) => m.slice(11, -1));
  const ldapHosts = [...result.xds!.authConfigs.values()].flatMap((a) =>
    (a.configs as { ldap: { address: string } }[]).map((c) => new URL(c.ldap.address).hostname),
  );
  expect(hosts.length).toBeGreaterThanOrEqual(3);
  for (const host of [...hosts, ...ldapHosts]) expect(names).toContain(host);
});

/** docker-compose.yml runs the examples' stack: every name they reach resolves there, every image is pinned. */
describe('docker-compose.yml and examples/ stay in step', () => {
  interface ComposeService {
    image?: string;
    build?: unknown;
    command?: string[];
    depends_on?: Record<string, { condition: string }> | string[];
    healthcheck?: { test: string[] };
    networks?: { default?: { aliases?: string[] } };
  }
  const compose = () =>
    load(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, ComposeService> };
  const names = (services: Record<string, ComposeService>) =>
    new Set(Object.entries(services).flatMap(([name, s]) => [name, ...(s.networks?.default?.aliases ?? [])]));

  test('every Service of examples/ and every LDAP address has a network alias; the sidecars answer to the names Envoy dials', async () => {
    const { services } = compose();
    const known = names(services);
    const { documents } = await loadPaths(['examples']);
    const kinds = (kind: string) =>
      documents
        .filter((d) => d.value.kind === kind)
        .map((d) => d.value as { metadata: { name: string; namespace?: string }; spec: any });
    const hosts = [
      ...kinds('Service').map(
        (s) => `${s.metadata.name}.${s.metadata.namespace ?? 'default'}.svc.${DEFAULT_OPTIONS.clusterDomain}`,
      ),
      ...kinds('AuthConfig').flatMap((a) =>
        (a.spec.configs as { ldap?: { address: string } }[]).flatMap((c) =>
          c.ldap ? [new URL(c.ldap.address).hostname] : [],
        ),
      ),
      DEFAULT_OPTIONS.extauthAddress.host,
      DEFAULT_OPTIONS.graphqlAddress.host,
    ];
    expect(hosts.length).toBeGreaterThanOrEqual(7);
    expect(hosts.filter((h) => !known.has(h))).toEqual([]);
  });

  test('every image is pinned to an exact version; Envoy is the one npm start suggests', () => {
    const { services } = compose();
    // A service that builds the project's image names its local tag; every other image is pulled.
    const images = Object.values(services).flatMap((s) => (s.image && !s.build ? [s.image] : []));
    expect(images.filter((i) => !/^[\w./-]+:v?\d+\.\d+\.\d+$/.test(i))).toEqual([]);
    expect(services.envoy?.image).toBe(ENVOY_IMAGE);
    // The rest is the project's image.
    expect(
      Object.entries(services)
        .filter(([, s]) => !s.image && !s.build)
        .map(([name]) => name),
    ).toEqual([]);
  });

  test('start-up is ordered by healthchecks, and each example program it runs exists', () => {
    const { services } = compose();
    for (const [name, s] of Object.entries(services)) {
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      for (const dep of deps) {
        expect({ service: name, dependsOn: dep, exists: dep in services }).toEqual({
          service: name,
          dependsOn: dep,
          exists: true,
        });
        if (!Array.isArray(s.depends_on) && s.depends_on![dep]!.condition === 'service_healthy')
          expect({ dep, healthcheck: !!services[dep]!.healthcheck }).toEqual({ dep, healthcheck: true });
      }
      const program = s.command?.find((c) => c.startsWith('dist/examples/services/'));
      if (program) expect(existsSync(program.replace(/^dist\//, '').replace(/\.js$/, '.ts'))).toBe(true);
    }
    expect(services.envoy?.depends_on).toMatchObject({
      sluice: { condition: 'service_healthy' },
      extauth: { condition: 'service_healthy' },
      graphql: { condition: 'service_healthy' },
    });
  });

  test("the project's binaries listen on every address of their container (--bind 0.0.0.0), their healthchecks on their admin ports", () => {
    const { services } = compose();
    const binaries = Object.entries(services).filter(([, s]) => s.command?.[0]?.startsWith('bin/'));
    expect(binaries.map(([, s]) => s.command![0]).sort()).toEqual([
      'bin/sluice-extauth.js',
      'bin/sluice-graphql.js',
      'bin/sluice-ratelimit.js',
      'bin/sluice.js',
    ]);
    for (const [name, s] of binaries) {
      const flag = (f: string) => s.command![s.command!.indexOf(f) + 1];
      expect({ name, bind: flag('--bind') }).toEqual({ name, bind: '0.0.0.0' });
      expect({ name, healthcheck: s.healthcheck?.test.join(' ') }).toEqual({
        name,
        healthcheck: expect.stringContaining(`http://127.0.0.1:${flag('--admin-port')}/readyz`),
      });
    }
    // The ports Envoy dials for the sidecars (sluice compile's defaults).
    expect(services.extauth?.command).toEqual(
      expect.arrayContaining(['--port', String(DEFAULT_OPTIONS.extauthAddress.port)]),
    );
    expect(services.graphql?.command).toEqual([
      'bin/sluice-graphql.js',
      '--xds',
      'sluice:18000',
      '--port',
      String(DEFAULT_OPTIONS.graphqlAddress.port),
      '--admin-port',
      '8094',
      '--bind',
      '0.0.0.0',
    ]);
  });

  const dockerCompose = ['/usr/bin/docker-compose', '/usr/local/bin/docker-compose'].find((p) => existsSync(p));
  if (!dockerCompose)
    console.log(
      'test/deploy.test.ts: skipping `docker-compose config`: docker-compose is not installed (apt-get install --no-install-recommends docker-compose)',
    );
  (dockerCompose ? test : test.skip)('`docker-compose config` accepts the file', async () => {
    const { stdout } = await run(dockerCompose!, ['-f', 'docker-compose.yml', 'config', '--services']);
    expect(stdout.trim().split('\n').sort()).toEqual(Object.keys(compose().services).sort());
  });
});

describe('the Dockerfile', () => {
  /** The folders it copies as they are (`COPY compiler ./compiler`). */
  const copied = () =>
    new Set([...readFileSync('Dockerfile', 'utf8').matchAll(/^COPY (\S+) \.\/\1$/gm)].map((m) => m[1]!));

  test("copies every folder the image's programs import from, and not test/", () => {
    const folders = copied();
    expect(folders.has('test')).toBe(false);
    // Every relative import of every program file in the image (tests excluded), `dist/` read as the sources it is built from.
    const outside: string[] = [];
    for (const folder of folders) {
      for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
        if (!/\.(ts|js|mjs)$/.test(file) || /\.(test|d)\.ts$/.test(file)) continue;
        const from = path.join(folder, file);
        for (const m of readFileSync(from, 'utf8').matchAll(/(?:from\s+|import\(\s*)'(\.{1,2}\/[^']+)'/g)) {
          const target = path.relative('.', path.resolve(path.dirname(from), m[1]!)).replace(/^dist\//, '');
          const top = target.split(path.sep)[0]!;
          if (target.includes(path.sep) && !folders.has(top)) outside.push(`${from} imports ${m[1]}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });

  test('copies every folder the build compiles, and the build script that `npm ci` runs', () => {
    const { include } = JSON.parse(readFileSync('tsconfig.build.json', 'utf8')) as { include: string[] };
    expect(include.filter((folder) => !copied().has(folder))).toEqual([]);
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.build).toMatch(/^node scripts\/build\.mjs/);
    expect(copied().has('scripts')).toBe(true);
  });
});
