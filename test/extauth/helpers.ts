/** Shared by the extauth tests: a Check client that sends what Envoy sends, and config files. */
import * as grpc from '@grpc/grpc-js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { loadRoot } from '../../protos/envoy.js';
import { authorizationClient } from '../../extauth-server/protos.js';

export interface CheckResponse {
  status?: { code?: number; message?: string };
  ok_response?: { headers?: { header: { key: string; value: string }; append_action?: string }[]; headers_to_remove?: string[] };
  denied_response?: { status?: { code?: string }; headers?: { header: { key: string; value: string } }[]; body?: string };
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** A CheckRequest shaped like Envoy's (envoy/extensions/filters/common/ext_authz/check_request_utils.cc). */
export function envoyCheckRequest(configRef: string | undefined, headers: Record<string, string>): unknown {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const path = lower[':path'] ?? '/pets';
  return {
    attributes: {
      source: { address: { socket_address: { address: '127.0.0.1', port_value: 51234 } } },
      destination: { address: { socket_address: { address: '127.0.0.1', port_value: 8080 } } },
      request: {
        time: { seconds: Math.floor(Date.now() / 1000), nanos: 0 },
        http: {
          id: '1234567890',
          method: 'GET',
          headers: { ':authority': 'api.example.org', ':method': 'GET', ':path': path, ':scheme': 'http', 'x-request-id': 'abc', ...lower },
          path,
          host: 'api.example.org',
          scheme: 'http',
          protocol: 'HTTP/1.1',
        },
      },
      context_extensions: configRef === undefined ? {} : { config_ref: configRef },
      metadata_context: {},
    },
  };
}

export type Checker = ((configRef: string | undefined, headers?: Record<string, string>) => Promise<CheckResponse>) & { close(): void };

export function checker(port: number): Checker {
  const Client = authorizationClient();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Check(req: unknown, cb: (err: grpc.ServiceError | null, res: CheckResponse) => void): void;
  };
  const fn = (configRef: string | undefined, headers: Record<string, string> = {}) =>
    new Promise<CheckResponse>((resolve, reject) =>
      client.Check(envoyCheckRequest(configRef, headers), (err, res) => (err ? reject(err) : resolve(res))),
    );
  return Object.assign(fn, { close: () => client.close() });
}

/** The HTTP status Envoy answers the client with, read through Envoy's own StatusCode enum. */
export function httpStatus(res: CheckResponse): number {
  if (res.status?.code === undefined || res.status.code === 0) {
    if (res.denied_response) throw new Error('OK status with a denied_response');
    return 200;
  }
  const name = res.denied_response?.status?.code;
  if (name === undefined) return 403; // Envoy's default for a denial without a status
  return loadRoot().lookupEnum('envoy.type.v3.StatusCode').values[name];
}

export function header(res: CheckResponse, key: string): string | undefined {
  const all = [...(res.ok_response?.headers ?? []), ...(res.denied_response?.headers ?? [])];
  return all.find((h) => h.header.key === key)?.header.value;
}

export async function writeConfig(resources: unknown[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-extauth-'));
  const file = path.join(dir, 'extauth.json');
  await writeFile(file, JSON.stringify({ resources }, null, 2));
  return file;
}

/** A pino logger that keeps every line in memory, to check what is (never) logged. */
export function memoryLogger(): { logger: Logger; text(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), text: () => text };
}

/** A loopback port nothing listens on. */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
