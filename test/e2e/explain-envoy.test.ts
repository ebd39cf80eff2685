/**
 * explain against a real Envoy: the request tables of test/explain/tables.ts
 * (every JWT, RBAC and CSRF answer of docs/envoy-behaviour.md) sent to Envoy on the
 * same compiled configuration, each answer compared with explain's. Runs when
 * ENVOY_BIN or `envoy` on PATH exists; otherwise says so and skips.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { staticBootstrap } from '../../compiler/emit/bootstrap.js';
import { serialize } from '../../compiler/emit/write.js';
import { fromCompileResult } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { credentialHeaders } from '../../compiler/explain/request.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS, type CompileOptions } from '../../compiler/translate/output.js';
import { compileYaml, csrfCases, jwtRbacCases, makeKeys, resources } from '../explain/tables.js';
import { closedPort } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/explain-envoy.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

/** The echo upstream marks its answers, so an upstream answer is told from Envoy's own. */
const UPSTREAM_MARK = 'x-from-upstream';

function send(
  port: number,
  url: string,
  method: string,
  headers: [string, string][],
): Promise<{ status: number | 'upstream'; body: string }> {
  const u = /^http:\/\/([^/]+)(.*)$/.exec(url)!;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path: u[2], headers: { host: u[1], ...Object.fromEntries(headers) } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () =>
          resolve(
            res.headers[UPSTREAM_MARK] ? { status: 'upstream', body: '' } : { status: res.statusCode ?? 0, body },
          ),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describeWithEnvoy('Envoy answers every request of the tables as explain says it will', () => {
  let dir: string;
  let envoy: RunningEnvoy | undefined;
  const servers: Server[] = [];

  afterAll(async () => {
    await envoy?.stop();
    for (const s of servers) s.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('each case: Envoy and explain give the same status and body', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-explain-'));
    const keys = await makeKeys();
    const echo = createServer((_req, res) => res.setHeader(UPSTREAM_MARK, '1').end('upstream'));
    const jwks = createServer((_req, res) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify(keys.remoteJwks)),
    );
    servers.push(echo, jwks);
    for (const s of servers) {
      s.listen(0, '127.0.0.1');
      await once(s, 'listening');
    }
    const ports = { echo: (echo.address() as AddressInfo).port, jwks: (jwks.address() as AddressInfo).port };
    const options: CompileOptions = {
      ...DEFAULT_OPTIONS,
      listenerAddress: '127.0.0.1',
      listenerPort: await closedPort(),
      adminPort: await closedPort(),
    };
    writeFileSync(path.join(dir, 'resources.yaml'), resources(keys, ports));
    const result = await compileFiles([path.join(dir, 'resources.yaml')], options);
    const config = fromCompileResult(result)!;
    writeFileSync(path.join(dir, 'envoy.yaml'), serialize(staticBootstrap(result.xds!, options), 'yaml'));
    envoy = await startEnvoy(ENVOY!, path.join(dir, 'envoy.yaml'), options.adminPort);

    const differences: string[] = [];
    for (const c of [...(await jwtRbacCases(keys)), ...csrfCases()]) {
      const headers = [...credentialHeaders(c.request.user, c.request.jwt), ...Object.entries(c.request.headers ?? {})];
      const said = (
        await explain(config, { method: c.request.method, url: c.request.url, headers }, { fetchJwks: true })
      ).answer;
      const got = await send(options.listenerPort, c.request.url, c.request.method, headers);
      const expected = { status: said.status, body: said.status === 'upstream' ? '' : (said.body ?? '') };
      if (JSON.stringify(got) !== JSON.stringify(expected))
        differences.push(`${c.name}: Envoy ${JSON.stringify(got)}, explain ${JSON.stringify(expected)}`);
    }
    expect(differences).toEqual([]);
  }, 120_000);
});

test('the compared configuration compiles and explain reads it (with or without Envoy)', async () => {
  const keys = await makeKeys();
  const config = await compileYaml(resources(keys, { echo: 1, jwks: 2 }));
  expect(config.listeners).toHaveLength(1);
  expect((await jwtRbacCases(keys)).length).toBeGreaterThan(40);
});
