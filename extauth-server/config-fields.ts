/**
 * Reading the proto3 JSON of a compiled AuthConfig (from a --config file, or
 * an Any decoded by contract/codec.ts): a field by its snake_case or
 * lowerCamel name, its type checked, an error naming where it is. Shared by
 * the AuthConfig envelope (config.ts) and every module's settings.
 */
import { jsonField as field } from '../contract/proto3-json.js';
import { DEFAULT_POOL_SIZE } from '../contract/extauth.js';

export class ConfigError extends Error {}

export type Obj = Record<string, unknown>;

export { field };

export function str(o: Obj, name: string, where: string, required = false): string {
  const v = field(o, name);
  if (v === undefined || v === null) {
    if (required) throw new ConfigError(`${where}.${name}: required`);
    return '';
  }
  if (typeof v !== 'string') throw new ConfigError(`${where}.${name}: must be a string`);
  if (required && !v) throw new ConfigError(`${where}.${name}: required`);
  return v;
}

export function bool(o: Obj, name: string, where: string): boolean {
  const v = field(o, name);
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new ConfigError(`${where}.${name}: must be true or false`);
  return v;
}

/** A uint32 field; 0 (proto3's "not set", however written) and absent give `fallback`. */
export function num(o: Obj, name: string, fallback: number, max: number, where: string): number {
  const v = field(o, name);
  if (v === undefined || v === null) return fallback;
  // Proto3 JSON writes a uint32 as a number or a decimal string.
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new ConfigError(`${where}.${name}: must be a non-negative integer`);
  // 0 is proto3's "not set", however it is written ("00", -0): the default, never a pool of 0 or no timeout.
  if (n === 0) return fallback;
  if (n > max) throw new ConfigError(`${where}.${name}: ${n} is above the limit of ${max}`);
  return n;
}

export function obj(v: unknown, where: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${where}: must be an object`);
  return v as Obj;
}

/** An optional message field: its object, or undefined when absent. */
export function message(o: Obj, name: string, where: string): Obj | undefined {
  const v = field(o, name);
  return v === undefined || v === null ? undefined : obj(v, `${where}.${name}`);
}

export function list(o: Obj, name: string, where: string): unknown[] {
  const v = field(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError(`${where}.${name}: must be a list`);
  return v;
}

export function strings(o: Obj, name: string, where: string): string[] {
  return list(o, name, where).map((s, i) => {
    if (typeof s !== 'string') throw new ConfigError(`${where}.${name}[${i}]: must be a string`);
    return s;
  });
}

/** A map field: its entries, each value read by `value`. */
export function entries<T>(
  o: Obj,
  name: string,
  where: string,
  value: (v: unknown, where: string) => T,
): [string, T][] {
  const m = message(o, name, where);
  return m ? Object.entries(m).map(([k, v]) => [k, value(v, `${where}.${name}[${JSON.stringify(k)}]`)]) : [];
}

export function stringValue(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new ConfigError(`${where}: must be a string`);
  return v;
}

export interface PoolSettings {
  initialSize: number;
  maxSize: number;
  connectTimeoutMs: number;
  operationTimeoutMs: number;
}

export const DEFAULT_POOL: PoolSettings = { ...DEFAULT_POOL_SIZE, connectTimeoutMs: 2000, operationTimeoutMs: 5000 };

/**
 * Upper bounds of timeouts and pool sizes. Node's timers fire after 1 ms for
 * any delay above 2^31-1 ms (every check would time out); 5 minutes is
 * already far beyond Envoy's wait for a Check. A pool is one connection each.
 */
export { MAX_TIMEOUT_MS } from '../contract/extauth.js';
export const MAX_POOL_SIZE = 1000;
