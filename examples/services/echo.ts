/**
 * The example HTTP upstream: answers every request with JSON saying which
 * service answered and what it received (method, path, headers), so a curl
 * through Envoy shows what the gateway passed on, e.g. the `x-user-id` LDAP
 * authentication adds, or that a verified token was removed.
 *
 *   node dist/examples/services/echo.js --name petstore --port 8080 [--host 0.0.0.0]
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, serviceArgs, stopOnSignals } from './args.js';
import { isMain } from './main.js';

export interface RunningService {
  port: number;
  close(): Promise<void>;
}

export async function startEcho(name: string, port = 0, host = '127.0.0.1'): Promise<RunningService> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(`${JSON.stringify({ service: name, method: req.method, path: req.url, headers: req.headers })}\n`);
    });
  });
  server.listen(port, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

if (isMain(import.meta.url)) {
  const { port, host, values } = serviceArgs('echo', { name: { default: 'echo' } });
  const running = await startEcho(values.name!, port, host);
  announce(values.name!, `http://${host}:${running.port}`);
  stopOnSignals(() => running.close());
}
