/**
 * HTTP to upstreams (REST resolvers, remote GraphQL executors): one undici
 * Pool per host:port, kept alive and shared by every API of the server, and
 * round-robin across a target's hosts. Failures become UpstreamError with a
 * code the executors put in a GraphQL error's extensions.
 */
import { Pool, type Dispatcher } from 'undici';
import { NO_TRACING, type Tracer } from '../runtime/tracing.js';
import type { ClientSignal, HostPort, ResolverDeps, SharedService, Target } from './api.js';

export type UpstreamErrorCode =
  'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_TIMEOUT' | 'UPSTREAM_HTTP_ERROR' | 'UPSTREAM_BAD_RESPONSE';

export class UpstreamError extends Error {
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
    /** HTTP status when the upstream answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface HttpRequest {
  method: string;
  /** Path and query string. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The client's request: aborting it abandons the call. */
  signal?: ClientSignal;
  /** The call's span name when tracing (a remote executor's spanName); default `HTTP <method> <upstream>`. */
  spanName?: string;
}

export interface HttpResponse {
  status: number;
  body: string;
}

/**
 * Headers a resolution may not set: hop-by-hop ones (RFC 9110 7.6.1) describe
 * the client's connection, not ours; content-length is the body's; Envoy's
 * API selector is internal to the gateway.
 */
const RESERVED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'x-sluice-graphql-api',
]);

/** The lower-case name of a configured upstream header; throws for a reserved or malformed one. */
export function upstreamHeaderName(name: string, where: string): string {
  const lower = name.toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower))
    throw new Error(`${where}: "${name}" is not a valid HTTP header name; fix the name in the resource`);
  if (RESERVED_HEADERS.has(lower))
    throw new Error(
      `${where}: header "${name}" cannot be sent upstream (hop-by-hop or internal to the gateway); remove it from the resource`,
    );
  return lower;
}

/** Connections per host: bounds sockets under load; idle ones stay open (keep-alive). */
const CONNECTIONS_PER_HOST = 64;

function origin(host: HostPort): string {
  const address = host.address.includes(':') ? `[${host.address}]` : host.address;
  return `http://${address}:${host.port}`;
}

export class HttpPools implements SharedService {
  private readonly pools = new Map<string, Pool>();
  /** Next host index per target (targets are rebuilt with each configuration). */
  private readonly next = new WeakMap<Target, number>();

  private pick(target: Target): HostPort {
    if (target.hosts.length === 0)
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `upstream ${target.cluster} has no hosts`);
    const i = this.next.get(target) ?? 0;
    this.next.set(target, (i + 1) % target.hosts.length);
    return target.hosts[i]!;
  }

  private pool(host: HostPort): Pool {
    const key = origin(host);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(key, { connections: CONNECTIONS_PER_HOST });
      this.pools.set(key, pool);
    }
    return pool;
  }

  constructor(private readonly tracer: Tracer = NO_TRACING) {}

  /** Sends one request; any status is an answer, only transport failures and timeouts throw. A span of the request's trace, which the upstream joins (traceparent). */
  request(target: Target, req: HttpRequest): Promise<HttpResponse> {
    if (!this.tracer.on) return this.send(target, req);
    return this.tracer.span(
      req.spanName || `HTTP ${req.method} ${target.cluster}`,
      async (span) => {
        const headers = { ...req.headers };
        this.tracer.inject(headers);
        span.setAttribute('http.request.method', req.method);
        span.setAttribute('url.path', req.path.split('?')[0]!);
        span.setAttribute('sluice.upstream', target.cluster);
        const res = await this.send(target, { ...req, headers });
        span.setAttribute('http.response.status_code', res.status);
        return res;
      },
      'client',
    );
  }

  private send(target: Target, req: HttpRequest): Promise<HttpResponse> {
    const host = this.pick(target);
    return new Promise((resolve, reject) => {
      this.pool(host).dispatch(
        { origin: origin(host), method: req.method as 'GET', path: req.path, headers: req.headers, body: req.body },
        new Exchange(target, host, req, resolve, reject),
      );
    });
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}

/**
 * One upstream call as undici's dispatcher hands it over: the body's chunks
 * gathered, a plain timer for the deadline and a listener on the client's
 * signal, both released when it ends. undici's request() would add an
 * AbortController, a body stream and a promise per call; this is the lowest
 * cost per call undici offers.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private readonly timer: NodeJS.Timeout;
  private ended: 'timeout' | 'client' | 'settled' | undefined;

  constructor(
    private readonly target: Target,
    private readonly host: HostPort,
    private readonly req: HttpRequest,
    private readonly resolve: (res: HttpResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.timer = setTimeout(this.stop, req.timeoutMs, 'timeout');
    if (req.signal?.aborted) this.stop('client');
    else req.signal?.addEventListener('abort', this.onClientAbort, { once: true });
  }

  private readonly onClientAbort = (): void => this.stop('client');

  /** Ends the call without an answer: the deadline passed, or the client went away. */
  private readonly stop = (why: 'timeout' | 'client'): void => {
    if (this.ended) return;
    this.ended = why;
    this.controller?.abort(new Error(why));
    this.finish();
    if (why === 'timeout')
      this.reject(
        new UpstreamError(
          'UPSTREAM_TIMEOUT',
          `upstream ${this.target.cluster} did not answer within ${this.req.timeoutMs} ms`,
        ),
      );
    else this.reject(this.req.signal!.reason);
  };

  private finish(): void {
    clearTimeout(this.timer);
    this.req.signal?.removeEventListener('abort', this.onClientAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.ended) controller.abort(new Error(this.ended));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.ended) return;
    this.ended = 'settled';
    this.finish();
    const body =
      this.chunks.length === 1 ? this.chunks[0]!.toString('utf8') : Buffer.concat(this.chunks).toString('utf8');
    this.resolve({ status: this.status, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.ended) return;
    this.ended = 'settled';
    this.finish();
    this.reject(
      new UpstreamError(
        'UPSTREAM_UNAVAILABLE',
        `upstream ${this.target.cluster} (${origin(this.host)}) is unreachable: ${err.message}`,
      ),
    );
  }
}

/** The server-wide pools (one set for REST resolvers and remote executors). */
export function httpPools(deps: ResolverDeps): HttpPools {
  return deps.shared('http.pools', () => new HttpPools(deps.tracer));
}
