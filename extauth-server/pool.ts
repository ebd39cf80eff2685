/**
 * A pool of ldapts clients per LDAP server. A connection serves one check at
 * a time (a bind changes the identity of the whole connection). Connections
 * that fail below LDAP (socket closed, refused, timed out) are dropped, so a
 * restarted server is reached again by fresh connections.
 */
import { Client, ResultCodeError } from 'ldapts';
import type { ConnectionOptions } from 'node:tls';
import type { PoolSettings } from './config-fields.js';

export interface PooledConnection {
  readonly client: Client;
  /** Set when the connection must not be reused. */
  broken?: boolean;
}

/** An error below LDAP: the server could not be reached or did not answer in time. */
export class LdapUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LdapUnavailableError';
  }
}

/** The pool was closed (configuration change, shutdown) before the caller got a connection: nothing was sent. */
export class PoolClosedError extends LdapUnavailableError {
  constructor(url: string) {
    super(`pool for ${url} closed`);
    this.name = 'PoolClosedError';
  }
}

/** The connection dropped between two operations of a check (ldapts would reconnect unauthenticated). */
export class ConnectionLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionLostError';
  }
}

/** Node's system errors of a connection the server refused or dropped: fast, and worth another connection. */
const FAST_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);
/** ldapts' messages for a request written to a socket that then closed or failed (src/Client.ts). */
const UNANSWERED_RE = /^(?:Connection closed before message response was received|Socket error\. Message type)/;
/** ldapts' connect and operation timeouts. */
const TIMEOUT_RE = /^Connection timeout$|: Operation timed out$/;

/**
 * A fast socket-level failure (connection refused, reset or closed), or
 * undefined for anything else: `unsent` when the request never reached the
 * socket, `unanswered` when it was written and the connection closed before
 * the reply (the server may or may not have processed it).
 */
export function socketFailure(err: unknown): 'unsent' | 'unanswered' | undefined {
  if (err instanceof ConnectionLostError) return 'unsent';
  const e = plainError(err);
  if (!e) return undefined;
  // ldapts passes on the socket's own error only while connecting, before anything is written.
  if (typeof e.code === 'string') return FAST_SOCKET_CODES.has(e.code) ? 'unsent' : undefined;
  if (e.message === 'Socket connection not established') return 'unsent';
  return UNANSWERED_RE.test(e.message) ? 'unanswered' : undefined;
}

/**
 * An error that is not an LDAP result, by shape: Node's socket errors may come
 * from another realm than this module (e.g. under a test runner's VM), where
 * `instanceof Error` is false.
 */
function plainError(err: unknown): { message: string; code?: unknown } | undefined {
  if (typeof err !== 'object' || err === null || err instanceof ResultCodeError) return undefined;
  const e = err as { message?: unknown; code?: unknown };
  return typeof e.message === 'string' ? { message: e.message, code: e.code } : undefined;
}

/**
 * An error below LDAP: the server could not be reached (refused, reset, DNS,
 * TLS), did not answer in time, or dropped the connection; or no pooled
 * connection was free. Not an LDAP result, and not an error ldapts raises
 * before sending anything (a filter it cannot parse): those are 500s.
 */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof LdapUnavailableError || socketFailure(err)) return true;
  const e = plainError(err);
  return !!e && (typeof e.code === 'string' || TIMEOUT_RE.test(e.message));
}

/**
 * Worth one more try on a fresh connection: a socket the server closed
 * (restart, idle timeout) fails fast. A timeout is not: the server is slow or
 * gone, and waiting a second time would only double the client's wait. Nor is
 * a TLS or DNS failure, which a second connection repeats. The caller must
 * not retry an unanswered bind (see Authorizer).
 */
export function isRetryable(err: unknown): boolean {
  return socketFailure(err) !== undefined;
}

const WHOAMI_OID = '1.3.6.1.4.1.4203.1.11.3';

export class LdapPool {
  private readonly idle: PooledConnection[] = [];
  /** Checks waiting for a connection, oldest first; all wait as long, so the first is always the next to expire. */
  private readonly waiters: { resolve: (c: PooledConnection) => void; reject: (e: Error) => void; deadline: number }[] =
    [];
  /** One timer for all waiters, due at the first one's deadline: a timer per waiting check cost more than the wait's bookkeeping. */
  private expiry: NodeJS.Timeout | undefined;
  private size = 0;
  private inUse = 0;
  private closed = false;

  constructor(
    readonly url: string,
    readonly settings: PoolSettings,
    /** For ldaps:// only. */
    private readonly tlsOptions?: ConnectionOptions,
  ) {}

  /** Opens `initialSize` connections in the background; failures are not fatal (the server may come later). */
  warm(): void {
    for (let i = this.size; i < this.settings.initialSize; i++) {
      const conn = this.create();
      // WhoAmI (RFC 4532) is anonymous and cheap: it only makes the client connect.
      conn.client
        .exop(WHOAMI_OID)
        .catch((err: unknown) => {
          if (isConnectionError(err)) conn.broken = true;
        })
        .finally(() => this.release(conn));
      this.inUse++;
    }
  }

  stats(): { size: number; inUse: number; idle: number; waiting: number } {
    return { size: this.size, inUse: this.inUse, idle: this.idle.length, waiting: this.waiters.length };
  }

  /** Runs `fn` on a connection; a connection error marks the connection broken. */
  use<T>(fn: (conn: PooledConnection) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new PoolClosedError(this.url));
    // A free connection is used at once; waiting for one is the exception, and costs a promise more.
    const free = this.take();
    return free ? this.runOn(free, fn) : this.waitForConnection().then((conn) => this.runOn(conn, fn));
  }

  private runOn<T>(conn: PooledConnection, fn: (conn: PooledConnection) => Promise<T>): Promise<T> {
    // Whatever fn does, throw or return a non-promise, the connection goes back to the pool.
    let running: Promise<T>;
    try {
      running = Promise.resolve(fn(conn));
    } catch (err) {
      running = Promise.reject(err as Error);
    }
    return running.then(
      (result) => {
        this.release(conn);
        return result;
      },
      (err: unknown) => {
        if (isConnectionError(err)) conn.broken = true;
        this.release(conn);
        throw err;
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.expiry);
    this.expiry = undefined;
    for (const w of this.waiters.splice(0)) w.reject(new PoolClosedError(this.url));
    await Promise.all(this.idle.splice(0).map((c) => this.destroy(c)));
  }

  private create(): PooledConnection {
    const client = new Client({
      url: this.url,
      connectTimeout: this.settings.connectTimeoutMs,
      timeout: this.settings.operationTimeoutMs,
      strictDN: true,
      // ldapts speaks TLS to any URL it gets TLS options for, ldap:// too.
      ...(this.tlsOptions && this.url.startsWith('ldaps://') ? { tlsOptions: this.tlsOptions } : {}),
    });
    // Counted once it exists: a URL ldapts refuses must not use up a slot for good.
    this.size++;
    return { client };
  }

  /** An idle connection, or a new one while below maxSize; undefined when all are in use. */
  private take(): PooledConnection | undefined {
    const conn = this.idle.pop() ?? (this.size < this.settings.maxSize ? this.create() : undefined);
    if (conn) this.inUse++;
    return conn;
  }

  private waitForConnection(): Promise<PooledConnection> {
    return new Promise((resolve, reject) => {
      // Waiting longer than an operation may take means the server is saturated or gone.
      this.waiters.push({ resolve, reject, deadline: performance.now() + this.settings.operationTimeoutMs });
      if (!this.expiry) this.armExpiry();
    });
  }

  /** Sets the timer for the first waiter's deadline; when no check waits, none. */
  private armExpiry(): void {
    const first = this.waiters[0];
    this.expiry = first && setTimeout(() => this.expireWaiters(), first.deadline - performance.now());
  }

  private expireWaiters(): void {
    const now = performance.now();
    while (this.waiters.length && this.waiters[0]!.deadline <= now) {
      this.waiters
        .shift()!
        .reject(
          new LdapUnavailableError(
            `no free LDAP connection to ${this.url} within ${this.settings.operationTimeoutMs} ms`,
          ),
        );
    }
    this.armExpiry();
  }

  private release(conn: PooledConnection): void {
    this.inUse--;
    let next: PooledConnection | undefined = conn;
    if (conn.broken || this.closed) {
      void this.destroy(conn);
      next = !this.closed && this.waiters.length ? this.create() : undefined;
    }
    if (!next) return;
    // The timer stays set for a served waiter: when it fires, it is set again for the waiter then first.
    const waiter = this.waiters.shift();
    if (waiter) {
      this.inUse++;
      waiter.resolve(next);
    } else {
      this.idle.push(next);
    }
  }

  private async destroy(conn: PooledConnection): Promise<void> {
    this.size--;
    await conn.client.unbind().catch(() => undefined);
  }
}
