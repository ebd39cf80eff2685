/**
 * google.protobuf.Struct as the modules handle it: plain JSON in and out,
 * encoded with the loaded protos (./protos.ts). Filter metadata arrives as
 * Structs, and passThroughAuth sends state and config as Structs.
 */
import { messageType } from './protos.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A google.protobuf.Value in proto-loader's object form (oneofs named by `kind`); protobufjs defines the well-known types with camelCase fields, which keepCase keeps. */
interface ValueObject {
  nullValue?: unknown;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: { fields?: Record<string, ValueObject> };
  listValue?: { values?: ValueObject[] };
  kind?: string;
}

function toValue(v: unknown): ValueObject {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  return { structValue: toStructObject(v as Record<string, unknown>) };
}

function toStructObject(o: Record<string, unknown>): { fields: Record<string, ValueObject> } {
  return { fields: Object.fromEntries(Object.entries(o).map(([k, v]) => [k, toValue(v)])) };
}

function fromValue(v: ValueObject): Json {
  switch (v.kind) {
    case 'numberValue':
      return v.numberValue!;
    case 'stringValue':
      return v.stringValue!;
    case 'boolValue':
      return v.boolValue!;
    case 'structValue':
      return fromStructObject(v.structValue!);
    case 'listValue':
      return (v.listValue!.values ?? []).map(fromValue);
    default:
      return null;
  }
}

function fromStructObject(s: { fields?: Record<string, ValueObject> }): { [key: string]: Json } {
  return Object.fromEntries(Object.entries(s.fields ?? {}).map(([k, v]) => [k, fromValue(v)]));
}

/** The JSON object an encoded Struct holds. */
export function decodeStruct(bytes: Uint8Array): { [key: string]: Json } {
  return fromStructObject(
    messageType('google.protobuf.Struct').deserialize(Buffer.from(bytes)) as { fields?: Record<string, ValueObject> },
  );
}

/** A Struct in proto-loader's object form, to put in a message before it is serialized. */
export function structObject(o: Record<string, unknown>): { fields: Record<string, ValueObject> } {
  return toStructObject(o);
}

/** The JSON of a Struct in proto-loader's object form (as a decoded message holds it). */
export function structJson(s: { fields?: Record<string, ValueObject> } | null | undefined): { [key: string]: Json } {
  return s ? fromStructObject(s) : {};
}
