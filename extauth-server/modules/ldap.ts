/**
 * The `ldap` config, in its documented order (docs/extauth.md): Basic
 * credentials, user bind (all that is checked under disableGroupChecking),
 * optional service-account bind, base-scope search on the user entry, group
 * membership. One connection pool per LDAP server,
 * shared by the configs that name it and kept across configurations while
 * its settings stay the same. Never logs passwords or the Authorization header.
 */
import { ResultCodeError } from 'ldapts';
import {
  BIND_REJECTED_CODES,
  DEFAULT_MEMBERSHIP_ATTRIBUTE,
  DEFAULT_SEARCH_FILTER,
  USER_ID_HEADER,
  basicChallenge,
  ldapAddressProblem,
  quotableAddress,
  searchFilterProblem,
} from '../../contract/extauth.js';
import { normalizeDn } from '../../contract/ldap-dn.js';
import { cleanUsername, parseBasic, searchFilter, userDn } from '../../contract/ldap-credentials.js';
import {
  bool,
  ConfigError,
  field,
  list,
  MAX_POOL_SIZE,
  MAX_TIMEOUT_MS,
  num,
  obj,
  str,
  type Obj,
  type PoolSettings,
} from '../config-fields.js';
import {
  ConnectionLostError,
  LdapPool,
  LdapUnavailableError,
  PoolClosedError,
  isConnectionError,
  isRetryable,
  socketFailure,
  type PooledConnection,
} from '../pool.js';
import type { LdapOperation } from '../metrics.js';
import { BoundedMemo } from '../memo.js';
import {
  allow,
  deny,
  type AuthModule,
  type AuthRequest,
  type Check,
  type Deny,
  type ModuleContext,
  type ModuleInstance,
  type Prepared,
  type SidecarDefaults,
  type Verdict,
} from '../module.js';

export interface LdapSettings {
  address: string;
  userDnTemplate: string;
  allowedGroups: string[];
  searchFilter: string;
  membershipAttributeName: string;
  serviceAccount?: { username: string; password: string };
  pool: PoolSettings;
  /** Gloo's disableGroupChecking: the user's bind alone decides. */
  disableGroupChecking: boolean;
}

/** Pool replacements one check follows before giving up (503): configuration changes in a row. */
const MAX_POOL_CHANGES = 3;

function ldapCode(err: unknown): number | undefined {
  return err instanceof ResultCodeError ? err.code : undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}

/** The DN as an HTTP header value: RFC 4514 allows any byte as `\XX`, which keeps the value ASCII. */
export function asciiDn(dn: string): string {
  return dn.replace(/[^\x20-\x7e]+/g, (run) =>
    [...Buffer.from(run, 'utf8')].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join(''),
  );
}

function parseLdap(raw: Obj, where: string, defaults: SidecarDefaults): LdapSettings {
  const poolDefaults = defaults.ldapPool;
  const address = str(raw, 'address', where, true);
  const addressProblem = ldapAddressProblem(address);
  if (addressProblem) throw new ConfigError(`${where}.address: "${quotableAddress(address)}" ${addressProblem}`);
  const userDnTemplate = str(raw, 'user_dn_template', where, true);
  if (!userDnTemplate.includes('%s')) throw new ConfigError(`${where}.user_dn_template: must contain %s`);
  const allowedGroups = list(raw, 'allowed_groups', where).map((g, i) => {
    if (typeof g !== 'string') throw new ConfigError(`${where}.allowed_groups[${i}]: must be a string`);
    // The compiler's rule too: a group that does not parse would match nobody.
    if (normalizeDn(g) === undefined) throw new ConfigError(`${where}.allowed_groups[${i}]: "${g}" is not a DN`);
    return g;
  });
  const sa = field(raw, 'service_account');
  let serviceAccount: LdapSettings['serviceAccount'];
  if (sa !== undefined && sa !== null) {
    const s = obj(sa, `${where}.service_account`);
    serviceAccount = {
      username: str(s, 'username', `${where}.service_account`, true),
      password: str(s, 'password', `${where}.service_account`, true),
    };
  }
  const p = field(raw, 'pool');
  const pw = `${where}.pool`;
  const po = p === undefined || p === null ? {} : obj(p, pw);
  const pool: PoolSettings = {
    // A present pool message with no initial_size means 0 (proto3 drops zeros); an absent one means the default.
    initialSize:
      p === undefined || p === null ? poolDefaults.initialSize : num(po, 'initial_size', 0, MAX_POOL_SIZE, pw),
    maxSize: num(po, 'max_size', poolDefaults.maxSize, MAX_POOL_SIZE, pw),
    connectTimeoutMs: num(po, 'connect_timeout_ms', poolDefaults.connectTimeoutMs, MAX_TIMEOUT_MS, pw),
    operationTimeoutMs: num(po, 'operation_timeout_ms', poolDefaults.operationTimeoutMs, MAX_TIMEOUT_MS, pw),
  };
  if (pool.initialSize > pool.maxSize)
    throw new ConfigError(`${pw}.initial_size: ${pool.initialSize} is larger than max_size ${pool.maxSize}`);
  const searchFilterText = str(raw, 'search_filter', where) || DEFAULT_SEARCH_FILTER;
  const filterProblem = searchFilterProblem(searchFilterText);
  if (filterProblem) throw new ConfigError(`${where}.search_filter: "${searchFilterText}" ${filterProblem}`);
  return {
    address,
    userDnTemplate,
    allowedGroups,
    searchFilter: searchFilterText,
    membershipAttributeName: str(raw, 'membership_attribute_name', where) || DEFAULT_MEMBERSHIP_ATTRIBUTE,
    ...(serviceAccount ? { serviceAccount } : {}),
    pool,
    disableGroupChecking: bool(raw, 'disable_group_checking', where),
  };
}

function poolKey(l: LdapSettings): string {
  return l.address;
}

/** The LDAP module's life in one sidecar: the pools, and the memos of per-input work. */
export class LdapInstance implements ModuleInstance<LdapSettings> {
  private readonly pools = new Map<string, LdapPool>();

  constructor(private readonly context: ModuleContext) {}

  prepare(settings: readonly LdapSettings[]): Prepared<LdapSettings> {
    const wanted = new Map<string, LdapSettings>();
    for (const l of settings) if (!wanted.has(poolKey(l))) wanted.set(poolKey(l), l);
    const created = new Map<string, LdapPool>();
    try {
      for (const [key, l] of wanted) {
        const current = this.pools.get(key);
        if (current && JSON.stringify(l.pool) === JSON.stringify(current.settings)) continue;
        const pool = new LdapPool(l.address, l.pool, this.context.tlsOptions);
        created.set(key, pool);
        pool.warm();
      }
    } catch (err) {
      for (const pool of created.values()) void pool.close();
      throw err;
    }
    const checks = new Map<LdapSettings, Check>(settings.map((s) => [s, (request) => this.check(s, request)]));
    return {
      check: (s) => checks.get(s)!,
      commit: () => {
        for (const [key, pool] of this.pools) {
          // Gone, or its pool settings changed: in-flight checks finish on the old pool.
          if (!wanted.has(key) || created.has(key)) {
            this.pools.delete(key);
            void pool.close();
          }
        }
        for (const [key, pool] of created) this.pools.set(key, pool);
        if (wanted.size) this.context.logger.info({ ldapServers: [...wanted.keys()] }, 'LDAP servers in use');
      },
      abort: () => {
        for (const pool of created.values()) void pool.close();
      },
    };
  }

  poolStats() {
    return [...this.pools.entries()].map(([server, p]) => ({ server, ...p.stats() }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }

  /** An allowed user's verdict is the same every time: made once per DN (the gRPC layer encodes it once too). */
  private readonly allowed = new BoundedMemo<string, Verdict>(10_000, (dn) =>
    // Overwrite: a client-sent x-user-id never reaches the upstream next to ours. The user's
    // LDAP password stays at the gateway, as a JWT does (jwt_authn's forward: false).
    allow({ headers: [{ key: USER_ID_HEADER, value: asciiDn(dn) }], removeHeaders: ['authorization'], identity: dn }),
  );

  private check(settings: LdapSettings, request: AuthRequest): Promise<Verdict> | Verdict {
    const authorization = request.headers.authorization;
    const creds = parseBasic(authorization);
    const denied = (status: number, reason: string): Deny =>
      deny(
        status,
        reason,
        status === 401 ? { headers: [{ key: 'www-authenticate', value: basicChallenge(request.configRef) }] } : {},
      );
    if (!creds) return denied(401, authorization ? 'malformed Basic credentials' : 'no Basic credentials');
    const username = cleanUsername(creds.username);
    if (!username) return denied(401, 'username empty after cleaning');
    return this.checkUser(settings, username, creds.password).then((r) =>
      typeof r === 'string' ? this.allowed.get(r) : denied(r.status, r.reason),
    );
  }

  /** The DN of the allowed user entry, or why not. */
  private async checkUser(
    settings: LdapSettings,
    username: string,
    password: string,
  ): Promise<string | { status: number; reason: string }> {
    const dn = this.userDns.get(`${settings.userDnTemplate}\0${username}`);
    // A connection the server closed (restart, idle timeout) gets one retry on a
    // fresh connection, unless a bind's reply was lost (see bind()).
    let retried = false;
    for (let poolChanges = 0; ;) {
      // Looked up per attempt: a configuration change may have replaced the pool.
      const pool = this.pools.get(poolKey(settings));
      // Shutting down, or a configuration change dropped this server mid-check: transient, like a server that is down.
      if (!pool) return { status: 503, reason: `no connection pool for ${settings.address}` };
      try {
        return await pool.use((conn) => this.run(conn, settings, dn, username, password));
      } catch (err) {
        // Replaced while this check waited for a connection: nothing was sent, so wait on the new pool.
        if (err instanceof PoolClosedError && poolChanges++ < MAX_POOL_CHANGES) continue;
        if (isRetryable(err) && !retried) {
          retried = true;
          continue;
        }
        if (isConnectionError(err))
          return { status: 503, reason: `LDAP server ${settings.address} unreachable: ${describe(err)}` };
        return { status: 500, reason: `LDAP error from ${settings.address}: ${describe(err)}` };
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
    this.context.metrics?.observeLdap(operation, outcome, (performance.now() - start) / 1000);
  }

  // Timed inline, not through a wrapper: each async frame is a cost per check.
  private bind(conn: PooledConnection, dn: string, password: string): Promise<void> {
    const tracer = this.context.tracer;
    return tracer?.on
      ? tracer.span('LDAP bind', () => this.bindNow(conn, dn, password), 'client')
      : this.bindNow(conn, dn, password);
  }

  private bindNow(conn: PooledConnection, dn: string, password: string): Promise<void> {
    const start = performance.now();
    return conn.client.bind(dn, password).then(
      () => this.observe('bind', start),
      (err: unknown) => {
        this.observe('bind', start, err);
        // The directory may have processed this bind and, if it failed, counted it
        // towards a lockout: never send the password again for this check (503).
        if (socketFailure(err) === 'unanswered')
          throw new LdapUnavailableError(`bind sent, connection closed before its reply: ${describe(err)}`, {
            cause: err,
          });
        throw err;
      },
    );
  }

  private async run(
    conn: PooledConnection,
    s: LdapSettings,
    dn: string,
    username: string,
    password: string,
  ): Promise<string | { status: number; reason: string }> {
    try {
      await this.bind(conn, dn, password);
    } catch (err) {
      const code = ldapCode(err);
      if (code !== undefined && BIND_REJECTED_CODES.has(code))
        return { status: 401, reason: `user bind rejected (LDAP result ${code})` };
      throw err;
    }
    // Gloo's disableGroupChecking: the password is right, which is all that is asked.
    if (s.disableGroupChecking) return dn;
    if (s.serviceAccount) {
      try {
        await this.bind(conn, s.serviceAccount.username, s.serviceAccount.password);
      } catch (err) {
        if (ldapCode(err) !== undefined)
          return { status: 500, reason: `service account bind failed (LDAP result ${ldapCode(err)})` };
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
      const search = () =>
        conn.client.search(dn, {
          scope: 'base',
          filter: searchFilter(s.searchFilter, username),
          attributes: [attribute],
          sizeLimit: 1,
        });
      const tracer = this.context.tracer;
      ({ searchEntries: entries } = await (tracer?.on ? tracer.span('LDAP group search', search, 'client') : search()));
      this.observe('search', start);
    } catch (err) {
      this.observe('search', start, err);
      // The bound identity cannot see its entry: treat as "not allowed", not as a server fault.
      if (ldapCode(err) === 32) return { status: 403, reason: 'user entry not visible to the bound identity' };
      throw err;
    }
    const entry = entries[0];
    if (!entry) return { status: 403, reason: 'user entry does not match searchFilter' };
    // Attribute names are case-insensitive; the directory usually answers in the configured case.
    const key =
      attribute in entry ? attribute : Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
    const raw = key ? entry[key] : [];
    const allowed = this.allowedGroups(s);
    const member = (Array.isArray(raw) ? raw : [raw]).some((v) => {
      const groupDn = this.groupDns.get(Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
      return groupDn !== false && allowed.has(groupDn);
    });
    if (!member) return { status: 403, reason: 'not a member of an allowed group' };
    return entry.dn;
  }
}

export const ldapModule: AuthModule<LdapSettings> = {
  field: 'ldap',
  parse: parseLdap,
  create: (context) => new LdapInstance(context),
};
