/**
 * The LDAP check in its documented order (docs/extauth.md), for one request: Basic credentials, user bind,
 * optional service-account bind, base-scope search on the user entry, group
 * membership. Holds the current AuthConfigs and one connection pool per LDAP
 * server. Never logs passwords or the Authorization header.
 */
import type { Logger } from 'pino';
import type { ConnectionOptions } from 'node:tls';
import { ResultCodeError } from 'ldapts';
import type { AuthConfig, LdapSettings } from './config.js';
import { BIND_REJECTED_CODES } from '../contract/extauth.js';
import { NO_CONFIGURATION_YET } from '../runtime/health.js';
import { normalizeDn } from '../contract/ldap-dn.js';
import { cleanUsername, parseBasic, searchFilter, userDn, type Credentials } from '../contract/ldap-credentials.js';
import { ConnectionLostError, LdapPool, LdapUnavailableError, PoolClosedError, isConnectionError, isRetryable, socketFailure, type PooledConnection } from './pool.js';
import type { LdapOperation, Metrics } from './metrics.js';
import { BoundedMemo } from './memo.js';

export type Decision =
  | { kind: 'ok'; userDn: string }
  /** 401, 403, 500 (configuration or directory error), 503 (directory unreachable, or no configuration yet). */
  | { kind: 'deny'; status: 401 | 403 | 500 | 503; reason: string };

/** Pool replacements one check follows before giving up (503): configuration changes in a row. */
const MAX_POOL_CHANGES = 3;

function deny(status: 401 | 403 | 500 | 503, reason: string): Decision {
  return { kind: 'deny', status, reason };
}

function ldapCode(err: unknown): number | undefined {
  return err instanceof ResultCodeError ? err.code : undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0] : String(err);
}

export interface AuthorizerOptions {
  logger: Logger;
  metrics?: Metrics;
  /** TLS options for ldaps:// servers (e.g. a CA bundle). */
  tlsOptions?: ConnectionOptions;
}

export class Authorizer {
  private configs = new Map<string, AuthConfig>();
  private readonly pools = new Map<string, LdapPool>();
  private loaded = false;

  constructor(private readonly opts: AuthorizerOptions) {}

  /** Whether a configuration has been received (file read or first xDS response). */
  get ready(): boolean {
    return this.loaded;
  }

  /**
   * Replaces the whole set (xDS state of the world); pools of servers no
   * longer used are closed. All or nothing: when a new pool cannot be made,
   * this throws and the previous configuration stays in force.
   */
  setConfigs(configs: AuthConfig[]): void {
    const wanted = new Map<string, LdapSettings>();
    for (const c of configs) for (const l of c.ldap) if (!wanted.has(poolKey(l))) wanted.set(poolKey(l), l);
    const created = new Map<string, LdapPool>();
    try {
      for (const [key, l] of wanted) {
        const current = this.pools.get(key);
        if (current && JSON.stringify(l.pool) === JSON.stringify(current.settings)) continue;
        const pool = new LdapPool(l.address, l.pool, this.opts.tlsOptions);
        created.set(key, pool);
        pool.warm();
      }
    } catch (err) {
      for (const pool of created.values()) void pool.close();
      throw err;
    }
    for (const [key, pool] of this.pools) {
      // Gone, or its pool settings changed: in-flight checks finish on the old pool.
      if (!wanted.has(key) || created.has(key)) {
        this.pools.delete(key);
        void pool.close();
      }
    }
    for (const [key, pool] of created) this.pools.set(key, pool);
    this.configs = new Map(configs.map((c) => [c.name, c]));
    this.loaded = true;
    this.opts.logger.info({ authConfigs: [...this.configs.keys()], ldapServers: [...wanted.keys()] }, 'configuration applied');
  }

  poolStats() {
    return [...this.pools.entries()].map(([server, p]) => ({ server, ...p.stats() }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }

  /** The decision for one request: `configRef` from context_extensions, the raw Authorization header. */
  async check(configRef: string | undefined, authorization: string | undefined): Promise<Decision> {
    // Not heard from the control plane yet: transient, as a directory that is down (503, fail closed), not a fault.
    if (!this.loaded) return deny(503, NO_CONFIGURATION_YET);
    const config = configRef ? this.configs.get(configRef) : undefined;
    if (!config) return deny(500, `unknown config_ref "${configRef ?? ''}"`);
    if (!config.ldap.length) return deny(500, `AuthConfig ${config.name} has no ldap config`);
    const creds = parseBasic(authorization);
    if (!creds) return deny(401, authorization ? 'malformed Basic credentials' : 'no Basic credentials');
    // Every config of the AuthConfig must allow the request (Gloo's default: all configs in order); the first names the user.
    let first: Decision | undefined;
    for (const ldap of config.ldap) {
      const d = await this.checkLdap(ldap, creds);
      if (d.kind === 'deny') return d;
      first ??= d;
    }
    return first!;
  }

  private async checkLdap(settings: LdapSettings, creds: Credentials): Promise<Decision> {
    const username = cleanUsername(creds.username);
    if (!username) return deny(401, 'username empty after cleaning');
    const dn = this.userDns.get(`${settings.userDnTemplate}\0${username}`);
    // A connection the server closed (restart, idle timeout) gets one retry on a
    // fresh connection, unless a bind's reply was lost (see bind()).
    let retried = false;
    for (let poolChanges = 0; ; ) {
      // Looked up per attempt: a configuration change may have replaced the pool.
      const pool = this.pools.get(poolKey(settings));
      // Shutting down, or a configuration change dropped this server mid-check: transient, like a server that is down.
      if (!pool) return deny(503, `no connection pool for ${settings.address}`);
      try {
        return await pool.use((conn) => this.run(conn, settings, dn, username, creds.password));
      } catch (err) {
        // Replaced while this check waited for a connection: nothing was sent, so wait on the new pool.
        if (err instanceof PoolClosedError && poolChanges++ < MAX_POOL_CHANGES) continue;
        if (isRetryable(err) && !retried) {
          retried = true;
          continue;
        }
        if (isConnectionError(err)) return deny(503, `LDAP server ${settings.address} unreachable: ${describe(err)}`);
        return deny(500, `LDAP error from ${settings.address}: ${describe(err)}`);
      }
    }
  }

  /**
   * Per-check work whose answer depends on its input alone, kept for the
   * last 10,000 users and groups first seen: the same users come back, and
   * parsing a DN costs more than the rest of the check's own work. Made-up
   * usernames only push entries out, which costs CPU, not correctness.
   */
  private readonly userDns = new BoundedMemo<string, string>(10_000, (key) => {
    // Keyed by template NUL username; a cleaned username has no control character, so the last NUL is the one.
    const split = key.lastIndexOf('\0');
    return userDn(key.slice(0, split), key.slice(split + 1));
  });
  /** A membership value as a normalized DN; false when it is not a DN. */
  private readonly groupDns = new BoundedMemo<string, string | false>(10_000, (value) => normalizeDn(value) ?? false);

  /** `allowedGroups` normalized once per configuration, not per request; one that is not a DN matches nothing. */
  private readonly normalizedGroups = new WeakMap<LdapSettings, ReadonlySet<string>>();

  private allowedGroups(s: LdapSettings): ReadonlySet<string> {
    let set = this.normalizedGroups.get(s);
    if (!set) {
      set = new Set(s.allowedGroups.map(normalizeDn).filter((g): g is string => g !== undefined));
      this.normalizedGroups.set(s, set);
    }
    return set;
  }

  /** Records an LDAP operation that began at `start` (performance.now()): succeeded, or failed with `err`. */
  private observe(operation: LdapOperation, start: number, err?: unknown): void {
    const outcome = err === undefined ? 'success' : isConnectionError(err) ? 'connection_error' : 'ldap_error';
    this.opts.metrics?.observeLdap(operation, outcome, (performance.now() - start) / 1000);
  }

  // Timed inline, not through a wrapper: each async frame is a cost per check.
  private bind(conn: PooledConnection, dn: string, password: string): Promise<void> {
    const start = performance.now();
    return conn.client.bind(dn, password).then(
      () => this.observe('bind', start),
      (err: unknown) => {
        this.observe('bind', start, err);
        // The directory may have processed this bind and, if it failed, counted it
        // towards a lockout: never send the password again for this check (503).
        if (socketFailure(err) === 'unanswered') throw new LdapUnavailableError(`bind sent, connection closed before its reply: ${describe(err)}`, { cause: err });
        throw err;
      },
    );
  }

  private async run(conn: PooledConnection, s: LdapSettings, dn: string, username: string, password: string): Promise<Decision> {
    try {
      await this.bind(conn, dn, password);
    } catch (err) {
      const code = ldapCode(err);
      if (code !== undefined && BIND_REJECTED_CODES.has(code)) return deny(401, `user bind rejected (LDAP result ${code})`);
      throw err;
    }
    if (s.serviceAccount) {
      try {
        await this.bind(conn, s.serviceAccount.username, s.serviceAccount.password);
      } catch (err) {
        if (ldapCode(err) !== undefined) return deny(500, `service account bind failed (LDAP result ${ldapCode(err)})`);
        throw err;
      }
    }
    // ldapts reconnects a dropped socket silently and unauthenticated; a search
    // on such a connection would run anonymously. Treat it as a connection error.
    if (!conn.client.isBound) throw new ConnectionLostError('connection lost after bind');
    const attribute = s.membershipAttributeName;
    let entries;
    const start = performance.now();
    try {
      ({ searchEntries: entries } = await conn.client.search(dn, { scope: 'base', filter: searchFilter(s.searchFilter, username), attributes: [attribute], sizeLimit: 1 }));
      this.observe('search', start);
    } catch (err) {
      this.observe('search', start, err);
      // The bound identity cannot see its entry: treat as "not allowed", not as a server fault.
      if (ldapCode(err) === 32) return deny(403, 'user entry not visible to the bound identity');
      throw err;
    }
    const entry = entries[0];
    if (!entry) return deny(403, 'user entry does not match searchFilter');
    // Attribute names are case-insensitive; the directory usually answers in the configured case.
    const key = attribute in entry ? attribute : Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
    const raw = key ? entry[key] : [];
    const allowed = this.allowedGroups(s);
    const member = (Array.isArray(raw) ? raw : [raw]).some((v) => {
      const dn = this.groupDns.get(Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
      return dn !== false && allowed.has(dn);
    });
    if (!member) return deny(403, 'not a member of an allowed group');
    return { kind: 'ok', userDn: entry.dn };
  }
}

function poolKey(l: LdapSettings): string {
  return l.address;
}
