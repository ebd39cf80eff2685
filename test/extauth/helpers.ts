/** Shared by the extauth tests: a Check client that sends what Envoy sends (harness/extauth-check.ts), and what the tests observe with. */
import * as grpc from '@grpc/grpc-js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import net from 'node:net';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { loadRoot } from '../../contract/envoy.js';
import { authorizationClient, checkRequestView, messageType } from '../../extauth-server/protos.js';
import { authRequest } from '../../extauth-server/grpc.js';
import type { AuthConfig } from '../../extauth-server/config.js';
import type { AuthModule, AuthRequest } from '../../extauth-server/module.js';
import { envoyCheckRequest, type CheckExtras } from '../../harness/extauth-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { renderOutput, writeFiles } from '../../compiler/emit/write.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startExtauth } from '../../extauth-server/server.js';
import { checkLogText } from '../../harness/log-check.js';

export interface CheckResponse {
  status?: { code?: number; message?: string };
  ok_response?: {
    headers?: { header: { key: string; value: string }; append_action?: string }[];
    headers_to_remove?: string[];
  };
  denied_response?: {
    status?: { code?: string };
    headers?: { header: { key: string; value: string } }[];
    body?: string;
  };
}

export type Checker = ((
  configRef: string | undefined,
  headers?: Record<string, string>,
  extra?: CheckExtras,
) => Promise<CheckResponse>) & { close(): void };

export function checker(port: number): Checker {
  const Client = authorizationClient();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Check(req: unknown, cb: (err: grpc.ServiceError | null, res: CheckResponse) => void): void;
  };
  const fn = (configRef: string | undefined, headers: Record<string, string> = {}, extra: CheckExtras = {}) =>
    new Promise<CheckResponse>((resolve, reject) =>
      client.Check(envoyCheckRequest(configRef, headers, extra), (err, res) => (err ? reject(err) : resolve(res))),
    );
  return Object.assign(fn, { close: () => client.close() });
}

/** What a module is handed for the request Envoy sends (encoded and decoded as the Check handler does). */
export function requestFor(configRef: string, headers: Record<string, string> = {}): AuthRequest {
  const bytes = messageType('envoy.service.auth.v3.CheckRequest').serialize(envoyCheckRequest(configRef, headers));
  return authRequest(checkRequestView()(bytes));
}

/** A parsed AuthConfig of one module's configs, named as an unnamed config is (config_<index>). */
export function authConfigOf<S>(name: string, module: AuthModule<S>, ...settings: S[]): AuthConfig {
  return {
    name,
    configs: settings.map((s, i) => ({ name: `config_${i}`, module: module as AuthModule<unknown>, settings: s })),
    failOnRedirect: false,
  };
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

/** A pino logger that keeps every line in memory, to check what is (never) logged; each line is checked for repeated keys too. */
export function memoryLogger(): { logger: Logger; text(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const line = chunk.toString();
      checkLogText(line);
      text += line;
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

/** Resolves once `condition` holds, looking again every few milliseconds (the test's own timeout bounds it). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

export interface LdapProxy {
  readonly url: string;
  /** Keeps the server's replies until release(). */
  hold(): void;
  release(): void;
  /**
   * Called for each LDAP message from the server with its protocolOp tag
   * (0x61 BindResponse, 0x64 SearchResultEntry, ...) and the number of its
   * connection (0 for the first); 'cut' closes that connection instead of
   * forwarding the message, as a server or network failing mid-operation.
   */
  onReply?: (op: number, connection: number) => 'forward' | 'cut';
  close(): Promise<void>;
}

/** The length of the BER element at the start of `buf`, or undefined when it is not all there yet. */
function berLength(buf: Buffer): number | undefined {
  if (buf.length < 2) return undefined;
  if (buf[1] < 0x80) return buf.length >= 2 + buf[1] ? 2 + buf[1] : undefined;
  const n = buf[1] & 0x7f;
  if (buf.length < 2 + n) return undefined;
  const total = 2 + n + buf.subarray(2, 2 + n).reduce((len, b) => len * 256 + b, 0);
  return buf.length >= total ? total : undefined;
}

/** A TCP proxy on 127.0.0.1 in front of an LDAP server, reading the server's replies message by message. */
export async function ldapProxy(targetPort: number): Promise<LdapProxy> {
  let held = false;
  const pending: (() => void)[] = [];
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const connection = connections++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.on('error', end).on('close', end);
    client.pipe(upstream);
    let buf = Buffer.alloc(0);
    const forward = () => {
      for (let len = berLength(buf); len !== undefined && !client.destroyed; len = berLength(buf)) {
        const message = buf.subarray(0, len);
        buf = buf.subarray(len);
        // LDAPMessage: SEQUENCE { messageID INTEGER, protocolOp, ... }; skip the two headers.
        const header = message[1] < 0x80 ? 2 : 2 + (message[1] & 0x7f);
        const op = message[header + 2 + message[header + 1]];
        if (proxy.onReply?.(op, connection) === 'cut') return end();
        client.write(message);
      }
    };
    upstream.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (held) pending.push(forward);
      else forward();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy: LdapProxy = {
    url: `ldap://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      for (const f of pending.splice(0)) f();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
  return proxy;
}

/** Compiles the resources in `text` as `sluice compile -o DIR` does; the path of DIR/extauth.json. Any diagnostic is an error. */
export async function compileConfig(text: string): Promise<string> {
  const dir = tempDir('extauth-config');
  await writeFile(path.join(dir, 'resources.yaml'), text);
  const result = await compileFiles([dir], DEFAULT_OPTIONS);
  if (result.diagnostics.length) throw new Error(JSON.stringify(result.diagnostics, null, 2));
  const out = path.join(dir, 'out');
  await writeFiles(out, renderOutput(result.xds!, DEFAULT_OPTIONS, 'json'));
  return path.join(out, 'extauth.json');
}

/** A sidecar serving `configFile`, logging into memory; spans to `otlpEndpoint` when given. */
export async function startSidecar(configFile: string, { otlpEndpoint }: { otlpEndpoint?: string } = {}) {
  const { logger, text } = memoryLogger();
  const sidecar = await startExtauth({
    config: configFile,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 't',
    logger,
    ...(otlpEndpoint ? { otlpEndpoint } : {}),
  });
  return { sidecar, check: checker(sidecar.port), log: text };
}
