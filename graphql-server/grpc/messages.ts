/**
 * JSON <-> protobuf messages for gRPC resolvers.
 *
 * Outgoing: the rendered outgoingMessageJson is checked and converted field
 * by field against the request type, as protobuf's JSON mapping reads JSON:
 * fields by their proto name or lowerCamelCase JSON name; integers as numbers
 * or decimal strings ("12" into an int32), in range; bools as true/false or
 * "true"/"false"; any scalar into a string field as its text; enums by name
 * or number; nested messages, repeated fields and maps; null leaves a field
 * unset. protobufjs' own fromObject is not used because it coerces silently
 * ("abc" into an int32 is 0, "false" into a bool is true, an unknown enum
 * name or field is dropped): here each of those is an error naming the field.
 *
 * Incoming: a decoded message becomes a plain object carrying every field
 * under both its proto name and its JSON name (`full_name` and `fullName`),
 * so the GraphQL default resolver finds either spelling. Scalars that are
 * unset read as proto3 defaults (0, "", false, []); unset messages and
 * oneof members are null. 64-bit integers are decimal strings, exact:
 * GraphQL's Int takes them when they fit 32 bits (an error on the field
 * otherwise), String and ID keep every digit, Float takes the number.
 * Enums are names (the number when the upstream sends one the descriptor
 * does not list), bytes are base64.
 */
import type Long from 'long';
import protobuf from 'protobufjs';
import { lowerCamel } from '../../contract/proto3-json.js';

/** A message that does not fit its type; `path` names the field (`users.ListUsersRequest.page.size`). */
export class MessageError extends Error {}

/** A message's fields by proto name and JSON name. */
const fieldIndex = new WeakMap<protobuf.Type, Map<string, protobuf.Field>>();

function fieldsOf(type: protobuf.Type): Map<string, protobuf.Field> {
  let index = fieldIndex.get(type);
  if (!index) {
    index = new Map();
    for (const f of type.fieldsArray) index.set(lowerCamel(f.name), f).set(f.name, f);
    fieldIndex.set(type, index);
  }
  return index;
}

function fieldOf(type: protobuf.Type, key: string, path: string): protobuf.Field {
  const field = fieldsOf(type).get(key);
  if (!field)
    throw new MessageError(
      `${path}.${key}: ${type.fullName.slice(1)} has no such field (its fields: ${type.fieldsArray.map((f) => f.name).join(', ') || 'none'})`,
    );
  return field;
}

/**
 * Checks the literal keys of an outgoingMessageJson against the request type
 * (values are templates, known only per request): a misspelt field fails at
 * once, even when its template yields nothing.
 */
export function checkMessageTemplate(type: protobuf.Type, json: unknown, path = type.fullName.slice(1)): void {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    if (typeof json === 'string' || json === null) return;
    throw new MessageError(`${path}: a message is a JSON object, not ${JSON.stringify(json)}`);
  }
  for (const [key, value] of Object.entries(json)) {
    const field = fieldOf(type, key, path);
    const items = field.repeated && Array.isArray(value) ? value : [value];
    if (field.resolvedType instanceof protobuf.Type && !field.map)
      for (const item of items) checkMessageTemplate(field.resolvedType, item, `${path}.${field.name}`);
  }
}

const show = (v: unknown) => (typeof v === 'string' || typeof v === 'object' ? JSON.stringify(v) : String(v));

const INT_RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};

/** An integer of `type` from a number or a decimal string: a number for 32-bit types, a decimal string for 64-bit ones. */
function integer(v: unknown, type: string, path: string): number | string {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^-?\d+$/.test(v)) n = BigInt(v);
  const [min, max] = INT_RANGES[type]!;
  if (n === undefined) throw new MessageError(`${path}: expects an integer (${type}), got ${show(v)}`);
  if (n < min || n > max) throw new MessageError(`${path}: ${show(v)} is out of range for ${type} (${min} to ${max})`);
  return type.endsWith('64') ? n.toString() : Number(n);
}

function scalar(field: protobuf.Field, v: unknown, path: string): unknown {
  const type = field.type;
  if (type in INT_RANGES) return integer(v, type, path);
  switch (type) {
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
      break;
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      break;
    case 'double':
    case 'float':
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
      break;
    case 'bytes':
      if (typeof v === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(v)) return Buffer.from(v, 'base64');
      throw new MessageError(`${path}: expects bytes as base64 text, got ${show(v)}`);
  }
  throw new MessageError(`${path}: expects a ${type}, got ${show(v)}`);
}

/** A JSON object key as a key of a map<keyType, ...>. */
function mapKey(keyType: string, k: string, path: string): string {
  if (keyType === 'string') return k;
  if (keyType === 'bool') {
    if (k === 'true' || k === 'false') return k;
    throw new MessageError(`${path}: a map<bool, ...> key is "true" or "false"`);
  }
  return String(integer(k, keyType, path));
}

function enumValue(e: protobuf.Enum, v: unknown, path: string): number {
  if (typeof v === 'string' && Object.hasOwn(e.values, v)) return e.values[v]!;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : undefined;
  if (n !== undefined && Object.hasOwn(e.valuesById, n)) return n;
  throw new MessageError(
    `${path}: ${show(v)} is not a value of enum ${e.fullName.slice(1)} (${Object.keys(e.values).join(', ')})`,
  );
}

function single(field: protobuf.Field, v: unknown, path: string): unknown {
  const t = field.resolvedType;
  if (t instanceof protobuf.Type) return toMessage(t, v, path);
  if (t instanceof protobuf.Enum) return enumValue(t, v, path);
  return scalar(field, v, path);
}

/** `value` as a message of `type`, ready for type.encode; throws MessageError naming the field. */
export function toMessage(type: protobuf.Type, value: unknown, path = type.fullName.slice(1)): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new MessageError(`${path}: expects a ${type.fullName.slice(1)} message (a JSON object), got ${show(value)}`);
  const out: Record<string, unknown> = {};
  const oneofs = new Map<protobuf.OneOf, string>();
  for (const [key, v] of Object.entries(value)) {
    const field = fieldOf(type, key, path);
    if (v === null || v === undefined) continue;
    const at = `${path}.${field.name}`;
    if (field.partOf) {
      const other = oneofs.get(field.partOf);
      if (other !== undefined && other !== field.name)
        throw new MessageError(`${at}: oneof ${field.partOf.name} already has ${other}; set one of its fields`);
      oneofs.set(field.partOf, field.name);
    }
    if (field.map) {
      if (typeof v !== 'object' || Array.isArray(v))
        throw new MessageError(`${at}: a map is a JSON object, got ${show(v)}`);
      const keyType = (field as unknown as protobuf.MapField).keyType;
      const m: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        m[mapKey(keyType, k, `${at}[${k}]`)] = single(field, item, `${at}[${k}]`);
      }
      out[field.name] = m;
    } else if (field.repeated) {
      if (!Array.isArray(v)) throw new MessageError(`${at}: a repeated field is a JSON array, got ${show(v)}`);
      out[field.name] = v.map((item, i) => single(field, item, `${at}[${i}]`));
    } else {
      out[field.name] = single(field, v, at);
    }
  }
  return out;
}

type Convert = (v: unknown) => unknown;

interface FieldPlan {
  name: string;
  /** The JSON name when it differs. */
  json?: string;
  /** Null when not on the wire (oneof members, proto3 optional). */
  presence: boolean;
  convert: Convert;
  kind: 'single' | 'repeated' | 'map';
}

const plans = new WeakMap<protobuf.Type, FieldPlan[]>();

/** A 64-bit integer (a protobufjs Long, or a number without the long package) as exact decimal text. */
const asText: Convert = (v) => {
  if (typeof v !== 'object') return String(v);
  // Long's own toString divides in base 10 word by word; one below 2^53 prints faster as a number.
  const l = v as Long;
  const high = l.unsigned ? l.high >>> 0 : l.high;
  return high >= -0x200000 && high < 0x200000 ? String(l.toNumber()) : l.toString();
};
// An unset bytes field reads as protobufjs' empty array, not a Uint8Array.
const asBase64: Convert = (v) => Buffer.from(v as ArrayLike<number>).toString('base64');
const asIs: Convert = (v) => v;

function converter(field: protobuf.Field): Convert {
  const t = field.resolvedType;
  if (t instanceof protobuf.Type) return (v) => (v == null ? null : fromMessage(t, v as protobuf.Message));
  if (t instanceof protobuf.Enum) return (v) => t.valuesById[v as number] ?? v;
  if (field.long) return asText;
  if (field.type === 'bytes') return asBase64;
  return asIs;
}

function planOf(type: protobuf.Type): FieldPlan[] {
  let plan = plans.get(type);
  if (!plan) {
    plan = type.fieldsArray.map((f) => {
      const json = lowerCamel(f.name);
      return {
        name: f.name,
        json: json === f.name ? undefined : json,
        presence: !!f.partOf,
        convert: converter(f),
        kind: f.map ? 'map' : f.repeated ? 'repeated' : 'single',
      };
    });
    plans.set(type, plan);
  }
  return plan;
}

/** A decoded message as a plain object, each field under its proto and JSON names. */
export function fromMessage(type: protobuf.Type, message: protobuf.Message): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const m = message as unknown as Record<string, unknown>;
  for (const f of planOf(type)) {
    const raw = f.presence && !Object.hasOwn(m, f.name) ? null : m[f.name];
    let v: unknown;
    if (raw == null) v = f.kind === 'repeated' ? [] : f.kind === 'map' ? {} : null;
    else if (f.kind === 'repeated') v = (raw as unknown[]).map(f.convert);
    else if (f.kind === 'map')
      v = Object.fromEntries(Object.entries(raw as object).map(([k, item]) => [k, f.convert(item)]));
    else v = f.convert(raw);
    out[f.name] = v;
    if (f.json) out[f.json] = v;
  }
  return out;
}
