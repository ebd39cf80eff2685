/**
 * google.protobuf.Struct as the modules handle it: plain JSON in and out,
 * encoded with the loaded protos (./protos.ts). Filter metadata arrives as
 * Structs, and passThroughAuth sends state and config as Structs.
 */
import { messageType } from './protos.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A google.protobuf.Value in proto-loader's object form (oneofs named by `kind`). */
interface ValueObject {
  null_value?: unknown;
  number_value?: number;
  string_value?: string;
  bool_value?: boolean;
  struct_value?: { fields?: Record<string, ValueObject> };
  list_value?: { values?: ValueObject[] };
  kind?: string;
}

function toValue(v: unknown): ValueObject {
  if (v === null || v === undefined) return { null_value: 'NULL_VALUE' };
  if (typeof v === 'number') return { number_value: v };
  if (typeof v === 'string') return { string_value: v };
  if (typeof v === 'boolean') return { bool_value: v };
  if (Array.isArray(v)) return { list_value: { values: v.map(toValue) } };
  return { struct_value: toStructObject(v as Record<string, unknown>) };
}

function toStructObject(o: Record<string, unknown>): { fields: Record<string, ValueObject> } {
  return { fields: Object.fromEntries(Object.entries(o).map(([k, v]) => [k, toValue(v)])) };
}

function fromValue(v: ValueObject): Json {
  switch (v.kind) {
    case 'number_value':
      return v.number_value!;
    case 'string_value':
      return v.string_value!;
    case 'bool_value':
      return v.bool_value!;
    case 'struct_value':
      return fromStructObject(v.struct_value!);
    case 'list_value':
      return (v.list_value!.values ?? []).map(fromValue);
    default:
      return null;
  }
}

function fromStructObject(s: { fields?: Record<string, ValueObject> }): { [key: string]: Json } {
  return Object.fromEntries(Object.entries(s.fields ?? {}).map(([k, v]) => [k, fromValue(v)]));
}

/** The JSON object an encoded Struct holds. */
export function decodeStruct(bytes: Uint8Array): { [key: string]: Json } {
  return fromStructObject(messageType('google.protobuf.Struct').deserialize(Buffer.from(bytes)) as { fields?: Record<string, ValueObject> });
}

/** A Struct in proto-loader's object form, to put in a message before it is serialized. */
export function structObject(o: Record<string, unknown>): { fields: Record<string, ValueObject> } {
  return toStructObject(o);
}

/** The JSON of a Struct in proto-loader's object form (as a decoded message holds it). */
export function structJson(s: { fields?: Record<string, ValueObject> } | null | undefined): { [key: string]: Json } {
  return s ? fromStructObject(s) : {};
}
