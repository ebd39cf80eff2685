/**
 * passThroughAuth.http's client settings against a real HTTP server on
 * 127.0.0.1: responseHeaderTimeout fails a service that takes the request
 * but sends no headers (503, well before connectionTimeout), and
 * connectionPool's maxConns and idleTimeout bound the connections the
 * sidecar keeps to it.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { writeConfig } from '../../harness/extauth-check.js';
import { testLogger } from '../../harness/log-check.js';
import { checker, httpStatus, until, type Checker } from './helpers.js';

let service: http.Server;
let base: string;
/** Responses held back by /silent, ended in afterAll. */
const silent: http.ServerResponse[] = [];
const sockets: Socket[] = [];
const closed = new Set<Socket>();
let sidecar: RunningExtauth;
let check: Checker;

const config = (name: string, url: string, extra: Record<string, unknown>) => ({
  name,
  configs: [{ pass_through_auth: { http: { url, ...extra } } }],
});

beforeAll(async () => {
  service = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/silent') return void silent.push(res);
    res.end();
  });
  service.on('connection', (s: Socket) => {
    sockets.push(s);
    s.on('close', () => closed.add(s));
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as { port: number }).port}`;
  const file = await writeConfig([
    // connectionTimeout is a minute: only responseHeaderTimeout can end the wait within the test's time.
    config('default.silent', `${base}/silent`, { timeout_ms: 60_000, response_header_timeout_ms: 200 }),
    config('default.one-connection', `${base}/one`, { connection_pool: { max_conns: 1 } }),
    config('default.short-idle', `${base}/idle`, { connection_pool: { idle_timeout_ms: 100 } }),
  ]);
  sidecar = await startExtauth({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'test',
    logger: testLogger(),
  });
  check = checker(sidecar.port);
});

afterAll(async () => {
  for (const res of silent) res.end();
  check?.close();
  await sidecar?.close();
  service.closeAllConnections();
  await new Promise((r) => service.close(r));
});

// The HTTP client checks header timeouts on a coarse clock (about a second); the test's own limit leaves room for a busy machine.
test('a service that sends no response headers within responseHeaderTimeout fails the check: 503', async () => {
  expect(httpStatus(await check('default.silent', {}))).toBe(503);
  expect(silent.length).toBe(1);
}, 30_000);

test('maxConns 1: concurrent checks share one connection, each allowed', async () => {
  const before = sockets.length;
  const answers = await Promise.all(Array.from({ length: 6 }, () => check('default.one-connection', {})));
  expect(answers.map(httpStatus)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(sockets.length - before).toBe(1);
});

test('idleTimeout: the sidecar closes its idle connection to the service', async () => {
  const before = sockets.length;
  expect(httpStatus(await check('default.short-idle', {}))).toBe(200);
  expect(sockets.length - before).toBe(1);
  const socket = sockets.at(-1)!;
  // The default would keep it 30 s, past the test's timeout.
  await until(() => closed.has(socket));
});
