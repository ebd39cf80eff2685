/**
 * Proto3 JSON against Envoy's own message types: a strict checker of the
 * shape rules of the proto3 JSON mapping (here) plus protoc-gen-validate's
 * `validate.rules` (pgv-rules.ts). (contract/codec.ts puts the same JSON on the wire.)
 *
 * Every message type is compiled once into a plan (contract/message-plan.ts:
 * field table, rules); checking a value then walks the JSON and the plans only.
 */
import type protobuf from 'protobufjs';
import { findType } from '../../contract/envoy.js';
import {
  fullNameOf,
  planOf,
  WRAPPERS,
  type FieldPlan,
  type Rules,
  type TypePlan,
} from '../../contract/message-plan.js';
import { parseDuration } from '../../contract/proto3-json.js';
import { formatPath } from '../diagnostics.js';
import type { Json } from '../translate/output.js';
import { anyRules, durationRules, enumRules, mapRules, repeatedRules, scalarRules, type Report } from './pgv-rules.js';

export interface ProtoIssue {
  /** Readable JSON path, e.g. `static_resources.clusters[0].load_assignment.endpoints[0]`. */
  path: string;
  /** The rule broken, e.g. `unknown_field`, `json_type`, `string.min_len`, `oneof.required`. */
  rule: string;
  message: string;
}

/**
 * Called for every message of the named type met during a check (including
 * inside Any), so callers can gather cross-references in the same walk.
 * `path()` formats the current path; call it only when needed.
 */
export type MessageHook = (value: Json, path: () => string) => void;

export interface CheckOptions {
  hooks?: ReadonlyMap<string, MessageHook>;
  /** Prefix of every reported path, e.g. `['static_resources', 'clusters', 0]`. */
  basePath?: ReadonlyArray<string | number>;
}

const INT_RE = /^-?\d+$/;
const UINT_RE = /^\d+$/;
const FLOAT_RE = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const BASE64_RE = /^[A-Za-z0-9+/\-_]*={0,2}$/;
const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const INT_LIMITS: Record<string, [bigint, bigint]> = {
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
/** Small ints (all int32/uint32 values) are checked without BigInt. */
const NUM_LIMITS: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  sint32: [-(2 ** 31), 2 ** 31 - 1],
  sfixed32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  fixed32: [0, 2 ** 32 - 1],
};

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${JSON.stringify(v)}`;
}

type PathPart = string | number;
type AbsentIssues = Array<{ field: FieldPlan; issues: Array<{ rule: string; message: string }> }>;

const absentIssues = new Map<TypePlan, AbsentIssues>();

/**
 * PGV validates proto3 fields even when unset, against their default value;
 * that outcome is fixed per field, so it is computed once per type: the
 * fields whose default breaks their rules, with what to report when they are absent.
 */
function failWhenAbsent(plan: TypePlan): AbsentIssues {
  let found = absentIssues.get(plan);
  if (found) return found;
  found = [];
  absentIssues.set(plan, found);
  for (const fp of plan.fields) {
    if (!fp.rules || fp.oneof || fp.optional) continue;
    const scratch = new Checker({});
    scratch.absent(fp);
    if (scratch.issues.length > 0)
      found.push({ field: fp, issues: scratch.issues.map(({ rule, message }) => ({ rule, message })) });
  }
  return found;
}

class Checker {
  readonly issues: ProtoIssue[] = [];
  private readonly path: PathPart[];
  private readonly hooks?: ReadonlyMap<string, MessageHook>;
  private readonly pathFn = () => formatPath(this.path);

  constructor(opts: CheckOptions) {
    this.path = [...(opts.basePath ?? [])];
    this.hooks = opts.hooks;
  }

  /** Also handed to the rule checks (pgv-rules.ts). */
  private readonly report: Report = (rule, message, extra) => {
    if (extra !== undefined) this.path.push(extra);
    this.issues.push({ path: formatPath(this.path), rule, message });
    if (extra !== undefined) this.path.pop();
  };

  /** A JSON object as the message of `plan`. */
  message(plan: TypePlan, v: unknown, anyTypeKey = false): void {
    if (plan.wkt) {
      this.wkt(plan, v);
      return;
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      this.report('json_type', `expected an object (${plan.fullName}), got ${describe(v)}`);
      return;
    }
    const obj = v as Json;
    const hook = this.hooks?.get(plan.fullName);
    if (hook) hook(obj, this.pathFn);
    let seen: Set<FieldPlan> | undefined;
    /** Per oneof: the names of its members that are set, comma-joined. */
    let oneofSet: Array<string | undefined> | undefined;
    for (const key in obj) {
      const fp = plan.byKey.get(key);
      if (!fp) {
        if (anyTypeKey && key === '@type') continue;
        this.report('unknown_field', `unknown field "${key}" in ${plan.fullName}`, key);
        continue;
      }
      if (fp.jsonName !== fp.name) {
        seen ??= new Set();
        if (seen.has(fp)) {
          this.report('duplicate_field', `field ${fp.name} is given twice (as ${fp.name} and ${fp.jsonName})`, key);
          continue;
        }
        seen.add(fp);
      }
      const value = obj[key];
      if (value === null && !fp.isValue) continue; // proto3 JSON: null is the default value
      if (fp.deprecated)
        this.report('deprecated', `${fp.name} is deprecated in ${plan.fullName}; use its replacement`, key);
      if (fp.oneof) {
        oneofSet ??= new Array(plan.oneofs.length);
        const prev = oneofSet[fp.oneof.index];
        oneofSet[fp.oneof.index] = prev === undefined ? fp.name : `${prev}, ${fp.name}`;
      }
      this.path.push(key);
      this.field(fp, value);
      this.path.pop();
    }
    if (oneofSet) {
      for (const op of plan.oneofs) {
        const set = oneofSet[op.index];
        if (set?.includes(', ')) this.report('oneof', `only one of ${set} may be set (oneof ${op.name})`);
      }
    }
    for (const op of plan.requiredOneofs) {
      if (oneofSet?.[op.index] === undefined) {
        this.report(
          'oneof.required',
          `one of ${op.fields.map((f) => f.name).join(', ')} is required (oneof ${op.name})`,
        );
      }
    }
    for (const { field, issues } of failWhenAbsent(plan)) {
      const present = obj[field.name] ?? obj[field.jsonName];
      if (present === undefined || present === null) for (const i of issues) this.report(i.rule, i.message, field.name);
    }
  }

  /** The rules of an unset field, checked against its default value (see failWhenAbsent). */
  absent(fp: FieldPlan): void {
    const r = fp.rules!;
    this.path.push(fp.name);
    if (fp.map) {
      if (r.map) mapRules(this.report, r.map, 0);
    } else if (fp.repeated) {
      if (r.repeated) repeatedRules(this.report, r.repeated, [], fp);
    } else if (fp.kind === 'message') {
      if (r.message?.required || r.duration?.required || r.any?.required || r.timestamp?.required) {
        this.report(
          `${r.duration ? 'duration' : r.any ? 'any' : r.timestamp ? 'timestamp' : 'message'}.required`,
          `${fp.name} is required`,
        );
      }
    } else if (fp.kind === 'enum') {
      enumRules(this.report, r.enum, 0, fp.enumType!);
    } else {
      scalarRules(
        this.report,
        fp.kind,
        r,
        fp.kind === 'string' ? '' : fp.kind === 'bool' ? false : fp.kind === 'bytes' ? '' : 0,
      );
    }
    this.path.pop();
  }

  private field(fp: FieldPlan, v: unknown): void {
    const r = fp.rules;
    if (fp.map) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        this.report('json_type', `expected an object (map<${fp.keyType}, ...>), got ${describe(v)}`);
        return;
      }
      const obj = v as Json;
      let pairs = 0;
      const keyRules = r?.map?.keys;
      const valueRules = r?.map?.values;
      for (const k in obj) {
        pairs++;
        this.mapKey(fp.keyType, k, keyRules);
        this.path.push(k);
        this.element(fp, obj[k], valueRules);
        this.path.pop();
      }
      if (r?.map) mapRules(this.report, r.map, pairs);
      return;
    }
    if (fp.repeated) {
      if (!Array.isArray(v)) {
        this.report('json_type', `expected a list, got ${describe(v)}`);
        return;
      }
      const items = r?.repeated?.items;
      for (let i = 0; i < v.length; i++) {
        this.path.push(i);
        this.element(fp, v[i], items);
        this.path.pop();
      }
      if (r?.repeated) repeatedRules(this.report, r.repeated, v, fp);
      return;
    }
    this.element(fp, v, r);
  }

  /** One value of the field's element type, with that element's rules. */
  private element(fp: FieldPlan, v: unknown, r: Rules | undefined): void {
    if (fp.kind === 'message') {
      const plan = planOf(fp.msgType!);
      if (v === null && plan.wkt !== 'value') {
        this.report('json_type', `null is not allowed here (${plan.fullName})`);
        return;
      }
      this.message(plan, v);
      if (r) this.messageRules(plan, v, r);
    } else if (fp.kind === 'enum') {
      const n = this.enumValue(fp.enumType!, v);
      if (n !== undefined && r?.enum) enumRules(this.report, r.enum, n, fp.enumType!);
    } else {
      const ok = this.scalar(fp.kind, v);
      if (ok && r) scalarRules(this.report, fp.kind, r, v);
    }
  }

  private mapKey(keyType: string, k: string, keyRules: Rules | undefined): void {
    let value: unknown = k;
    if (keyType === 'bool') {
      if (k !== 'true' && k !== 'false')
        this.report('json_type', `map key must be "true" or "false", got ${JSON.stringify(k)}`, k);
      value = k === 'true';
    } else if (keyType !== 'string') {
      if (!(keyType.startsWith('u') || keyType.startsWith('fixed') ? UINT_RE : INT_RE).test(k)) {
        this.report('json_type', `map key must be an integer (${keyType}), got ${JSON.stringify(k)}`, k);
        return;
      }
      value = Number(k);
    }
    if (keyRules) {
      this.path.push(k);
      scalarRules(this.report, keyType, keyRules, value);
      this.path.pop();
    }
  }

  private enumValue(e: protobuf.Enum, v: unknown): number | undefined {
    if (typeof v === 'string') {
      const n = e.values[v];
      if (n === undefined) {
        this.report(
          'enum',
          `unknown ${fullNameOf(e)} value ${JSON.stringify(v)}; one of ${Object.keys(e.values).join(', ')}`,
        );
      }
      return n;
    }
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (v === null && fullNameOf(e) === 'google.protobuf.NullValue') return 0;
    this.report('json_type', `expected an enum name of ${fullNameOf(e)}, got ${describe(v)}`);
    return undefined;
  }

  /** JSON shape of a scalar; true if the value can be checked further. */
  private scalar(kind: string, v: unknown): boolean {
    switch (kind) {
      case 'string':
        if (typeof v === 'string') return true;
        break;
      case 'bool':
        if (typeof v === 'boolean') return true;
        break;
      case 'bytes':
        if (typeof v === 'string') {
          if (BASE64_RE.test(v)) return true;
          this.report('json_type', 'bytes must be base64');
          return false;
        }
        break;
      case 'double':
      case 'float':
        if (typeof v === 'number') return true;
        if (typeof v === 'string' && (FLOAT_RE.test(v) || v === 'NaN' || v === 'Infinity' || v === '-Infinity'))
          return true;
        break;
      default: {
        const small = NUM_LIMITS[kind];
        if (typeof v === 'number' && small) {
          if (Number.isInteger(v) && v >= small[0] && v <= small[1]) return true;
          this.report('json_type', `${v} is not a ${kind}`);
          return false;
        }
        const limits = INT_LIMITS[kind];
        if (!limits) break;
        let big: bigint | undefined;
        if (typeof v === 'number' && Number.isInteger(v)) big = BigInt(v);
        else if (typeof v === 'string' && INT_RE.test(v)) big = BigInt(v);
        if (big === undefined) break;
        if (big < limits[0] || big > limits[1]) {
          this.report('json_type', `${v} is out of range for ${kind}`);
          return false;
        }
        return true;
      }
    }
    this.report(
      'json_type',
      `expected ${kind === 'string' || kind === 'bytes' ? 'a string' : kind === 'bool' ? 'a boolean' : `a number (${kind})`}, got ${describe(v)}`,
    );
    return false;
  }

  /** Rules on a message-typed field: any/duration/timestamp, or scalar rules on a wrapper. */
  private messageRules(plan: TypePlan, v: unknown, r: Rules): void {
    if (plan.wkt === 'duration' && r.duration && typeof v === 'string') durationRules(this.report, r.duration, v);
    else if (plan.wkt === 'any' && r.any && v && typeof v === 'object')
      anyRules(this.report, r.any, (v as Json)['@type']);
    else if (plan.wkt === 'wrapper') {
      const kind = WRAPPERS[plan.fullName];
      if (this.scalarOk(kind, v)) scalarRules(this.report, kind, r, v);
    }
  }

  /** Scalar shape without reporting (the shape was already reported by wkt()). */
  private scalarOk(kind: string, v: unknown): boolean {
    if (kind === 'string' || kind === 'bytes') return typeof v === 'string';
    if (kind === 'bool') return typeof v === 'boolean';
    return typeof v === 'number' || (typeof v === 'string' && FLOAT_RE.test(v));
  }

  private wkt(plan: TypePlan, v: unknown): void {
    switch (plan.wkt) {
      case 'any':
        this.any(v);
        return;
      case 'duration': {
        if (typeof v !== 'string') {
          this.report('json_type', `expected a duration string like "1.5s", got ${describe(v)}`);
          return;
        }
        const n = parseDuration(v);
        if (n === undefined)
          this.report(
            'duration',
            `invalid duration ${JSON.stringify(v)}; write seconds with an "s" suffix, e.g. "1.5s"`,
          );
        else if (n > 315_576_000_000n * 1_000_000_000n || n < -315_576_000_000n * 1_000_000_000n)
          this.report('duration', `duration ${v} is out of range`);
        return;
      }
      case 'timestamp':
        if (typeof v !== 'string' || !TIMESTAMP_RE.test(v) || Number.isNaN(Date.parse(v))) {
          this.report('json_type', `expected an RFC 3339 timestamp like "2024-01-01T00:00:00Z", got ${describe(v)}`);
        }
        return;
      case 'field_mask':
        if (typeof v !== 'string')
          this.report('json_type', `expected a field mask string like "a.b,c", got ${describe(v)}`);
        return;
      case 'struct':
        if (v === null || typeof v !== 'object' || Array.isArray(v))
          this.report('json_type', `expected an object (google.protobuf.Struct), got ${describe(v)}`);
        return;
      case 'list_value':
        if (!Array.isArray(v))
          this.report('json_type', `expected a list (google.protobuf.ListValue), got ${describe(v)}`);
        return;
      case 'value':
        return; // any JSON
      case 'wrapper':
        this.scalar(WRAPPERS[plan.fullName], v);
        return;
    }
  }

  private any(v: unknown): void {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      this.report('json_type', `expected an object with "@type" (google.protobuf.Any), got ${describe(v)}`);
      return;
    }
    const obj = v as Json;
    const url = obj['@type'];
    if (url === undefined) {
      for (const _k in obj) {
        this.report('any.type_url', 'an Any with fields needs "@type"');
        return;
      }
      return;
    }
    if (typeof url !== 'string' || !url.includes('/')) {
      this.report(
        'any.type_url',
        `"@type" must be a type URL like "type.googleapis.com/<message>", got ${describe(url)}`,
        '@type',
      );
      return;
    }
    const type = findType(url);
    if (!type) {
      this.report('any.type_url', `"@type" ${url} names no message type in Envoy's API protos`, '@type');
      return;
    }
    const plan = planOf(type);
    if (plan.wkt) {
      // WKTs with a special JSON form sit under "value".
      for (const k in obj)
        if (k !== '@type' && k !== 'value')
          this.report('unknown_field', `unknown field "${k}" in an Any of ${plan.fullName} (only "value")`, k);
      this.path.push('value');
      this.message(plan, obj.value);
      this.path.pop();
      return;
    }
    this.message(plan, obj, true);
    if (TYPED_STRUCTS.has(plan.fullName)) this.typedStruct(obj);
  }

  /** Envoy turns a TypedStruct's `value` (a Struct) into the message its type_url names: check it as that. */
  private typedStruct(obj: Json): void {
    const url = obj.type_url;
    if (typeof url !== 'string') return;
    const type = findType(url);
    if (!type) {
      this.report('any.type_url', `type_url ${url} names no message type in Envoy's API protos`, 'type_url');
      return;
    }
    this.path.push('value');
    this.message(planOf(type), obj.value ?? {});
    this.path.pop();
  }
}

const TYPED_STRUCTS = new Set(['xds.type.v3.TypedStruct', 'udpa.type.v1.TypedStruct']);

/** Everything wrong with `json` as a `typeName` message (empty when it is valid). */
export function checkMessage(typeName: string, json: unknown, opts: CheckOptions = {}): ProtoIssue[] {
  const type = findType(typeName);
  if (!type)
    return [
      {
        path: formatPath(opts.basePath ?? []),
        rule: 'type',
        message: `no message type ${typeName} in the loaded protos`,
      },
    ];
  const c = new Checker(opts);
  c.message(planOf(type), json);
  return c.issues;
}
