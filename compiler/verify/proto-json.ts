/**
 * Proto3 JSON against Envoy's own message types: a strict checker of the
 * shape rules of the proto3 JSON mapping plus protoc-gen-validate's
 * `validate.rules`. (contract/codec.ts puts the same JSON on the wire.)
 *
 * Every message type is compiled once into a plan (contract/message-plan.ts:
 * field table, rules); checking a value then walks the JSON and the plans only.
 */
import type protobuf from 'protobufjs';
import { isIP } from 'node:net';
import { findType } from '../../contract/envoy.js';
import { fullNameOf, planOf, WRAPPERS, type FieldPlan, type Rules, type TypePlan } from '../../contract/message-plan.js';
import { formatDuration, parseDuration } from '../../contract/proto3-json.js';
import { formatPath } from '../diagnostics.js';
import type { Json } from '../translate/output.js';

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

// ---------------------------------------------------------------- regexes

const HEADER_NAME_RE = /^:?[0-9a-zA-Z!#$%&'*+\-.^_|~`]+$/;
// eslint-disable-next-line no-control-regex
const HEADER_VALUE_RE = /^[^\u0000-\u0008\u000A-\u001F\u007F]*$/;
// eslint-disable-next-line no-control-regex
const HEADER_LOOSE_RE = /^[^\u0000\u000A\u000D]*$/;
const HOSTNAME_RE = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const INT_RE = /^-?\d+$/;
const UINT_RE = /^\d+$/;
const FLOAT_RE = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const BASE64_RE = /^[A-Za-z0-9+/\-_]*={0,2}$/;
const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const patternCache = new Map<string, RegExp | null>();
/** PGV patterns are RE2; the ones in Envoy's protos are also valid JS regexes. */
function compiledPattern(src: string): RegExp | null {
  let re = patternCache.get(src);
  if (re === undefined) {
    try {
      re = new RegExp(src, 'u');
    } catch {
      re = null;
    }
    patternCache.set(src, re);
  }
  return re;
}

// ---------------------------------------------------------------- checker

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

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

const ruleDurations = new WeakMap<object, bigint>();

function ruleDurationNanos(d: { seconds?: number | string; nanos?: number } | undefined): bigint | undefined {
  if (d === undefined) return undefined;
  let n = ruleDurations.get(d);
  if (n === undefined) {
    n = BigInt(d.seconds ?? 0) * 1_000_000_000n + BigInt(d.nanos ?? 0);
    ruleDurations.set(d, n);
  }
  return n;
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
    if (scratch.issues.length > 0) found.push({ field: fp, issues: scratch.issues.map(({ rule, message }) => ({ rule, message })) });
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

  private report(rule: string, message: string, extra?: PathPart): void {
    if (extra !== undefined) this.path.push(extra);
    this.issues.push({ path: formatPath(this.path), rule, message });
    if (extra !== undefined) this.path.pop();
  }

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
      if (fp.deprecated) this.report('deprecated', `${fp.name} is deprecated in ${plan.fullName}; use its replacement`, key);
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
        this.report('oneof.required', `one of ${op.fields.map((f) => f.name).join(', ')} is required (oneof ${op.name})`);
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
      if (r.map) this.mapRules(r.map, 0);
    } else if (fp.repeated) {
      if (r.repeated) this.repeatedRules(r.repeated, [], fp);
    } else if (fp.kind === 'message') {
      if (r.message?.required || r.duration?.required || r.any?.required || r.timestamp?.required) {
        this.report(`${r.duration ? 'duration' : r.any ? 'any' : r.timestamp ? 'timestamp' : 'message'}.required`, `${fp.name} is required`);
      }
    } else if (fp.kind === 'enum') {
      this.enumRules(r.enum, 0, fp.enumType!);
    } else {
      this.scalarRules(fp.kind, r, fp.kind === 'string' ? '' : fp.kind === 'bool' ? false : fp.kind === 'bytes' ? '' : 0);
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
      if (r?.map) this.mapRules(r.map, pairs);
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
      if (r?.repeated) this.repeatedRules(r.repeated, v, fp);
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
      if (n !== undefined && r?.enum) this.enumRules(r.enum, n, fp.enumType!);
    } else {
      const ok = this.scalar(fp.kind, v);
      if (ok && r) this.scalarRules(fp.kind, r, v);
    }
  }

  private mapKey(keyType: string, k: string, keyRules: Rules | undefined): void {
    let value: unknown = k;
    if (keyType === 'bool') {
      if (k !== 'true' && k !== 'false') this.report('json_type', `map key must be "true" or "false", got ${JSON.stringify(k)}`, k);
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
      this.scalarRules(keyType, keyRules, value);
      this.path.pop();
    }
  }

  private enumValue(e: protobuf.Enum, v: unknown): number | undefined {
    if (typeof v === 'string') {
      const n = e.values[v];
      if (n === undefined) {
        this.report('enum', `unknown ${fullNameOf(e)} value ${JSON.stringify(v)}; one of ${Object.keys(e.values).join(', ')}`);
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
        if (typeof v === 'string' && (FLOAT_RE.test(v) || v === 'NaN' || v === 'Infinity' || v === '-Infinity')) return true;
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
    this.report('json_type', `expected ${kind === 'string' || kind === 'bytes' ? 'a string' : kind === 'bool' ? 'a boolean' : `a number (${kind})`}, got ${describe(v)}`);
    return false;
  }

  private scalarRules(kind: string, r: Rules, v: unknown): void {
    if (kind === 'string') {
      if (r.string) this.stringRules(r.string, v as string);
    } else if (kind === 'bytes') {
      if (r.bytes) this.bytesRules(r.bytes, v as string);
    } else if (kind === 'bool') {
      if (r.bool?.const !== undefined && v !== r.bool.const) this.report('bool.const', `must be ${r.bool.const}`);
    } else {
      const nr = r[kind];
      if (nr) this.numberRules(kind, nr, Number(v));
    }
  }

  private numberRules(kind: string, r: Rules, n: number): void {
    if (r.ignore_empty && n === 0) return;
    if (r.const !== undefined && n !== Number(r.const)) this.report(`${kind}.const`, `must be ${r.const}, got ${n}`);
    const gt = r.gt !== undefined ? Number(r.gt) : undefined;
    const gte = r.gte !== undefined ? Number(r.gte) : undefined;
    const lt = r.lt !== undefined ? Number(r.lt) : undefined;
    const lte = r.lte !== undefined ? Number(r.lte) : undefined;
    this.range(kind, n, gt, gte, lt, lte, String);
    if (r.in !== undefined && !asList(r.in).some((x) => Number(x) === n)) this.report(`${kind}.in`, `must be one of ${asList(r.in).join(', ')}, got ${n}`);
    if (r.not_in !== undefined && asList(r.not_in).some((x) => Number(x) === n)) this.report(`${kind}.not_in`, `must not be ${n}`);
  }

  /** PGV range semantics, including the exclusive form (lt < gt: value must be outside). */
  private range<T extends number | bigint>(kind: string, n: T, gt: T | undefined, gte: T | undefined, lt: T | undefined, lte: T | undefined, show: (x: T) => string): void {
    const low = gt ?? gte;
    const high = lt ?? lte;
    const aboveLow = gt !== undefined ? n > gt : gte !== undefined ? n >= gte : true;
    const belowHigh = lt !== undefined ? n < lt : lte !== undefined ? n <= lte : true;
    if (low !== undefined && high !== undefined) {
      const outside = high < low;
      const ok = outside ? aboveLow || belowHigh : aboveLow && belowHigh;
      if (ok) return;
      const lo = `${gt !== undefined ? '(' : '['}${show(low)}`;
      const hi = `${show(high)}${lt !== undefined ? ')' : ']'}`;
      const rule = `${kind}.${!aboveLow ? (gt !== undefined ? 'gt' : 'gte') : lt !== undefined ? 'lt' : 'lte'}`;
      this.report(rule, `must be ${outside ? 'outside' : 'in'} range ${lo}, ${hi}, got ${show(n)}`);
      return;
    }
    if (!aboveLow) this.report(`${kind}.${gt !== undefined ? 'gt' : 'gte'}`, `must be ${gt !== undefined ? 'greater than' : 'at least'} ${show(low!)}, got ${show(n)}`);
    if (!belowHigh) this.report(`${kind}.${lt !== undefined ? 'lt' : 'lte'}`, `must be ${lt !== undefined ? 'less than' : 'at most'} ${show(high!)}, got ${show(n)}`);
  }

  private stringRules(r: Rules, s: string): void {
    if (r.ignore_empty && s === '') return;
    if (r.const !== undefined && s !== r.const) this.report('string.const', `must be ${JSON.stringify(r.const)}`);
    if (r.len !== undefined && codePoints(s) !== Number(r.len)) this.report('string.len', `must be exactly ${r.len} characters`);
    if (r.min_len !== undefined && codePoints(s) < Number(r.min_len)) {
      this.report('string.min_len', Number(r.min_len) === 1 ? 'must not be empty' : `must be at least ${r.min_len} characters, got ${codePoints(s)}`);
    }
    if (r.max_len !== undefined && codePoints(s) > Number(r.max_len)) this.report('string.max_len', `must be at most ${r.max_len} characters, got ${codePoints(s)}`);
    if (r.min_bytes !== undefined || r.max_bytes !== undefined || r.len_bytes !== undefined) {
      const bytes = Buffer.byteLength(s, 'utf8');
      if (r.min_bytes !== undefined && bytes < Number(r.min_bytes)) this.report('string.min_bytes', `must be at least ${r.min_bytes} bytes, got ${bytes}`);
      if (r.max_bytes !== undefined && bytes > Number(r.max_bytes)) this.report('string.max_bytes', `must be at most ${r.max_bytes} bytes, got ${bytes}`);
      if (r.len_bytes !== undefined && bytes !== Number(r.len_bytes)) this.report('string.len_bytes', `must be exactly ${r.len_bytes} bytes`);
    }
    if (r.prefix !== undefined && !s.startsWith(r.prefix)) this.report('string.prefix', `must start with ${JSON.stringify(r.prefix)}`);
    if (r.suffix !== undefined && !s.endsWith(r.suffix)) this.report('string.suffix', `must end with ${JSON.stringify(r.suffix)}`);
    if (r.contains !== undefined && !s.includes(r.contains)) this.report('string.contains', `must contain ${JSON.stringify(r.contains)}`);
    if (r.not_contains !== undefined && s.includes(r.not_contains)) this.report('string.not_contains', `must not contain ${JSON.stringify(r.not_contains)}`);
    if (r.in !== undefined && !asList(r.in).includes(s)) this.report('string.in', `must be one of ${asList(r.in).map((x) => JSON.stringify(x)).join(', ')}, got ${JSON.stringify(s)}`);
    if (r.not_in !== undefined && asList(r.not_in).includes(s)) this.report('string.not_in', `must not be ${JSON.stringify(s)}`);
    if (r.pattern !== undefined) {
      const re = compiledPattern(r.pattern);
      if (re && !re.test(s)) this.report('string.pattern', `must match /${r.pattern}/, got ${JSON.stringify(s)}`);
    }
    if (r.well_known_regex !== undefined) {
      const strict = r.strict !== false;
      const which = r.well_known_regex as string;
      const re = !strict ? HEADER_LOOSE_RE : which === 'HTTP_HEADER_NAME' ? HEADER_NAME_RE : which === 'HTTP_HEADER_VALUE' ? HEADER_VALUE_RE : undefined;
      if (re && !re.test(s)) this.report('string.well_known_regex', `must be a valid ${which === 'HTTP_HEADER_NAME' ? 'HTTP header name' : 'HTTP header value'}, got ${JSON.stringify(s)}`);
    }
    if (s !== '' || !r.ignore_empty) this.wellKnownFormat(r, s);
  }

  private wellKnownFormat(r: Rules, s: string): void {
    const bad = (what: string, rule: string) => this.report(`string.${rule}`, `must be ${what}, got ${JSON.stringify(s)}`);
    if (r.ip && !isIP(s)) bad('an IP address', 'ip');
    if (r.ipv4 && isIP(s) !== 4) bad('an IPv4 address', 'ipv4');
    if (r.ipv6 && isIP(s) !== 6) bad('an IPv6 address', 'ipv6');
    if (r.hostname && !HOSTNAME_RE.test(s)) bad('a hostname', 'hostname');
    if (r.address && !isIP(s) && !HOSTNAME_RE.test(s)) bad('a hostname or IP address', 'address');
    if (r.uuid && !UUID_RE.test(s)) bad('a UUID', 'uuid');
    if (r.uri && !URL.canParse(s)) bad('an absolute URI', 'uri');
    if (r.email && !/^[^@\s]+@[^@\s]+$/.test(s)) bad('an email address', 'email');
  }

  private bytesRules(r: Rules, b64: string): void {
    if (r.ignore_empty && b64 === '') return;
    const n = Buffer.from(b64, 'base64').length;
    if (r.min_len !== undefined && n < Number(r.min_len)) this.report('bytes.min_len', `must be at least ${r.min_len} bytes, got ${n}`);
    if (r.max_len !== undefined && n > Number(r.max_len)) this.report('bytes.max_len', `must be at most ${r.max_len} bytes, got ${n}`);
    if (r.len !== undefined && n !== Number(r.len)) this.report('bytes.len', `must be exactly ${r.len} bytes, got ${n}`);
  }

  private enumRules(r: Rules | undefined, n: number, e: protobuf.Enum): void {
    if (!r) return;
    const name = e.valuesById[n] ?? String(n);
    if (r.defined_only && e.valuesById[n] === undefined) this.report('enum.defined_only', `${n} is not a defined value of ${fullNameOf(e)}`);
    if (r.const !== undefined && n !== Number(r.const)) this.report('enum.const', `must be ${e.valuesById[Number(r.const)] ?? r.const}, got ${name}`);
    if (r.in !== undefined && !asList(r.in).some((x) => Number(x) === n)) this.report('enum.in', `must be one of ${asList(r.in).map((x) => e.valuesById[Number(x)] ?? x).join(', ')}, got ${name}`);
    if (r.not_in !== undefined && asList(r.not_in).some((x) => Number(x) === n)) this.report('enum.not_in', `must not be ${name}`);
  }

  private repeatedRules(r: Rules, list: unknown[], fp: FieldPlan): void {
    if (r.ignore_empty && list.length === 0) return;
    if (r.min_items !== undefined && list.length < Number(r.min_items)) {
      this.report('repeated.min_items', `needs at least ${r.min_items} item${Number(r.min_items) === 1 ? '' : 's'}, got ${list.length}`);
    }
    if (r.max_items !== undefined && list.length > Number(r.max_items)) this.report('repeated.max_items', `allows at most ${r.max_items} items, got ${list.length}`);
    if (r.unique && list.length > 1) {
      const seen = new Set<unknown>();
      for (let i = 0; i < list.length; i++) {
        const key = fp.kind === 'message' ? JSON.stringify(list[i]) : list[i];
        if (seen.has(key)) this.report('repeated.unique', `items must be unique; ${JSON.stringify(list[i])} repeats`, i);
        seen.add(key);
      }
    }
  }

  private mapRules(r: Rules, pairs: number): void {
    if (r.ignore_empty && pairs === 0) return;
    if (r.min_pairs !== undefined && pairs < Number(r.min_pairs)) this.report('map.min_pairs', `needs at least ${r.min_pairs} entr${Number(r.min_pairs) === 1 ? 'y' : 'ies'}, got ${pairs}`);
    if (r.max_pairs !== undefined && pairs > Number(r.max_pairs)) this.report('map.max_pairs', `allows at most ${r.max_pairs} entries, got ${pairs}`);
  }

  /** Rules on a message-typed field: any/duration/timestamp, or scalar rules on a wrapper. */
  private messageRules(plan: TypePlan, v: unknown, r: Rules): void {
    if (plan.wkt === 'duration' && r.duration && typeof v === 'string') {
      const n = parseDuration(v);
      if (n === undefined) return;
      const d = r.duration;
      if (d.const !== undefined && n !== ruleDurationNanos(d.const)) this.report('duration.const', `must be ${formatDuration(ruleDurationNanos(d.const)!)}`);
      this.range('duration', n, ruleDurationNanos(d.gt), ruleDurationNanos(d.gte), ruleDurationNanos(d.lt), ruleDurationNanos(d.lte), formatDuration);
      if (d.in !== undefined && !asList(d.in).some((x) => ruleDurationNanos(x as never) === n)) this.report('duration.in', `must be one of ${asList(d.in).map((x) => formatDuration(ruleDurationNanos(x as never)!)).join(', ')}`);
      if (d.not_in !== undefined && asList(d.not_in).some((x) => ruleDurationNanos(x as never) === n)) this.report('duration.not_in', `must not be ${v}`);
    } else if (plan.wkt === 'any' && r.any && v && typeof v === 'object') {
      const url = (v as Json)['@type'];
      if (typeof url !== 'string') return;
      if (r.any.in !== undefined && !asList(r.any.in).includes(url)) this.report('any.in', `type must be one of ${asList(r.any.in).join(', ')}, got ${url}`);
      if (r.any.not_in !== undefined && asList(r.any.not_in).includes(url)) this.report('any.not_in', `type must not be ${url}`);
    } else if (plan.wkt === 'wrapper') {
      const kind = WRAPPERS[plan.fullName];
      if (this.scalarOk(kind, v)) this.scalarRules(kind, r, v);
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
        if (n === undefined) this.report('duration', `invalid duration ${JSON.stringify(v)}; write seconds with an "s" suffix, e.g. "1.5s"`);
        else if (n > 315_576_000_000n * 1_000_000_000n || n < -315_576_000_000n * 1_000_000_000n) this.report('duration', `duration ${v} is out of range`);
        return;
      }
      case 'timestamp':
        if (typeof v !== 'string' || !TIMESTAMP_RE.test(v) || Number.isNaN(Date.parse(v))) {
          this.report('json_type', `expected an RFC 3339 timestamp like "2024-01-01T00:00:00Z", got ${describe(v)}`);
        }
        return;
      case 'field_mask':
        if (typeof v !== 'string') this.report('json_type', `expected a field mask string like "a.b,c", got ${describe(v)}`);
        return;
      case 'struct':
        if (v === null || typeof v !== 'object' || Array.isArray(v)) this.report('json_type', `expected an object (google.protobuf.Struct), got ${describe(v)}`);
        return;
      case 'list_value':
        if (!Array.isArray(v)) this.report('json_type', `expected a list (google.protobuf.ListValue), got ${describe(v)}`);
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
      this.report('any.type_url', `"@type" must be a type URL like "type.googleapis.com/<message>", got ${describe(url)}`, '@type');
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
      for (const k in obj) if (k !== '@type' && k !== 'value') this.report('unknown_field', `unknown field "${k}" in an Any of ${plan.fullName} (only "value")`, k);
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
  if (!type) return [{ path: formatPath(opts.basePath ?? []), rule: 'type', message: `no message type ${typeName} in the loaded protos` }];
  const c = new Checker(opts);
  c.message(planOf(type), json);
  return c.issues;
}

