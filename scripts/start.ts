/**
 * `npm start`: the whole gateway on loopback, one log stream per component.
 *
 * Starts the example upstreams (examples/services: echo, petstore, the user
 * and product gRPC services, the JWKS file server), a slapd seeded with the
 * example directory when slapd is installed, `sluice serve` on examples/
 * plus the loopback overlay of scripts/start-local.ts, sluice-extauth,
 * sluice-graphql and sluice-ratelimit fed by it over xDS (with Redis when
 * redis-server is installed), and Envoy on the `sluice bootstrap`
 * output when there is an Envoy binary (ENVOY_BIN or envoy on PATH). Then
 * prints a curl command per scenario with the answer to expect (without
 * Envoy, the `sluice explain` command that gives that answer). Each step
 * that takes a while says so first. Ctrl-C stops everything, last started
 * first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, watch, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { serveEnvironment } from '../control-plane/memory.js';
import { findEnvoy } from '../harness/envoy.js';
import { ENVOY_IMAGE, servicePortKey, syncCopy, writeLocalResources } from './start-local.js';
import { curl, describeExpected, explainAnswer, explainCommand, SCENARIOS } from './start-scenarios.js';
import { startExampleDirectory } from './start-directory.js';
import { startLocalRedis } from './start-redis.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = path.join(ROOT, 'out', 'local');
const LOOPBACK = '127.0.0.1';

/** The ports a user types or reads; everything else takes a free port. */
const PORTS = {
  listener: 8080,
  envoyAdmin: 19000,
  xds: 18000,
  serveAdmin: 9901,
  extauth: 8083,
  extauthAdmin: 8093,
  graphql: 8084,
  graphqlAdmin: 8094,
  ratelimit: 8085,
  ratelimitAdmin: 8095,
  /** The example directory, where scripts/dev-slapd.sh puts it too: `sluice explain|test --ldap-address` name it. */
  ldap: 3389,
};

/** A line of npm start's own, in the column of the components' logs. */
const say = (message: string) => console.log(`${'start'.padEnd(9)}| ${message}`);

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** A pino JSON line as `LEVEL message key=value ...`; any other line as it is. */
function readable(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const {
      level,
      msg,
      time: _time,
      pid: _pid,
      hostname: _hostname,
      ...rest
    } = JSON.parse(line) as Record<string, unknown>;
    const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    return [LEVELS[level as number] ?? String(level), msg, ...fields]
      .filter((x) => x !== undefined && x !== '')
      .join(' ');
  } catch {
    return line;
  }
}

interface Component {
  name: string;
  child: ChildProcess;
}

class Stack {
  private readonly components: Component[] = [];
  /** In-process parts (the directory), stopped last. */
  private readonly closers: (() => Promise<void>)[] = [];
  private stopping = false;
  private readonly width = 9;

  constructor(private readonly onUnexpectedExit: (name: string, code: number | null) => void) {}

  /** Starts a program with its output prefixed by `name`; `onLine` sees each output line. */
  start(name: string, command: string, args: string[], onLine?: (line: string) => void): ChildProcess {
    // Its own process group: Ctrl-C reaches this script only, which stops the components in order.
    // The malloc setting serve runs with (a value already in the environment wins).
    const child = spawn(command, args, {
      cwd: ROOT,
      env: serveEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const prefix = `${name.padEnd(this.width)}| `;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        process.stdout.write(`${prefix}${readable(line)}\n`);
        onLine?.(line);
      });
    }
    child.on('error', (err) => process.stdout.write(`${prefix}could not start ${command}: ${err.message}\n`));
    child.on('exit', (code, signal) => {
      if (!this.stopping) this.onUnexpectedExit(name, code ?? (signal ? 128 : null));
    });
    this.components.push({ name, child });
    return child;
  }

  /** Starts a program that prints `... listening on <scheme>://host:PORT` and resolves with that port. */
  async startListening(name: string, script: string, args: string[]): Promise<number> {
    return new Promise((resolve, reject) => {
      const child = this.start(name, process.execPath, [path.join(ROOT, 'dist', script), ...args], (line) => {
        const m = / listening on \w+:\/\/[^\s]+:(\d+)$/.exec(line);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it listened`)));
    });
  }

  onStop(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const { child } of [...this.components].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    for (const close of this.closers) await close().catch(() => undefined);
  }

  /** Last resort when this process exits: nothing is left running. */
  killAll(): void {
    for (const { child } of this.components)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, LOOPBACK, () => server.close(() => resolve(true)));
  });
}

/** Polls `url` until it answers 200; false after `ms`. */
async function until200(url: string, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

function node(script: string, ...args: string[]): [string, string[]] {
  return [process.execPath, [path.join(ROOT, script), ...args]];
}

async function main(): Promise<void> {
  const busy = [];
  for (const [what, port] of Object.entries(PORTS)) if (!(await portFree(port))) busy.push(`${port} (${what})`);
  if (busy.length) {
    console.error(
      `npm start: ports in use on ${LOOPBACK}: ${busy.join(', ')}. Stop what uses them (an earlier npm start or docker compose up?) and run it again.`,
    );
    process.exit(1);
  }
  mkdirSync(OUT, { recursive: true });

  let failed = false;
  const stack = new Stack((name, code) => {
    if (failed) return;
    failed = true;
    console.error(`\n${name} exited (${code}); see its log above. Stopping everything.`);
    void stack.stop().then(() => process.exit(1));
  });
  process.on('exit', () => stack.killAll());
  const shutdown = () => {
    console.log('\nstopping...');
    void stack.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  // The example upstreams, each on a free loopback port.
  say('starting the example upstreams (echo, petstore, jwks, the users and products gRPC services)...');
  const services = new Map<string, number>();
  const echo = await stack.startListening('echo', 'examples/services/echo.js', ['--name', 'echo']);
  const petstore = await stack.startListening('petstore', 'examples/services/echo.js', ['--name', 'petstore']);
  const jwks = await stack.startListening('jwks', 'examples/services/files.js', [
    '--root',
    path.join(ROOT, 'deploy/jwks'),
    '--name',
    'jwks',
  ]);
  const users = await stack.startListening('users', 'examples/services/grpc.js', ['--service', 'users']);
  const products = await stack.startListening('products', 'examples/services/grpc.js', ['--service', 'products']);
  services.set(servicePortKey('default', 'echo', 8080), echo);
  services.set(servicePortKey('default', 'petstore', 8080), petstore);
  services.set(servicePortKey('default', 'jwks', 8000), jwks);
  services.set(servicePortKey('default', 'user-service', 50051), users);
  services.set(servicePortKey('default', 'product-service', 50051), products);

  say(`starting slapd with the example directory on ${LOOPBACK}:${PORTS.ldap}...`);
  const directory = await startExampleDirectory(ROOT, PORTS.ldap);
  stack.onStop(() => directory.close());
  console.log(
    directory.running
      ? `${'slapd'.padEnd(9)}| listening on ${directory.address} (deploy/ldap/bootstrap.ldif)`
      : `${'slapd'.padEnd(9)}| not running: the LDAP scenarios answer 503; ${directory.hint}`,
  );
  const local = await writeLocalResources(path.join(ROOT, 'examples'), OUT, {
    services,
    ldapAddress: directory.address,
  });
  if (local.unserved.length)
    console.log(`note: no local program for the Services ${local.unserved.join(', ')}: routes to them answer 503`);
  for (const [original, copy] of local.copies) {
    watch(original, () => void syncCopy(original, copy, directory.address).catch(() => undefined));
  }

  say(`starting sluice serve on examples/ (xDS on ${LOOPBACK}:${PORTS.xds}); waiting for its first compile...`);
  stack.start(
    'serve',
    ...node(
      'bin/sluice.js',
      'serve',
      ...local.paths.flatMap((p) => ['-f', path.relative(ROOT, p)]),
      '--bind',
      LOOPBACK,
      '--xds-port',
      String(PORTS.xds),
      '--admin-port',
      String(PORTS.serveAdmin),
      '--listener-address',
      LOOPBACK,
      '--listener-port',
      String(PORTS.listener),
      '--extauth-address',
      `${LOOPBACK}:${PORTS.extauth}`,
      '--graphql-address',
      `${LOOPBACK}:${PORTS.graphql}`,
      '--ratelimit-address',
      `${LOOPBACK}:${PORTS.ratelimit}`,
    ),
  );
  if (!(await until200(`http://${LOOPBACK}:${PORTS.serveAdmin}/readyz`)))
    console.log(`serve is not ready: its errors are above and on http://${LOOPBACK}:${PORTS.serveAdmin}/status`);

  const xds = `${LOOPBACK}:${PORTS.xds}`;
  say('starting sluice-extauth and sluice-graphql; waiting for their first configuration from serve...');
  stack.start(
    'extauth',
    ...node(
      'bin/sluice-extauth.js',
      '--xds',
      xds,
      '--bind',
      LOOPBACK,
      '--port',
      String(PORTS.extauth),
      '--admin-port',
      String(PORTS.extauthAdmin),
    ),
  );
  stack.start(
    'graphql',
    ...node(
      'bin/sluice-graphql.js',
      '--xds',
      xds,
      '--bind',
      LOOPBACK,
      '--port',
      String(PORTS.graphql),
      '--admin-port',
      String(PORTS.graphqlAdmin),
    ),
  );
  await until200(`http://${LOOPBACK}:${PORTS.extauthAdmin}/readyz`);
  await until200(`http://${LOOPBACK}:${PORTS.graphqlAdmin}/readyz`);

  say('starting Redis and sluice-ratelimit (global rate limits), fed by serve...');
  const redis = await startLocalRedis();
  stack.onStop(() => redis.close());
  console.log(
    redis.running
      ? `${'redis'.padEnd(9)}| listening on ${redis.address}`
      : `${'redis'.padEnd(9)}| not running: global rate limits are not counted (sluice-ratelimit allows every request); ${redis.hint}`,
  );
  stack.start(
    'ratelimit',
    ...node(
      'bin/sluice-ratelimit.js',
      '--xds',
      xds,
      '--redis',
      redis.address,
      '--bind',
      LOOPBACK,
      '--port',
      String(PORTS.ratelimit),
      '--admin-port',
      String(PORTS.ratelimitAdmin),
    ),
  );

  const bootstrapArgs = [
    'bootstrap',
    '--xds-address',
    xds,
    '--node-id',
    'envoy-local',
    '--listener-port',
    String(PORTS.listener),
    '--envoy-admin-port',
    String(PORTS.envoyAdmin),
  ];
  const bootstrap = path.join(OUT, 'envoy.yaml');
  writeFileSync(bootstrap, await capture(process.execPath, [path.join(ROOT, 'bin/sluice.js'), ...bootstrapArgs]));
  const relBootstrap = path.relative(process.cwd(), bootstrap);

  const envoy = findEnvoy();
  const base = `http://${LOOPBACK}:${PORTS.listener}`;
  const lines: string[] = [''];
  if (envoy) {
    say(`starting Envoy (${envoy}); waiting until it is ready...`);
    stack.start('envoy', envoy, [
      '-c',
      bootstrap,
      '--concurrency',
      '1',
      '--disable-hot-restart',
      '--log-level',
      'warn',
    ]);
    const ready = await until200(`http://${LOOPBACK}:${PORTS.envoyAdmin}/ready`);
    lines.push(
      ready
        ? `== Envoy (${envoy}) listens on ${base}. Every scenario of examples/ (body, then status):`
        : '== Envoy is not ready yet (its log is above); once it is:',
    );
  } else {
    lines.push(
      '== No Envoy binary (set ENVOY_BIN, or put envoy on PATH, and run npm start again). Its bootstrap is ready:',
      `     envoy -c ${relBootstrap}`,
      `     docker run --rm --network host -v "$PWD/${relBootstrap}:/etc/envoy/envoy.yaml:ro" ${ENVOY_IMAGE} -c /etc/envoy/envoy.yaml`,
      `   and run npm start again: it then prints a curl for each scenario. Meanwhile \`sluice explain\` gives each answer`,
      `   from the configuration serve sends (the LDAP ones asking the directory on ${directory.address}):`,
    );
  }
  const targets = { overlay: path.relative(ROOT, local.overlay), ldapAddress: directory.address };
  for (const s of SCENARIOS) {
    lines.push('', `# ${s.file}: ${s.what} -> ${describeExpected(s.expect)}`);
    lines.push(...(envoy ? [curl(s, base)] : [explainCommand(s, targets), `#   ${explainAnswer(s)}`]));
  }
  lines.push(
    '',
    `# ldap-service-account.yaml: change the Secret's password in that file while this runs -> 500 on ldap-sa.example.com (serve pushes the edit)`,
  );
  if (!directory.running) lines.push(`# (no slapd: the LDAP scenarios answer 503; ${directory.hint})`);
  // explain does not count requests: the limit shows only through Envoy and sluice-ratelimit.
  lines.push(
    '',
    `# ratelimit.yaml: 3 requests a minute on ratelimit.example.com, counted by sluice-ratelimit in Redis -> 200 200 200 429${envoy ? '' : ' (through Envoy)'}`,
    `for i in 1 2 3 4; do curl -s -o /dev/null -w '%{http_code} ' -H 'host: ratelimit.example.com' ${base}/; done; echo`,
  );
  if (!envoy) {
    lines.push(
      '',
      '== Meanwhile, without Envoy: the sidecars and upstreams directly (the headers Envoy would add are given by hand)',
    );
    for (const s of SCENARIOS.filter((x) => x.graphql)) {
      lines.push(
        `curl -s -H 'x-sluice-graphql-api: ${s.graphql!.api}' -H 'content-type: application/json' http://${LOOPBACK}:${PORTS.graphql}/graphql -d '${JSON.stringify({ query: s.graphql!.query })}'`,
      );
    }
    lines.push(`curl -s http://${LOOPBACK}:${echo}/hello     # the echo upstream`);
    lines.push(
      `# sluice-extauth answers Envoy's ext_authz Check (gRPC) on ${LOOPBACK}:${PORTS.extauth}; the explain lines above ask the same directory`,
    );
    lines.push(`# every case of examples/tests.yaml: npx sluice test -f examples --ldap-address ${directory.address}`);
  }
  lines.push(
    '',
    `== status page: http://${LOOPBACK}:${PORTS.serveAdmin}/   (JSON: /status; problems, one per line: npx sluice check)`,
    `== GraphQL explorer (GraphiQL of default.shop-api, examples/graphql-stitched.yaml): open http://shop.localhost:${PORTS.listener}/graphql in a browser${envoy ? '' : ' once Envoy runs (it sets the API header the sidecar needs)'}`,
    `== control plane: http://${LOOPBACK}:${PORTS.serveAdmin}/status   edit examples/*.yaml and serve pushes the change. Ctrl-C stops everything.`,
    '',
  );
  console.log(lines.join('\n'));
}

function capture(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    // 'close', not 'exit': the output may still be in the pipe when the process has exited.
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

if (!existsSync(path.join(ROOT, 'dist', 'examples', 'services', 'echo.js'))) {
  console.error('npm start: dist/ is not built; run `npm start` (it builds first) or `npm run build`');
  process.exit(2);
}
await main().catch((err: Error) => {
  console.error(`npm start: ${err.message}`);
  process.exit(1);
});
