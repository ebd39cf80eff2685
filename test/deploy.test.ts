/** The files docker-compose.yml mounts stay in step with the code and the examples. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { createLocalJWKSet, importPKCS8, jwtVerify, SignJWT } from 'jose';
import { load } from 'js-yaml';
import { formatDiagnostic } from '../compiler/diagnostics.js';
import { compileFiles } from '../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';

const run = promisify(execFile);

test('deploy/envoy-bootstrap.yaml is what `sluice bootstrap` prints for the compose network', async () => {
  const { stdout } = await run(process.execPath, ['bin/sluice.js', 'bootstrap', '--xds-address', 'sluice:18000', '--node-id', 'envoy', '--listener-port', '8080']);
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
  const forged = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'RS256' }).setIssuer('https://issuer.sluice.example').sign(other);
  await expect(jwtVerify(forged, jwks)).rejects.toThrow();
});

test('every host the compiled examples reach has a network alias (or service name) in docker-compose.yml', async () => {
  const compose = load(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, { networks?: { default?: { aliases?: string[] } } }> };
  const names = new Set(Object.entries(compose.services).flatMap(([name, s]) => [name, ...(s.networks?.default?.aliases ?? [])]));
  const result = await compileFiles(['examples'], DEFAULT_OPTIONS);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  const hosts = JSON.stringify(result.output!.clusters).match(/"address":"[^"]+"/g)!.map((m) => m.slice(11, -1));
  const ldapHosts = result.output!.authConfigs.flatMap((a) => (a.configs as { ldap: { address: string } }[]).map((c) => new URL(c.ldap.address).hostname));
  expect(hosts.length).toBeGreaterThanOrEqual(3);
  for (const host of [...hosts, ...ldapHosts]) expect(names).toContain(host);
});
