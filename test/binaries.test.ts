/**
 * What every binary does the same way, each run as a user runs it (bin/*.js,
 * built by the test setup): `--bind` on 127.0.0.1 by default, a port in use
 * (one line naming the flag, exit 1), the health bodies of the admin port, and
 * SIGTERM (a shutdown line, exit 0).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { childOutput, type ChildOutput } from '../harness/child-output.js';
import { tempDir } from '../harness/temp-dir.js';

interface Binary {
  name: string;
  /** The command line up to the port flags. */
  args: string[];
  /** The flags of its two ports: the served one, then the admin one. */
  ports: [string, string];
  /** Its ports, from the line it logs once listening. */
  listening(entry: Record<string, unknown>): { adminPort: number } | undefined;
}

function emptySet(list = 'resources'): string {
  const file = path.join(tempDir('binaries'), 'config.json');
  writeFileSync(file, `{"${list}": []}\n`);
  return file;
}

const sidecarListening = (msg: string) => (e: Record<string, unknown>) =>
  e.msg === msg ? { adminPort: e.adminPort as number } : undefined;

const BINARIES: Binary[] = [
  {
    name: 'sluice serve',
    args: ['bin/sluice.js', 'serve', '-f', 'golden/single-route/input'],
    ports: ['--xds-port', '--admin-port'],
    listening: (e) =>
      e.msg === 'sluice serve listening' ? { adminPort: Number(String(e.admin).split(':').pop()) } : undefined,
  },
  {
    name: 'sluice-extauth',
    args: ['bin/sluice-extauth.js', '--config', emptySet()],
    ports: ['--port', '--admin-port'],
    listening: sidecarListening('sluice-extauth listening'),
  },
  {
    name: 'sluice-graphql',
    args: ['bin/sluice-graphql.js', '--config', emptySet()],
    ports: ['--port', '--admin-port'],
    listening: sidecarListening('sluice-graphql listening'),
  },
  {
    name: 'sluice-ratelimit',
    args: ['bin/sluice-ratelimit.js', '--config', emptySet('domains')],
    ports: ['--port', '--admin-port'],
    listening: sidecarListening('sluice-ratelimit listening'),
  },
];

/** A loopback port held open by the test. */
async function heldPort(): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Runs `args`; resolves with the child and the first log entry `found` accepts (the child's JSON log on stdout). */
async function started<T>(
  args: string[],
  found: (e: Record<string, unknown>) => T | undefined,
): Promise<{ child: ChildProcess; found: T; log: Record<string, unknown>[]; output: ChildOutput }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const log: Record<string, unknown>[] = [];
  const lines = createInterface({ input: child.stdout! });
  const output = childOutput(child);
  const result = await new Promise<T>((resolve, reject) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      log.push(entry);
      const f = found(entry);
      if (f !== undefined) resolve(f);
    });
    void output.ended.then(({ code, stderr }) => reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`)));
  });
  return { child, found: result, log, output };
}

describe.each(BINARIES)('$name', (binary) => {
  test('--bind defaults to 127.0.0.1 (help)', () => {
    const help = spawnSync(
      process.execPath,
      [...binary.args.slice(0, binary.name === 'sluice serve' ? 2 : 1), '--help'],
      { encoding: 'utf8' },
    );
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '--bind <host> address both ports bind to (0.0.0.0 to serve other hosts or containers) (default: "127.0.0.1")',
    );
    expect(help.stdout).not.toContain('--host');
  });

  test.each([0, 1])('a port in use (flag %#): one line naming the flag and what to do, exit 1', async (which) => {
    const held = await heldPort();
    try {
      const port = (held.address() as net.AddressInfo).port;
      const flag = binary.ports[which]!;
      const ports = binary.ports.flatMap((f) => [f, f === flag ? String(port) : '0']);
      const { code, stderr } = await childOutput(
        spawn(process.execPath, [...binary.args, ...ports], { stdio: ['ignore', 'pipe', 'pipe'] }),
      ).ended;
      expect(stderr).toBe(
        `${binary.name}: ${flag} ${port}: 127.0.0.1:${port} is already in use by another process; stop that process, or give ${flag} another port\n`,
      );
      expect(code).toBe(1);
    } finally {
      held.close();
    }
  });

  test('/healthz {"status":"ok"}, /readyz {"status":"ready"}; SIGTERM logs its shutdown and exits 0', async () => {
    const { child, found, log, output } = await started(
      [...binary.args, ...binary.ports.flatMap((f) => [f, '0'])],
      binary.listening,
    );
    try {
      const admin = `http://127.0.0.1:${found.adminPort}`;
      const healthz = await fetch(`${admin}/healthz`);
      expect([healthz.status, await healthz.json()]).toEqual([200, { status: 'ok' }]);
      const readyz = await fetch(`${admin}/readyz`);
      expect(readyz.status).toBe(200);
      expect(await readyz.json()).toMatchObject({ status: 'ready' });
      child.kill('SIGTERM');
      expect((await output.ended).code).toBe(0);
      expect(log.filter((e) => String(e.msg).startsWith('shutting down')).map((e) => e.signal)).toEqual(['SIGTERM']);
      expect(log.at(-1)?.msg).toBe('stopped');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

test('/readyz before a configuration: 503 {"status": "<why not>"} on every binary', async () => {
  const closed = await heldPort();
  const xds = `127.0.0.1:${(closed.address() as net.AddressInfo).port}`;
  closed.close();
  const cases: [
    string[],
    (e: Record<string, unknown>) => { adminPort: number } | undefined,
    Record<string, unknown>,
  ][] = [
    [
      ['bin/sluice.js', 'serve', '-f', 'golden/error-references/input', '--xds-port', '0', '--admin-port', '0'],
      BINARIES[0]!.listening,
      {
        status: 'not ready: the inputs have not compiled yet',
        errors: expect.arrayContaining([expect.stringContaining('error[resolve]')]),
      },
    ],
    [
      ['bin/sluice-extauth.js', '--xds', xds, '--port', '0', '--admin-port', '0'],
      BINARIES[1]!.listening,
      { status: 'not ready: no configuration from the control plane yet' },
    ],
    [
      ['bin/sluice-graphql.js', '--xds', xds, '--port', '0', '--admin-port', '0'],
      BINARIES[2]!.listening,
      { status: 'not ready: no configuration from the control plane yet' },
    ],
    [
      ['bin/sluice-ratelimit.js', '--xds', xds, '--port', '0', '--admin-port', '0'],
      BINARIES[3]!.listening,
      { status: 'not ready: no configuration from the control plane yet', redis: expect.any(String) },
    ],
  ];
  for (const [args, listening, body] of cases) {
    const { child, found } = await started(args, listening);
    try {
      const readyz = await fetch(`http://127.0.0.1:${found.adminPort}/readyz`);
      expect([args[0], readyz.status, await readyz.json()]).toEqual([args[0], 503, body]);
    } finally {
      child.kill('SIGKILL');
    }
  }
});

test('sluice-extauth --host still works, with a warning to use --bind', async () => {
  const { child, found, output } = await started(
    ['bin/sluice-extauth.js', '--config', emptySet(), '--host', '127.0.0.1', '--port', '0', '--admin-port', '0'],
    BINARIES[1]!.listening,
  );
  try {
    expect((await fetch(`http://127.0.0.1:${found.adminPort}/healthz`)).status).toBe(200);
  } finally {
    child.kill('SIGKILL');
  }
  expect((await output.ended).stderr).toBe('sluice-extauth: --host is deprecated; use --bind (the same address)\n');
});
