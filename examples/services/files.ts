/**
 * A static file server: the JWKS server of the remote JWT provider
 * (examples/jwt-remote.yaml) serving deploy/jwks/jwks.json. GET and HEAD of
 * a file under the root; anything else 404 or 405.
 *
 *   node dist/examples/services/files.js --root deploy/jwks --port 8000
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { announce, serviceArgs, stopOnSignals } from './args.js';
import type { RunningService } from './echo.js';
import { isMain } from './main.js';

export async function startFiles(root: string, port = 0, host = '127.0.0.1'): Promise<RunningService> {
  const base = path.resolve(root);
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const file = path.join(base, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    // Nothing outside the root, whatever the path says.
    if (!file.startsWith(base + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': file.endsWith('.json') ? 'application/json' : 'application/octet-stream',
        'content-length': body.length,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404).end();
    }
  });
  server.listen(port, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

if (isMain(import.meta.url)) {
  const { port, host, values } = serviceArgs('files', { root: { default: 'deploy/jwks' }, name: { default: 'files' } });
  const running = await startFiles(values.root!, port, host);
  announce(values.name!, `http://${host}:${running.port}`);
  stopOnSignals(() => running.close());
}
