/**
 * Message plans: each protobufjs message type compiled once into what a walk
 * over its proto3 JSON needs (field table by proto and JSON name, oneofs,
 * well-known-type kind, protoc-gen-validate rules). The wire codec
 * (codec.ts) and the compiler's verifier share them.
 */
import protobuf from 'protobufjs';
import { findType } from './envoy.js';
import { lowerCamel } from './proto3-json.js';

/** protoc-gen-validate's `(validate.rules)` of a field, as parsed options. */
export type Rules = { [k: string]: any };

/** The wrapper types and the scalar each holds. */
export const WRAPPERS: Record<string, string> = {
  'google.protobuf.DoubleValue': 'double',
  'google.protobuf.FloatValue': 'float',
  'google.protobuf.Int64Value': 'int64',
  'google.protobuf.UInt64Value': 'uint64',
  'google.protobuf.Int32Value': 'int32',
  'google.protobuf.UInt32Value': 'uint32',
  'google.protobuf.BoolValue': 'bool',
  'google.protobuf.StringValue': 'string',
  'google.protobuf.BytesValue': 'bytes',
};

/** Well-known types whose JSON form is not an object of their fields. */
export type Wkt =
  'any' | 'duration' | 'timestamp' | 'field_mask' | 'struct' | 'value' | 'list_value' | 'wrapper' | undefined;

function wktOf(fullName: string): Wkt {
  switch (fullName) {
    case 'google.protobuf.Any':
      return 'any';
    case 'google.protobuf.Duration':
      return 'duration';
    case 'google.protobuf.Timestamp':
      return 'timestamp';
    case 'google.protobuf.FieldMask':
      return 'field_mask';
    case 'google.protobuf.Struct':
      return 'struct';
    case 'google.protobuf.Value':
      return 'value';
    case 'google.protobuf.ListValue':
      return 'list_value';
    default:
      return fullName in WRAPPERS ? 'wrapper' : undefined;
  }
}

export interface FieldPlan {
  name: string;
  id: number;
  /** lowerCamel (or explicit json_name), accepted as protobuf's JSON parser does. */
  jsonName: string;
  repeated: boolean;
  map: boolean;
  keyType: string;
  /** Scalar type name, or 'enum' / 'message'. */
  kind: string;
  enumType?: protobuf.Enum;
  msgType?: protobuf.Type;
  rules?: Rules;
  /** A real oneof (not proto3 `optional`) this field belongs to. */
  oneof?: OneofPlan;
  optional: boolean;
  /** google.protobuf.Value: the one field where JSON null is a value, not "unset". */
  isValue: boolean;
  /** `[deprecated = true]`: Envoy warns now and rejects later; generated config must not use it. */
  deprecated: boolean;
}

export interface OneofPlan {
  name: string;
  index: number;
  fields: FieldPlan[];
  required: boolean;
}

export interface TypePlan {
  type: protobuf.Type;
  fullName: string;
  wkt: Wkt;
  byKey: Map<string, FieldPlan>;
  fields: FieldPlan[];
  oneofs: OneofPlan[];
  requiredOneofs: OneofPlan[];
}

const plans = new Map<protobuf.Type, TypePlan>();

/** A type's or enum's full name without the leading dot. */
export function fullNameOf(t: protobuf.ReflectionObject): string {
  return t.fullName.startsWith('.') ? t.fullName.slice(1) : t.fullName;
}

function validateRules(f: protobuf.Field): Rules | undefined {
  let rules: Rules | undefined;
  for (const opt of (f.parsedOptions ?? []) as Array<Record<string, unknown>>) {
    const r = opt['(validate.rules)'];
    if (r && typeof r === 'object') rules = rules ? { ...rules, ...r } : (r as Rules);
  }
  return rules;
}

/** The plan of a type, built on first use. */
export function planOf(type: protobuf.Type): TypePlan {
  let plan = plans.get(type);
  if (plan) return plan;
  const fullName = fullNameOf(type);
  plan = { type, fullName, wkt: wktOf(fullName), byKey: new Map(), fields: [], oneofs: [], requiredOneofs: [] };
  plans.set(type, plan);
  const oneofByName = new Map<string, OneofPlan>();
  for (const o of type.oneofsArray) {
    const synthetic = o.fieldsArray.length === 1 && o.fieldsArray[0].options?.proto3_optional === true;
    if (synthetic) continue;
    const op: OneofPlan = {
      name: o.name,
      index: plan.oneofs.length,
      fields: [],
      required: o.options?.['(validate.required)'] === true,
    };
    oneofByName.set(o.name, op);
    plan.oneofs.push(op);
    if (op.required) plan.requiredOneofs.push(op);
  }
  for (const f of type.fieldsArray) {
    f.resolve();
    const rt = f.resolvedType;
    const fp: FieldPlan = {
      name: f.name,
      id: f.id,
      jsonName: (f.options?.json_name as string | undefined) ?? lowerCamel(f.name),
      repeated: f.repeated,
      map: f.map,
      keyType: f.map ? (f as unknown as protobuf.MapField).keyType : '',
      kind: rt instanceof protobuf.Enum ? 'enum' : rt instanceof protobuf.Type ? 'message' : f.type,
      enumType: rt instanceof protobuf.Enum ? rt : undefined,
      msgType: rt instanceof protobuf.Type ? rt : undefined,
      rules: validateRules(f),
      optional: f.options?.proto3_optional === true,
      isValue: rt instanceof protobuf.Type && fullNameOf(rt) === 'google.protobuf.Value',
      deprecated: f.options?.deprecated === true,
    };
    if (f.partOf && oneofByName.has(f.partOf.name)) {
      fp.oneof = oneofByName.get(f.partOf.name);
      fp.oneof!.fields.push(fp);
    }
    plan.fields.push(fp);
    plan.byKey.set(fp.name, fp);
    if (fp.jsonName !== fp.name) plan.byKey.set(fp.jsonName, fp);
  }
  return plan;
}

/** The plan of a message type by full name or type URL; throws if the protos do not define it. */
export function planByName(typeName: string): TypePlan {
  const type = findType(typeName);
  if (!type) throw new Error(`no message type ${typeName} in the loaded protos`);
  return planOf(type);
}
