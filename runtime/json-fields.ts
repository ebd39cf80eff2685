/**
 * Reading a sidecar's proto3 JSON configuration (a --config file, or an Any
 * decoded by contract/codec.ts): a field by its snake_case or lowerCamel
 * name, its type checked, each error a `ConfigError` naming where it is.
 */
import { jsonField } from '../contract/proto3-json.js';

export class ConfigError extends Error {}

export type Obj = Record<string, unknown>;

export function obj(v: unknown, where: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Uint8Array)
    throw new ConfigError(`${where}: must be an object`);
  return v as Obj;
}

/** An optional message field: its object, or undefined when absent. */
export function message(o: Obj, name: string, where: string): Obj | undefined {
  const v = jsonField(o, name);
  return v === undefined || v === null ? undefined : obj(v, `${where}.${name}`);
}

/** A string field; absent is ''. */
export function str(o: Obj, name: string, where: string): string {
  const v = jsonField(o, name);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ConfigError(`${where}.${name}: must be a string`);
  return v;
}

export function bool(o: Obj, name: string, where: string): boolean {
  const v = jsonField(o, name);
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new ConfigError(`${where}.${name}: must be true or false`);
  return v;
}

/** A uint32 (proto3 JSON writes it as a number or a decimal string); absent is 0. */
export function uint32(o: Obj, name: string, where: string): number {
  const v = jsonField(o, name);
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff)
    throw new ConfigError(`${where}.${name}: must be an integer from 0 to 4294967295`);
  // -0 is proto3's unset as well.
  return n === 0 ? 0 : n;
}

export function list(o: Obj, name: string, where: string): unknown[] {
  const v = jsonField(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError(`${where}.${name}: must be a list`);
  return v;
}

/** An enum field by name (proto3 JSON) or number; absent is the value numbered 0. */
export function enumName(o: Obj, name: string, values: readonly string[], where: string): string {
  const v = jsonField(o, name);
  if (v === undefined || v === null) return values[0]!;
  if (typeof v === 'number' && Number.isInteger(v) && values[v] !== undefined) return values[v]!;
  if (typeof v === 'string' && values.includes(v)) return v;
  throw new ConfigError(`${where}.${name}: ${JSON.stringify(v)} is not one of ${values.join(', ')}`);
}
