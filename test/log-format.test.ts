/**
 * The binaries' log format: JSON lines for a log collector when stdout is a
 * pipe or a file, human lines when it is a terminal, `--log-format` to choose.
 * The terminal case runs the binary under util-linux `script`, which gives it
 * a real pseudo-terminal as stdout.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { childOutput } from '../harness/child-output.js';
import { logLine } from '../harness/log-check.js';
import { tempDir } from '../harness/temp-dir.js';

const GRAPHQL = path.resolve('bin/sluice-graphql.js');
const SLUICE = path.resolve('bin/sluice.js');
const PRETTY_LINE =
  /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(sluice-graphql\): sluice-graphql listening \{"port":\d+,"adminPort":\d+,"source":".+"\}$/m;
const ANSI_COLOUR = /\x1b\[\d+m/;

function graphqlConfig(): string {
  const file = path.join(tempDir('log-format'), 'graphql.json');
  writeFileSync(
    file,
    JSON.stringify({
      resources: [{ name: 'default.hello', executable: { schema_definition: 'type Query { hello: String }' } }],
    }),
  );
  return file;
}

/** Runs `command` until its stdout shows `until`, then stops it; everything it printed. */
async function outputUntil(
  command: string,
  args: string[],
  until: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output = childOutput(child);
  try {
    await new Promise<void>((resolve, reject) => {
      const look = () => (until.test(output.stdout()) ? resolve() : undefined);
      child.stdout!.on('data', look);
      child.on('close', (code) =>
        reject(new Error(`${command} ended (${code}) before printing ${until}:\n${output.stdout()}${output.stderr()}`)),
      );
    });
  } finally {
    child.kill('SIGTERM');
  }
  return (await output.ended).stdout;
}

const graphqlArgs = (...more: string[]) => [
  GRAPHQL,
  '--config',
  graphqlConfig(),
  '--port',
  '0',
  '--admin-port',
  '0',
  ...more,
];

test('JSON lines by default when stdout is not a terminal, with no key written twice', async () => {
  const stdout = await outputUntil(process.execPath, graphqlArgs(), /sluice-graphql listening/);
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => logLine<{ name: string; msg: string }>(line));
  expect(lines.map((l) => l.msg)).toContain('sluice-graphql listening');
  expect(lines.every((l) => l.name === 'sluice-graphql')).toBe(true);
});

test('--log-format pretty gives one human line per entry, uncoloured when stdout is not a terminal', async () => {
  const stdout = await outputUntil(process.execPath, graphqlArgs('--log-format', 'pretty'), PRETTY_LINE);
  expect(stdout).toMatch(PRETTY_LINE);
  expect(stdout).not.toMatch(ANSI_COLOUR);
  expect(stdout).not.toMatch(/^\{/m);
});

const hasScript = spawnSync('script', ['--version']).status === 0;
(hasScript ? test : test.skip)(
  'pretty and coloured by default on a terminal, JSON there with --log-format json (needs util-linux script)',
  async () => {
    const quoted = (args: string[]) => [process.execPath, ...args].map((a) => `'${a}'`).join(' ');
    const env = { ...process.env };
    delete env.NO_COLOR;
    const onTerminal = await outputUntil(
      'script',
      ['-qec', quoted(graphqlArgs()), '/dev/null'],
      /sluice-graphql listening/,
      env,
    );
    expect(onTerminal.replace(/\x1b\[\d+m/g, '').replace(/\r/g, '')).toMatch(PRETTY_LINE);
    expect(onTerminal).toMatch(ANSI_COLOUR);

    const asked = await outputUntil(
      'script',
      ['-qec', quoted(graphqlArgs('--log-format', 'json')), '/dev/null'],
      /sluice-graphql listening/,
      env,
    );
    expect(asked).toMatch(/^\{"level":30,.*"msg":"sluice-graphql listening"\}\r?$/m);
  },
);

test('every binary takes --log-format and refuses a format it does not know', () => {
  for (const args of [[GRAPHQL], [path.resolve('bin/sluice-extauth.js')], [SLUICE, 'serve']]) {
    const res = spawnSync(process.execPath, [...args, '--log-format', 'xml'], { encoding: 'utf8' });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain(
      "option '--log-format <format>' argument 'xml' is invalid. Allowed choices are pretty, json.",
    );
  }
});

test('sluice serve logs pretty lines when asked', async () => {
  const stdout = await outputUntil(
    process.execPath,
    [SLUICE, 'serve', '-f', path.resolve('examples'), '--xds-port', '0', '--admin-port', '0', '--log-format', 'pretty'],
    /INFO \(sluice-serve\)/,
  );
  expect(stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(sluice-serve\): /m);
});
