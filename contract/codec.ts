/**
 * Proto3 JSON <-> protobuf wire format, driven by the message plans
 * (message-plan.ts) over the shared Root of contract/envoy.ts. The xDS server
 * encodes with it; the sidecars decode the Anys they receive with it.
 * JSON objects use snake_case proto names (lowerCamel is accepted on encode),
 * `@type` on Any, int64 as strings and enums by name, as the compiler writes them.
 */
import protobuf from 'protobufjs';
import { findType } from './envoy.js';
import { planByName, planOf, WRAPPERS, type FieldPlan, type TypePlan } from './message-plan.js';
import { formatDuration, lowerCamel, parseDuration } from './proto3-json.js';

/** A proto3 JSON message. */
export type JsonObject = { [key: string]: unknown };

/**
 * Proto3 JSON straight to the wire format, in two passes over the same
 * traversal: the first sizes every length-delimited part (recorded in order
 * in `lens`), the second writes into one buffer of the exact size. No
 * intermediate objects: a 10,000-virtual-host RouteConfiguration is one walk
 * each way.
 */
class Wire {
  /** Lengths of nested messages, packed runs and strings, in traversal order. */
  private readonly lens: number[] = [];
  private cursor = 0;
  private size = 0;
  private buf: Buffer | undefined;
  private pos = 0;

  encode(plan: TypePlan, json: unknown): Uint8Array {
    this.message(plan, json);
    this.buf = Buffer.allocUnsafe(this.size);
    this.message(plan, json);
    if (this.pos !== this.size) throw new Error(`internal encoder error: sized ${this.size} bytes, wrote ${this.pos}`);
    return this.buf;
  }

  // --- primitive sinks: size mode when buf is undefined

  private byte(b: number): void {
    this.buf![this.pos++] = b;
  }

  /** Non-negative integer below 2^53. */
  private varint(n: number): void {
    if (!this.buf) {
      let bytes = 1;
      for (let rest = n; rest >= 0x80; rest = Math.floor(rest / 0x80)) bytes++;
      this.size += bytes;
      return;
    }
    while (n >= 0x80) {
      this.byte((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.byte(n);
  }

  private varintBig(v: bigint): void {
    let n = BigInt.asUintN(64, v);
    if (n < 2n ** 53n) {
      this.varint(Number(n));
      return;
    }
    while (n >= 0x80n) {
      if (this.buf) this.byte(Number(n & 0x7fn) | 0x80);
      else this.size++;
      n >>= 7n;
    }
    if (this.buf) this.byte(Number(n));
    else this.size++;
  }

  private tag(id: number, wire: number): void {
    this.varint(id * 8 + wire);
  }

  private fixed(bytes: 4 | 8, write: (b: Buffer, at: number) => void): void {
    if (this.buf) write(this.buf, this.pos);
    if (this.buf) this.pos += bytes;
    else this.size += bytes;
  }

  private string(s: string): void {
    if (!this.buf) {
      const n = Buffer.byteLength(s, 'utf8');
      this.lens.push(n);
      this.varint(n);
      this.size += n;
      return;
    }
    const n = this.lens[this.cursor++];
    this.varint(n);
    if (n === s.length && n < 64) {
      for (let i = 0; i < n; i++) this.buf[this.pos++] = s.charCodeAt(i);
    } else {
      this.pos += this.buf.write(s, this.pos, n, 'utf8');
    }
  }

  private bytes(b: Uint8Array): void {
    this.varint(b.length);
    if (this.buf) {
      this.buf.set(b, this.pos);
      this.pos += b.length;
    } else {
      this.size += b.length;
    }
  }

  /** A length-delimited part whose content `body` writes. */
  private nested(body: () => void): void {
    if (!this.buf) {
      const slot = this.lens.length;
      this.lens.push(0);
      const start = this.size;
      body();
      const n = this.size - start;
      this.lens[slot] = n;
      this.varint(n);
      return;
    }
    this.varint(this.lens[this.cursor++]);
    body();
  }

  // --- values

  private static readonly WIRE: Record<string, number> = {
    double: 1,
    fixed64: 1,
    sfixed64: 1,
    float: 5,
    fixed32: 5,
    sfixed32: 5,
    string: 2,
    bytes: 2,
  };

  private scalar(kind: string, v: unknown): void {
    switch (kind) {
      case 'string':
        this.string(v as string);
        return;
      case 'bytes':
        this.bytes(Buffer.from(v as string, 'base64'));
        return;
      case 'bool':
        this.varint(v ? 1 : 0);
        return;
      case 'double':
        this.fixed(8, (b, at) => b.writeDoubleLE(Number(v), at));
        return;
      case 'float':
        this.fixed(4, (b, at) => b.writeFloatLE(Number(v), at));
        return;
      case 'fixed32':
        this.fixed(4, (b, at) => b.writeUInt32LE(Number(v), at));
        return;
      case 'sfixed32':
        this.fixed(4, (b, at) => b.writeInt32LE(Number(v), at));
        return;
      case 'fixed64':
      case 'sfixed64':
        this.fixed(8, (b, at) => b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v as string | number)), at));
        return;
      case 'sint32':
      case 'sint64': {
        const n = BigInt(v as string | number);
        this.varintBig(n >= 0n ? n * 2n : -n * 2n - 1n);
        return;
      }
      default: {
        // int32/int64/uint32/uint64 and enums: negative values take ten bytes (two's complement).
        if (typeof v === 'number' && v >= 0 && v <= Number.MAX_SAFE_INTEGER) this.varint(v);
        else this.varintBig(BigInt(v as string | number));
      }
    }
  }

  private isDefault(fp: FieldPlan, v: unknown): boolean {
    if (fp.kind === 'message') return false;
    if (fp.kind === 'enum') return v === 0 || fp.enumType!.values[v as string] === 0;
    if (fp.kind === 'bool') return v === false;
    if (fp.kind === 'string' || fp.kind === 'bytes') return v === '';
    return Number(v) === 0 && !Object.is(Number(v), -0);
  }

  private enumNumber(fp: FieldPlan, v: unknown): number {
    return typeof v === 'number' ? v : (fp.enumType!.values[v as string] ?? 0);
  }

  message(plan: TypePlan, v: unknown): void {
    if (plan.wkt) {
      this.wkt(plan, v);
      return;
    }
    const obj = v as JsonObject;
    for (const key in obj) {
      const fp = plan.byKey.get(key);
      if (!fp) continue; // "@type" of an embedded Any
      const value = obj[key];
      if (value === null && !fp.isValue) continue;
      if (fp.map) this.map(fp, value as JsonObject);
      else if (fp.repeated) this.repeated(fp, value as unknown[]);
      else if (fp.oneof || fp.optional || !this.isDefault(fp, value)) this.single(fp, value);
    }
  }

  private single(fp: FieldPlan, v: unknown): void {
    if (fp.kind === 'message') {
      this.tag(fp.id, 2);
      const plan = planOf(fp.msgType!);
      this.nested(() => this.message(plan, v));
    } else if (fp.kind === 'enum') {
      this.tag(fp.id, 0);
      this.scalar('int32', this.enumNumber(fp, v));
    } else {
      this.tag(fp.id, Wire.WIRE[fp.kind] ?? 0);
      this.scalar(fp.kind, v);
    }
  }

  private repeated(fp: FieldPlan, list: unknown[]): void {
    if (list.length === 0) return;
    if (fp.kind === 'message' || fp.kind === 'string' || fp.kind === 'bytes') {
      for (const item of list) this.single(fp, item);
      return;
    }
    // proto3 packs repeated numbers, bools and enums.
    this.tag(fp.id, 2);
    this.nested(() => {
      for (const item of list) {
        if (fp.kind === 'enum') this.scalar('int32', this.enumNumber(fp, item));
        else this.scalar(fp.kind, item);
      }
    });
  }

  private map(fp: FieldPlan, obj: JsonObject): void {
    const keyKind = fp.keyType;
    for (const k in obj) {
      const value = obj[k];
      this.tag(fp.id, 2);
      this.nested(() => {
        this.tag(1, Wire.WIRE[keyKind] ?? 0);
        this.scalar(keyKind, keyKind === 'bool' ? k === 'true' : keyKind === 'string' ? k : k);
        if (fp.kind === 'message') {
          this.tag(2, 2);
          const plan = planOf(fp.msgType!);
          this.nested(() => this.message(plan, value));
        } else if (fp.kind === 'enum') {
          this.tag(2, 0);
          this.scalar('int32', this.enumNumber(fp, value));
        } else {
          this.tag(2, Wire.WIRE[fp.kind] ?? 0);
          this.scalar(fp.kind, value);
        }
      });
    }
  }

  /** Seconds and nanos, the message form of Duration and Timestamp. */
  private secondsNanos(seconds: bigint, nanos: number): void {
    if (seconds !== 0n) {
      this.tag(1, 0);
      this.varintBig(seconds);
    }
    if (nanos !== 0) {
      this.tag(2, 0);
      this.scalar('int32', nanos);
    }
  }

  private wkt(plan: TypePlan, v: unknown): void {
    switch (plan.wkt) {
      case 'any': {
        const obj = v as JsonObject;
        const url = obj['@type'];
        if (url === undefined) return;
        const type = typeof url === 'string' ? findType(url) : undefined;
        if (!type) throw new Error(`"@type" ${String(url)} names no loaded message type`);
        const inner = planOf(type);
        this.tag(1, 2);
        this.string(url as string);
        this.tag(2, 2);
        this.nested(() => this.message(inner, inner.wkt ? obj.value : obj));
        return;
      }
      case 'duration': {
        const n = parseDuration(v as string);
        if (n === undefined) throw new Error(`invalid duration ${JSON.stringify(v)}`);
        this.secondsNanos(n / 1_000_000_000n, Number(n % 1_000_000_000n));
        return;
      }
      case 'timestamp': {
        const s = v as string;
        const frac = /\.(\d{1,9})/.exec(s)?.[1] ?? '';
        this.secondsNanos(BigInt(Math.floor(Date.parse(s) / 1000)), Number(frac.padEnd(9, '0') || '0'));
        return;
      }
      case 'field_mask':
        for (const p of (v as string).split(',')) {
          if (!p) continue;
          this.tag(1, 2);
          this.string(p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
        }
        return;
      case 'struct':
        this.struct(v as JsonObject);
        return;
      case 'value':
        this.value(v);
        return;
      case 'list_value':
        for (const item of v as unknown[]) {
          this.tag(1, 2);
          this.nested(() => this.value(item));
        }
        return;
      case 'wrapper': {
        const kind = WRAPPERS[plan.fullName];
        const fp = { kind, oneof: undefined, optional: false } as FieldPlan;
        if (!this.isDefault(fp, v)) {
          this.tag(1, Wire.WIRE[kind] ?? 0);
          this.scalar(kind, v);
        }
        return;
      }
    }
  }

  private struct(obj: JsonObject): void {
    for (const k in obj) {
      this.tag(1, 2);
      this.nested(() => {
        this.tag(1, 2);
        this.string(k);
        this.tag(2, 2);
        this.nested(() => this.value(obj[k]));
      });
    }
  }

  /** google.protobuf.Value: null_value = 1, number_value = 2, string_value = 3, bool_value = 4, struct_value = 5, list_value = 6. */
  private value(v: unknown): void {
    if (v === null) {
      this.tag(1, 0);
      this.varint(0);
    } else if (typeof v === 'number') {
      this.tag(2, 1);
      this.scalar('double', v);
    } else if (typeof v === 'string') {
      this.tag(3, 2);
      this.string(v);
    } else if (typeof v === 'boolean') {
      this.tag(4, 0);
      this.varint(v ? 1 : 0);
    } else if (Array.isArray(v)) {
      this.tag(6, 2);
      this.nested(() => {
        for (const item of v) {
          this.tag(1, 2);
          this.nested(() => this.value(item));
        }
      });
    } else {
      this.tag(5, 2);
      this.nested(() => this.struct(v as JsonObject));
    }
  }
}

/**
 * The wire form of a proto3 JSON message. Assumes the JSON passed
 * checkMessage (the xDS server encodes only verified output).
 */
export function encodeMessage(typeName: string, json: unknown): Uint8Array {
  return new Wire().encode(planByName(typeName), json);
}

/** A JSON Any (`{"@type": ..., ...}`) as the message form `{type_url, value}` the xDS wire uses. */
export function toAny(json: JsonObject): { type_url: string; value: Uint8Array } {
  const url = json['@type'];
  const type = typeof url === 'string' ? findType(url) : undefined;
  if (!type) throw new Error(`"@type" ${String(url)} names no loaded message type`);
  const plan = planOf(type);
  return { type_url: url as string, value: new Wire().encode(plan, plan.wkt ? json.value : json) };
}

// ---------------------------------------------------------------- decoding

/** The wire form back to proto3 JSON (snake_case names, int64 as strings, enums by name). */
export function decodeMessage(typeName: string, bytes: Uint8Array): JsonObject {
  const plan = planByName(typeName);
  return fromPb(plan, strictDecode(plan.type, bytes)) as JsonObject;
}

/**
 * protobufjs's reader for Node Buffers cuts a string that runs past the end
 * short instead of failing; the plain reader checks every length, so
 * truncated bytes are an error, never a shorter value.
 */
function strictDecode(type: protobuf.Type, bytes: Uint8Array): any {
  return type.decode(new protobuf.Reader(bytes));
}

function fromPb(plan: TypePlan, m: any): unknown {
  switch (plan.wkt) {
    case 'any': {
      const type = findType(m.type_url);
      if (!type) throw new Error(`Any of unknown type ${m.type_url}`);
      const inner = planOf(type);
      const value = fromPb(inner, strictDecode(type, m.value));
      return inner.wkt ? { '@type': m.type_url, value } : { '@type': m.type_url, ...(value as JsonObject) };
    }
    case 'duration':
      return formatDuration(BigInt(String(m.seconds ?? 0)) * 1_000_000_000n + BigInt(m.nanos ?? 0));
    case 'timestamp': {
      const iso = new Date(Number(String(m.seconds ?? 0)) * 1000).toISOString().replace('.000Z', '');
      const frac = String(m.nanos ?? 0)
        .padStart(9, '0')
        .replace(/0+$/, '');
      return `${iso.replace(/Z$/, '')}${frac ? `.${frac}` : ''}Z`;
    }
    case 'field_mask':
      return (m.paths ?? []).map(lowerCamel).join(',');
    case 'struct':
      return structFromPb(m);
    case 'value':
      return valueFromPb(m);
    case 'list_value':
      return (m.values ?? []).map(valueFromPb);
    case 'wrapper':
      return scalarFromPb(WRAPPERS[plan.fullName], m.value ?? defaultScalar(WRAPPERS[plan.fullName]));
  }
  const out: JsonObject = {};
  for (const fp of plan.fields) {
    if (!Object.prototype.hasOwnProperty.call(m, fp.name)) continue;
    const v = m[fp.name];
    if (v === null || v === undefined) continue;
    if (fp.map) {
      const keys = Object.keys(v);
      if (keys.length === 0) continue;
      const o: JsonObject = {};
      for (const k of keys) o[k] = elementFromPb(fp, v[k]);
      out[fp.name] = o;
    } else if (fp.repeated) {
      if (v.length === 0) continue;
      out[fp.name] = v.map((x: unknown) => elementFromPb(fp, x));
    } else {
      out[fp.name] = elementFromPb(fp, v);
    }
  }
  return out;
}

function defaultScalar(kind: string): unknown {
  return kind === 'string' ? '' : kind === 'bool' ? false : kind === 'bytes' ? new Uint8Array() : 0;
}

function elementFromPb(fp: FieldPlan, v: any): unknown {
  if (fp.kind === 'message') return fromPb(planOf(fp.msgType!), v);
  if (fp.kind === 'enum') return fp.enumType!.valuesById[v] ?? v;
  return scalarFromPb(fp.kind, v);
}

const INT64_KINDS = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

function scalarFromPb(kind: string, v: any): unknown {
  if (kind === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if (INT64_KINDS.has(kind)) return String(v); // 64-bit: string in proto3 JSON
  return v;
}

function structFromPb(m: any): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(m.fields ?? {})) out[k] = valueFromPb(m.fields[k]);
  return out;
}

function valueFromPb(m: any): unknown {
  switch (m.kind) {
    case 'structValue':
      return structFromPb(m.structValue);
    case 'listValue':
      return (m.listValue.values ?? []).map(valueFromPb);
    case 'stringValue':
      return m.stringValue;
    case 'numberValue':
      return m.numberValue;
    case 'boolValue':
      return m.boolValue;
    default:
      return null;
  }
}
