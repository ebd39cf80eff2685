/**
 * The real `sluice explain` and `sluice test` binaries: the examples' request
 * table passes and covers every example host; a failing case exits 1 with its
 * explanation; JUnit output; RequestTest documents change nothing `compile` emits.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

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

test('sluice test -f examples: every case passes or needs the directory, and every example host has a case', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-test-'));
  try {
    const junit = path.join(dir, 'report.xml');
    const { code, stdout } = await sluice('test', '-f', 'examples', '--junit', junit);
    expect(stdout).toMatch(/\d+ cases: \d+ passed, 0 failed, \d+ unverified\n$/);
    expect(code).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="RequestTest default/examples"');
    expect(xml).not.toContain('<failure');

    const { stdout: bootstrap } = await sluice('compile', '-f', 'examples', '--format', 'json');
    const routeConfig =
      JSON.parse(bootstrap).static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config;
    const domains: string[] = routeConfig.virtual_hosts
      .flatMap((vh: { domains: string[] }) => vh.domains)
      .filter((d: string) => d !== '*');
    const tested = new Set(
      parseAllDocuments(readFileSync('examples/tests.yaml', 'utf8'))
        .flatMap((d) => (d.toJS() as { spec: { cases: { request: { url: string } }[] } }).spec.cases)
        // A domain with a port (shop.localhost:8080) is tested by a URL with that port.
        .flatMap((c) => [new URL(c.request.url).hostname, new URL(c.request.url).host]),
    );
    expect(domains.filter((d) => !tested.has(d))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failing case exits 1 and shows the explanation; compile emits nothing for RequestTest documents', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-test-'));
  try {
    cpSync('examples', dir, { recursive: true });
    rmSync(path.join(dir, 'tests.yaml'));
    const { stdout: without } = await sluice('compile', '-f', dir);
    writeFileSync(
      path.join(dir, 'tests.yaml'),
      `apiVersion: test.gateway.example/v1
kind: RequestTest
metadata: { name: wrong }
spec:
  cases:
    - name: pets without a token
      request: { method: GET, url: http://rbac.example.com/api/pets }
      expect: { status: 200 }
`,
    );
    const { stdout: withTests } = await sluice('compile', '-f', dir);
    expect(withTests).toBe(without);
    const { code, stdout } = await sluice('test', '-f', dir);
    expect(code).toBe(1);
    expect(stdout).toContain('FAIL        pets without a token');
    expect(stdout).toContain('status: expected 200, got 401 "Jwt is missing"');
    expect(stdout).toContain('| answer: 401 "Jwt is missing" from envoy.filters.http.jwt_authn');

    writeFileSync(
      path.join(dir, 'tests.yaml'),
      'apiVersion: test.gateway.example/v1\nkind: RequestTest\nmetadata: { name: typo }\nspec:\n  cases:\n    - request: { method: GET, url: http://x/ }\n      expext: { status: 200 }\n',
    );
    const invalid = await sluice('validate', '-f', dir);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('expext');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sluice explain: text ends with the answer; --output json; without Gateways every --proxy is served the default gateway', async () => {
  const text = await sluice(
    'explain',
    '-f',
    'examples',
    'DELETE',
    'http://rbac.example.com/api/pets/1',
    '--claims',
    '{"role":"reader"}',
  );
  expect(text.code).toBe(0);
  expect(text.stdout.trimEnd().split('\n').at(-1)).toBe(
    'answer: 403 "RBAC: access denied" from envoy.filters.http.rbac',
  );

  const json = await sluice(
    'explain',
    '-f',
    'examples',
    '--proxy',
    'edge',
    '--output',
    'json',
    'GET',
    'http://petstore.example.com/api/pets',
  );
  const e = JSON.parse(json.stdout);
  expect(e.answer).toMatchObject({ status: 'upstream', by: 'default-petstore-8080', assumptions: [] });
  expect(e.proxy).toBe('edge');
  expect(e.steps[0]).toMatchObject({ stage: 'listener' });

  const bad = await sluice('explain', '-f', 'examples', 'GET', 'petstore.example.com/');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('is not an http:// or https:// URL');
});
