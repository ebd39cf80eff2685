/**
 * Gloo-style manifests, written as Gloo's documentation writes them (Gloo's
 * API groups, discovered Upstreams in gloo-system, `kubectl get -o yaml`
 * exports), through the real `sluice compile` binary, unchanged.
 */
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { GLOO_API_ALIASES } from '../../compiler/kinds/index.js';
import { tempDir } from '../../harness/temp-dir.js';

const run = promisify(execFile);
const MANIFESTS = ['golden/gloo-docs-manifests/input', 'golden/gloo-kubectl-export/input'];

async function sluice(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/sluice.js', ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Every output file of `compile -o`, by name. */
async function compileTo(inputs: string[], ...flags: string[]): Promise<Record<string, string>> {
  const out = tempDir('gloo');
  const { code, stderr } = await sluice('compile', ...inputs.flatMap((i) => ['-f', i]), '-o', out, ...flags);
  expect(stderr).toMatch(/^compiled /);
  expect(code).toBe(0);
  return Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(path.join(out, f), 'utf8')]));
}

test("Gloo's manifests compile unchanged, with Gloo's control plane namespace", async () => {
  const files = await compileTo(MANIFESTS, '--namespace', 'gloo-system');
  const clusters = parse(files['envoy.yaml']).static_resources.clusters.map((c: { name: string }) => c.name);
  // The discovered Upstreams are found in gloo-system, as Gloo's docs name them.
  expect(clusters).toEqual(
    expect.arrayContaining(['default-petstore-8080', 'default-users-80', 'json-upstream', 'petstore']),
  );
  expect(JSON.parse(files['extauth.json']).resources).toHaveLength(1);
});

test("the same manifests under Sluice's API groups give byte-identical output", async () => {
  const ours = tempDir('gloo-ours');
  let rewritten = 0;
  for (const [i, dir] of MANIFESTS.entries()) {
    cpSync(dir, path.join(ours, String(i)), { recursive: true });
    for (const file of readdirSync(path.join(ours, String(i)))) {
      const at = path.join(ours, String(i), file);
      let text = readFileSync(at, 'utf8');
      for (const [gloo, own] of Object.entries(GLOO_API_ALIASES)) {
        const replaced = text.replaceAll(`apiVersion: ${gloo}\n`, `apiVersion: ${own}\n`);
        if (replaced !== text) rewritten++;
        text = replaced;
      }
      writeFileSync(at, text);
    }
  }
  expect(rewritten).toBeGreaterThanOrEqual(4);
  const gloo = await compileTo(MANIFESTS, '--namespace', 'gloo-system');
  const own = await compileTo([path.join(ours, '0'), path.join(ours, '1')], '--namespace', 'gloo-system');
  expect(own).toEqual(gloo);
});

test('a Gloo manifest with an unimplemented field fails naming it, exit 1, nothing written', async () => {
  const { code, stderr } = await sluice('compile', '-f', 'golden/gloo-error-unsupported/input');
  expect(code).toBe(1);
  expect(stderr).toContain(
    'spec.virtualHost.routes[3].options.stagedTransformations: "stagedTransformations" is not supported',
  );
  expect(stderr).not.toMatch(/add prefix|add single|add ldap|exactly one of/);
  expect(stderr).toMatch(/\d+ errors; nothing was written\n$/);
});
