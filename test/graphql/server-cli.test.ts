/** The `sluice-graphql` binary (dist/, built by the test setup): flags, start-up errors, serving and SIGTERM. */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { tempDir } from '../../harness/temp-dir.js';

const BIN = path.resolve('bin/sluice-graphql.js');

function configFile(resources: unknown[]): string {
  const file = path.join(tempDir('graphql-cli'), 'graphql.json');
  writeFileSync(file, JSON.stringify({ resources }));
  return file;
}

const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });

test('usage errors exit 2 with the reason', () => {
  const both = run('--config', 'x.json', '--xds', '127.0.0.1:18000');
  expect(both.status).toBe(2);
  expect(both.stderr).toContain('give exactly one of --config FILE and --xds HOST:PORT');
  const depth = run('--config', 'x.json', '--max-depth', '0');
  expect(depth.status).toBe(2);
  expect(depth.stderr).toContain("option '--max-depth <n>' argument '0' is invalid. not an integer from 1 to 1000");
  expect(run('--version').stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
});

test('a configuration that does not build stops the start (exit 1) with the API and field', () => {
  const file = configFile([{ name: 'default.bad', executable: { schema_definition: 'type Query { a: Nope }' } }]);
  const res = run('--config', file, '--port', '0', '--admin-port', '0');
  expect(res.status).toBe(1);
  expect(res.stderr).toContain(
    'sluice-graphql: GraphQLApi default.bad: executable.schema_definition: Unknown type "Nope".',
  );
});

test('serves the file, and on SIGTERM finishes and exits 0', async () => {
  const file = configFile([
    { name: 'default.hello', executable: { schema_definition: 'type Query { hello: String }' } },
  ]);
  const child = spawn(process.execPath, [BIN, '--config', file, '--port', '0', '--admin-port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  try {
    let listening: { port: number; adminPort: number } | undefined;
    for await (const line of createInterface({ input: child.stdout! })) {
      const entry = JSON.parse(line) as { msg: string; port: number; adminPort: number };
      if (entry.msg === 'sluice-graphql listening') {
        listening = entry;
        break;
      }
    }
    expect(listening).toBeDefined();
    const res = await fetch(`http://127.0.0.1:${listening!.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sluice-graphql-api': 'default.hello' },
      body: JSON.stringify({ query: '{ hello }' }),
    });
    expect(await res.json()).toEqual({ data: { hello: null } });
    expect((await fetch(`http://127.0.0.1:${listening!.adminPort}/readyz`)).status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
});
