/**
 * opaServerAuth against a real Open Policy Agent server, when an `opa`
 * binary is on PATH: the policy below evaluated by OPA itself, asked by
 * sluice-extauth through OPA's Data API, from a compiled AuthConfig. No
 * registry here carries OPA, so without it these tests are skipped (and
 * say so); ./kinds.test.ts covers the protocol with a double of the Data API.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { RunningExtauth } from '../../extauth-server/server.js';
import { tempDir } from '../../harness/temp-dir.js';
import { closedPort, compileConfig, httpStatus, startSidecar, type Checker } from './helpers.js';

const hasOpa = spawnSync('opa', ['version'], { stdio: 'ignore' }).status === 0;
if (!hasOpa)
  console.warn(
    'opa is not on PATH: the tests against a real OPA server are skipped (kinds.test.ts checks the Data API protocol with a double)',
  );

// Gloo's input: http_request is the CheckRequest's attributes.request.http.
const POLICY = `package envoy.authz

import rego.v1

default allow := false

allow if {
  input.http_request.method == "GET"
  input.http_request.headers["x-team"] == "blue"
}
`;

let opa: ChildProcess;
let server: RunningExtauth;
let check: Checker;

async function waitForOpa(port: number): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

(hasOpa ? describe : describe.skip)('opaServerAuth against a real opa (needs opa on PATH)', () => {
  beforeAll(async () => {
    const dir = tempDir('opa');
    await writeFile(path.join(dir, 'policy.rego'), POLICY);
    const port = await closedPort();
    opa = spawn('opa', ['run', '--server', '--addr', `127.0.0.1:${port}`, path.join(dir, 'policy.rego')], {
      stdio: 'ignore',
    });
    await waitForOpa(port);
    const authConfig = {
      apiVersion: 'enterprise.gloo.solo.io/v1',
      kind: 'AuthConfig',
      metadata: { name: 'opa', namespace: 'default' },
      spec: {
        configs: [{ opaServerAuth: { serverAddr: `127.0.0.1:${port}`, package: 'envoy.authz', ruleName: 'allow' } }],
      },
    };
    ({ sidecar: server, check } = await startSidecar(await compileConfig(stringify(authConfig))));
  });

  afterAll(async () => {
    check?.close();
    await server?.close();
    opa?.kill();
  });

  test("OPA's own evaluation decides: x-team: blue allowed, anything else 403", async () => {
    expect(httpStatus(await check('default.opa', { 'x-team': 'blue' }))).toBe(200);
    expect(httpStatus(await check('default.opa', { 'x-team': 'red' }))).toBe(403);
    expect(httpStatus(await check('default.opa', {}))).toBe(403);
  });
});
