/**
 * HTTP to upstreams (REST resolvers, remote GraphQL executors): one undici
 * Pool per host:port, kept alive and shared by every API of the server, and
 * round-robin across a target's hosts. Failures become UpstreamError with a
 * code the executors put in a GraphQL error's extensions.
 */
import { Pool } from 'undici';
import type { HostPort, ResolverDeps, SharedService, Target } from './api.js';

export type UpstreamErrorCode = 'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_TIMEOUT' | 'UPSTREAM_HTTP_ERROR' | 'UPSTREAM_BAD_RESPONSE';

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
  signal?: AbortSignal;
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
const RESERVED_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'x-sluice-graphql-api']);

/** The lower-case name of a configured upstream header; throws for a reserved or malformed one. */
export function upstreamHeaderName(name: string, where: string): string {
  const lower = name.toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower)) throw new Error(`${where}: "${name}" is not a valid HTTP header name; fix the name in the resource`);
  if (RESERVED_HEADERS.has(lower)) throw new Error(`${where}: header "${name}" cannot be sent upstream (hop-by-hop or internal to the gateway); remove it from the resource`);
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
    if (target.hosts.length === 0) throw new UpstreamError('UPSTREAM_UNAVAILABLE', `upstream ${target.cluster} has no hosts`);
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

  /** Sends one request; any status is an answer, only transport failures and timeouts throw. */
  async request(target: Target, req: HttpRequest): Promise<HttpResponse> {
    const host = this.pick(target);
    // One controller and one plain timer per call, both released when it ends:
    // AbortSignal.timeout/any cost several times more per call (tracked until collected).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, req.timeoutMs);
    const onClientAbort = () => controller.abort();
    if (req.signal?.aborted) controller.abort();
    else req.signal?.addEventListener('abort', onClientAbort, { once: true });
    try {
      const res = await this.pool(host).request({ method: req.method as 'GET', path: req.path, headers: req.headers, body: req.body, signal: controller.signal });
      return { status: res.statusCode, body: await res.body.text() };
    } catch (err) {
      if (timedOut) throw new UpstreamError('UPSTREAM_TIMEOUT', `upstream ${target.cluster} did not answer within ${req.timeoutMs} ms`);
      if (req.signal?.aborted) throw err;
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `upstream ${target.cluster} (${origin(host)}) is unreachable: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onClientAbort);
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}

/** The server-wide pools (one set for REST resolvers and remote executors). */
export function httpPools(deps: ResolverDeps): HttpPools {
  return deps.shared('http.pools', () => new HttpPools());
}
