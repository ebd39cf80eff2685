/**
 * A pool of ldapts clients per LDAP server. A connection serves one check at
 * a time (a bind changes the identity of the whole connection). Connections
 * that fail below LDAP (socket closed, refused, timed out) are dropped, so a
 * restarted server is reached again by fresh connections.
 */
import { Client, ResultCodeError } from 'ldapts';
import type { ConnectionOptions } from 'node:tls';
import type { PoolSettings } from './config.js';

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

export function isConnectionError(err: unknown): boolean {
  return !(err instanceof ResultCodeError);
}

/**
 * Worth one more try on a fresh connection: a socket the server closed (restart,
 * idle timeout) fails fast. A timeout is not: the server is slow or gone, and
 * waiting a second time would only double the client's wait.
 */
export function isRetryable(err: unknown): boolean {
  return isConnectionError(err) && !(err instanceof LdapUnavailableError) && !/timed? ?out/i.test(err instanceof Error ? err.message : String(err));
}

const WHOAMI_OID = '1.3.6.1.4.1.4203.1.11.3';

export class LdapPool {
  private readonly idle: PooledConnection[] = [];
  private readonly waiters: { resolve: (c: PooledConnection) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }[] = [];
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
  async use<T>(fn: (conn: PooledConnection) => Promise<T>): Promise<T> {
    const conn = await this.acquire();
    try {
      return await fn(conn);
    } catch (err) {
      if (isConnectionError(err)) conn.broken = true;
      throw err;
    } finally {
      this.release(conn);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new PoolClosedError(this.url));
    }
    await Promise.all(this.idle.splice(0).map((c) => this.destroy(c)));
  }

  private create(): PooledConnection {
    this.size++;
    return {
      client: new Client({
        url: this.url,
        connectTimeout: this.settings.connectTimeoutMs,
        timeout: this.settings.operationTimeoutMs,
        strictDN: true,
        // ldapts speaks TLS to any URL it gets TLS options for, ldap:// too.
        ...(this.tlsOptions && this.url.startsWith('ldaps://') ? { tlsOptions: this.tlsOptions } : {}),
      }),
    };
  }

  private acquire(): Promise<PooledConnection> {
    if (this.closed) return Promise.reject(new PoolClosedError(this.url));
    const conn = this.idle.pop() ?? (this.size < this.settings.maxSize ? this.create() : undefined);
    if (conn) {
      this.inUse++;
      return Promise.resolve(conn);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
        // Waiting longer than an operation may take means the server is saturated or gone.
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new LdapUnavailableError(`no free LDAP connection to ${this.url} within ${this.settings.operationTimeoutMs} ms`));
        }, this.settings.operationTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private release(conn: PooledConnection): void {
    this.inUse--;
    let next: PooledConnection | undefined = conn;
    if (conn.broken || this.closed) {
      void this.destroy(conn);
      next = !this.closed && this.waiters.length ? this.create() : undefined;
    }
    if (!next) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
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
