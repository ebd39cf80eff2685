/**
 * sluice-extauth (its ADS client, runtime/ads-client.ts) against the real
 * `sluice serve` binary, killed and started: the sidecar keeps the last
 * configuration it got when serve dies, and a sidecar started before serve
 * gets its first configuration once serve starts. Real slapd; no timing
 * assertions (each wait is bounded by the test's timeout).
 */
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, type Slapd } from '../../harness/slapd.js';
import { basic } from '../../harness/extauth-check.js';
import { checker, closedPort, httpStatus, memoryLogger, until, type Checker } from '../extauth/helpers.js';
import { authInputs, CONFIG_REF, startServeProcess, type ServeProcess } from './serve.js';

const alice = { authorization: basic('alice', 'alice-pw') };
const bob = { authorization: basic('bob', 'bob-pw') };

let slapd: Slapd;
let serve: ServeProcess | undefined;
let sidecar: RunningExtauth | undefined;
let check: Checker | undefined;

beforeAll(async () => {
  slapd = await startSlapd();
});

afterEach(async () => {
  check?.close();
  await sidecar?.close();
  await serve?.kill('SIGKILL');
  check = sidecar = serve = undefined;
});

afterAll(async () => {
  await slapd?.close();
});

async function startSidecar(xdsPort: number) {
  const log = memoryLogger();
  sidecar = await startExtauth({
    xds: `127.0.0.1:${xdsPort}`,
    nodeId: 'extauth-faults',
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    logger: log.logger,
  });
  check = checker(sidecar.port);
  return { log, check };
}

/** Resolves once a Check of alice is allowed: the configuration has arrived. */
async function configured(c: Checker): Promise<void> {
  for (;;) if (httpStatus(await c(CONFIG_REF, alice)) === 200) return;
}

test('serve killed: the sidecar keeps its last configuration and keeps deciding', async () => {
  serve = await startServeProcess(authInputs(slapd.url));
  const { log, check: c } = await startSidecar(serve.xdsPort);
  await configured(c);
  await serve.kill('SIGKILL');
  // Once the sidecar has seen its stream fail, the decisions are still made with the configuration it had.
  await until(() => log.text().includes('xDS stream failed') || log.text().includes('cannot reach the xDS server'));
  expect(httpStatus(await c(CONFIG_REF, alice))).toBe(200);
  expect(httpStatus(await c(CONFIG_REF, bob))).toBe(403);
  expect(httpStatus(await c(CONFIG_REF, { authorization: basic('alice', 'wrong') }))).toBe(401);
  expect((await fetch(`http://127.0.0.1:${sidecar!.adminPort}/readyz`)).status).toBe(200);
});

test('the sidecar started before serve: fails closed, then gets its first configuration once serve starts', async () => {
  const port = await closedPort();
  const { check: c } = await startSidecar(port);
  const before = httpStatus(await c(CONFIG_REF, alice));
  expect(before).toBeGreaterThanOrEqual(500);
  expect((await fetch(`http://127.0.0.1:${sidecar!.adminPort}/readyz`)).status).toBe(503);
  serve = await startServeProcess(authInputs(slapd.url), port);
  await configured(c);
  expect(httpStatus(await c(CONFIG_REF, bob))).toBe(403);
  expect((await fetch(`http://127.0.0.1:${sidecar!.adminPort}/readyz`)).status).toBe(200);
});
