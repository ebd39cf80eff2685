/**
 * The compiled AuthConfigs the server enforces (contract/proto/sluice/extauth/v1),
 * from `--config FILE` (proto JSON of AuthConfigSet) or from xDS (decoded
 * Any). Defaults the compiler may leave unset are applied here.
 */
import { loadJsonConfig } from '../runtime/config-file.js';
import { normalizeDn } from '../contract/ldap-dn.js';
import { jsonField as field } from '../contract/proto3-json.js';
import { DEFAULT_MEMBERSHIP_ATTRIBUTE, DEFAULT_POOL_SIZE, DEFAULT_SEARCH_FILTER, ldapAddressProblem, quotableAddress, searchFilterProblem } from '../contract/extauth.js';

export interface PoolSettings {
  initialSize: number;
  maxSize: number;
  connectTimeoutMs: number;
  operationTimeoutMs: number;
}

export interface LdapSettings {
  address: string;
  userDnTemplate: string;
  allowedGroups: string[];
  searchFilter: string;
  membershipAttributeName: string;
  serviceAccount?: { username: string; password: string };
  pool: PoolSettings;
}

export interface AuthConfig {
  /** `<namespace>.<name>`, the value of context_extensions.config_ref. */
  name: string;
  ldap: LdapSettings[];
}

export const DEFAULT_POOL: PoolSettings = { ...DEFAULT_POOL_SIZE, connectTimeoutMs: 2000, operationTimeoutMs: 5000 };

/**
 * Upper bounds of the pool settings. Node's timers fire after 1 ms for any
 * delay above 2^31-1 ms (every check would time out); 5 minutes is already
 * far beyond Envoy's wait for a Check. A pool is one LDAP connection each.
 */
export const MAX_TIMEOUT_MS = 300_000;
export const MAX_POOL_SIZE = 1000;

export class ConfigError extends Error {}

type Obj = Record<string, unknown>;

function str(o: Obj, name: string, where: string, required = false): string {
  const v = field(o, name);
  if (v === undefined || v === null) {
    if (required) throw new ConfigError(`${where}.${name}: required`);
    return '';
  }
  if (typeof v !== 'string') throw new ConfigError(`${where}.${name}: must be a string`);
  if (required && !v) throw new ConfigError(`${where}.${name}: required`);
  return v;
}

function num(o: Obj, name: string, fallback: number, max: number, where: string): number {
  const v = field(o, name);
  if (v === undefined || v === null) return fallback;
  // Proto3 JSON writes a uint32 as a number or a decimal string.
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new ConfigError(`${where}.${name}: must be a non-negative integer`);
  // 0 is proto3's "not set", however it is written ("00", -0): the default, never a pool of 0 or no timeout.
  if (n === 0) return fallback;
  if (n > max) throw new ConfigError(`${where}.${name}: ${n} is above the limit of ${max}`);
  return n;
}

function obj(v: unknown, where: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${where}: must be an object`);
  return v as Obj;
}

function list(o: Obj, name: string, where: string): unknown[] {
  const v = field(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError(`${where}.${name}: must be a list`);
  return v;
}

function parseLdap(raw: Obj, where: string, poolDefaults: PoolSettings): LdapSettings {
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
    initialSize: p === undefined || p === null ? poolDefaults.initialSize : num(po, 'initial_size', 0, MAX_POOL_SIZE, pw),
    maxSize: num(po, 'max_size', poolDefaults.maxSize, MAX_POOL_SIZE, pw),
    connectTimeoutMs: num(po, 'connect_timeout_ms', poolDefaults.connectTimeoutMs, MAX_TIMEOUT_MS, pw),
    operationTimeoutMs: num(po, 'operation_timeout_ms', poolDefaults.operationTimeoutMs, MAX_TIMEOUT_MS, pw),
  };
  if (pool.initialSize > pool.maxSize) throw new ConfigError(`${pw}.initial_size: ${pool.initialSize} is larger than max_size ${pool.maxSize}`);
  const searchFilter = str(raw, 'search_filter', where) || DEFAULT_SEARCH_FILTER;
  const filterProblem = searchFilterProblem(searchFilter);
  if (filterProblem) throw new ConfigError(`${where}.search_filter: "${searchFilter}" ${filterProblem}`);
  return {
    address,
    userDnTemplate,
    allowedGroups,
    searchFilter,
    membershipAttributeName: str(raw, 'membership_attribute_name', where) || DEFAULT_MEMBERSHIP_ATTRIBUTE,
    ...(serviceAccount ? { serviceAccount } : {}),
    pool,
  };
}

/** One `sluice.extauth.v1.AuthConfig` as proto3 JSON (from a file, or an Any decoded by contract/codec.ts). */
export function parseAuthConfig(raw: unknown, where = 'AuthConfig', poolDefaults: PoolSettings = DEFAULT_POOL): AuthConfig {
  const o = obj(raw, where);
  const name = str(o, 'name', where, true);
  const at = `${where} ${name}`;
  const ldap = list(o, 'configs', at).map((c, i) => {
    const co = obj(c, `${at}.configs[${i}]`);
    const l = field(co, 'ldap');
    if (l === undefined || l === null) throw new ConfigError(`${at}.configs[${i}]: only ldap configs are supported`);
    return parseLdap(obj(l, `${at}.configs[${i}].ldap`), `${at}.configs[${i}].ldap`, poolDefaults);
  });
  return { name, ldap };
}

/** The `AuthConfigSet` JSON that `sluice compile -o DIR` writes to DIR/extauth.json. */
export function parseAuthConfigSet(raw: unknown, poolDefaults: PoolSettings = DEFAULT_POOL): AuthConfig[] {
  const o = obj(raw, 'AuthConfigSet');
  const configs = list(o, 'resources', 'AuthConfigSet').map((r, i) => parseAuthConfig(r, `resources[${i}]`, poolDefaults));
  const seen = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.name)) throw new ConfigError(`AuthConfig ${c.name} is defined twice`);
    seen.add(c.name);
  }
  return configs;
}

export async function loadConfigFile(file: string, poolDefaults: PoolSettings = DEFAULT_POOL): Promise<AuthConfig[]> {
  return loadJsonConfig(file, (json) => parseAuthConfigSet(json, poolDefaults), ConfigError);
}
