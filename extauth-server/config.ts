/**
 * The compiled AuthConfigs the server enforces (contract/proto/sluice/extauth/v1),
 * from `--config FILE` (proto JSON of AuthConfigSet) or from xDS (decoded
 * Any). Each config's settings are read by the module of its kind
 * (modules/index.ts); defaults the compiler may leave unset are applied there.
 */
import { loadJsonConfig } from '../runtime/config-file.js';
import { BoolExprError, boolExprNames, parseBoolExpr, type BoolExpr } from '../contract/boolean-expr.js';
import { bool, ConfigError, DEFAULT_POOL, field, list, obj, str, type PoolSettings } from './config-fields.js';
import type { AuthModule, SidecarDefaults } from './module.js';
import { MODULES } from './modules/index.js';

export { ConfigError, DEFAULT_POOL, MAX_POOL_SIZE, MAX_TIMEOUT_MS, type PoolSettings } from './config-fields.js';

/** One config of an AuthConfig: its name, the module of its kind and the settings that module read. */
export interface ConfigEntry<S = unknown> {
  name: string;
  module: AuthModule<S>;
  settings: S;
}

export interface AuthConfig {
  /** `<namespace>.<name>`, the value of context_extensions.config_ref. */
  name: string;
  configs: ConfigEntry[];
  /** Gloo's booleanExpr; absent: every config in order. */
  booleanExpr?: BoolExpr;
  failOnRedirect: boolean;
}

const defaultsOf = (ldapPool: PoolSettings): SidecarDefaults => ({ ldapPool });

function parseConfig(raw: unknown, where: string, index: number, defaults: SidecarDefaults): ConfigEntry {
  const o = obj(raw, where);
  const name = str(o, 'name', where) || `config_${index}`;
  const kinds = MODULES.filter((m) => field(o, m.field) !== undefined && field(o, m.field) !== null);
  if (kinds.length !== 1) {
    const found = Object.keys(o).filter((k) => k !== 'name');
    throw new ConfigError(
      kinds.length > 1
        ? `${where}: ${kinds.map((m) => m.field).join(' and ')} set; a config has exactly one kind`
        : `${where}: ${found.length ? `no kind sluice-extauth implements (${found.join(', ')})` : 'no kind set'}; it implements ${MODULES.map((m) => m.field).join(', ')}`,
    );
  }
  const module = kinds[0]!;
  return {
    name,
    module,
    settings: module.parse(
      obj(field(o, module.field), `${where}.${module.field}`),
      `${where}.${module.field}`,
      defaults,
    ),
  };
}

/** One `sluice.extauth.v1.AuthConfig` as proto3 JSON (from a file, or an Any decoded by contract/codec.ts). */
export function parseAuthConfig(
  raw: unknown,
  where = 'AuthConfig',
  poolDefaults: PoolSettings = DEFAULT_POOL,
): AuthConfig {
  const o = obj(raw, where);
  const name = str(o, 'name', where, true);
  const at = `${where} ${name}`;
  const configs = list(o, 'configs', at).map((c, i) =>
    parseConfig(c, `${at}.configs[${i}]`, i, defaultsOf(poolDefaults)),
  );
  const seen = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.name)) throw new ConfigError(`${at}.configs: two configs are named "${c.name}"`);
    seen.add(c.name);
  }
  const text = str(o, 'boolean_expr', at);
  let booleanExpr: BoolExpr | undefined;
  if (text) {
    try {
      booleanExpr = parseBoolExpr(text);
    } catch (err) {
      if (err instanceof BoolExprError) throw new ConfigError(`${at}.boolean_expr: ${err.message}`);
      throw err;
    }
    const unknown = boolExprNames(booleanExpr).filter((n) => !seen.has(n));
    if (unknown.length)
      throw new ConfigError(`${at}.boolean_expr: names no config ${unknown.map((n) => JSON.stringify(n)).join(', ')}`);
  }
  return { name, configs, ...(booleanExpr ? { booleanExpr } : {}), failOnRedirect: bool(o, 'fail_on_redirect', at) };
}

/** The `AuthConfigSet` JSON that `sluice compile -o DIR` writes to DIR/extauth.json. */
export function parseAuthConfigSet(raw: unknown, poolDefaults: PoolSettings = DEFAULT_POOL): AuthConfig[] {
  const o = obj(raw, 'AuthConfigSet');
  const configs = list(o, 'resources', 'AuthConfigSet').map((r, i) =>
    parseAuthConfig(r, `resources[${i}]`, poolDefaults),
  );
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
