/**
 * Gloo reads its resources as proto3 JSON (through solo-kit's jsonpb), which
 * takes more than one spelling of the same value: a field's original
 * snake_case name beside its lowerCamelCase JSON name, an integer (64-bit
 * ones above all) as a string, a Duration in Go's forms ("1m30s", "250ms")
 * beside "90s", an enum as its number (`responseCode: 1` for FOUND). Before its schema check, validate rewrites a Gloo kind's spec
 * into the one spelling the rest of the compiler reads, driven by the kind's
 * definition (which fields exist, which are integers, which are Durations),
 * so no list of names is kept by hand. What was renamed is remembered, so
 * every later error names the field as the user wrote it, at its line.
 */
import { formatDuration, lowerCamel } from '../../contract/proto3-json.js';
import { fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import { PROTO3 } from '../kinds/schema.js';
import type { LoadedDocument } from '../load/load.js';

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface Normalised {
  /** The value in the canonical spelling: `value` itself when nothing needed rewriting. */
  value: unknown;
  /** Per object of `value` that had keys renamed: canonical name -> the name as written. */
  renames: WeakMap<object, Map<string, string>>;
  renamed: boolean;
  diagnostics: Diagnostic[];
}

/** `value`, read against `schema`, in the canonical spelling; `path` is where it sits in the document. */
export function normaliseProto3Json(value: unknown, schema: object, path: FieldPath, origin: Origin): Normalised {
  const out: Normalised = { value, renames: new WeakMap(), renamed: false, diagnostics: [] };
  out.value = walk(value, schema as Json, path, origin, out);
  return out;
}

/** The written path of a canonical `path` into `root` (a normalised document). */
export function writtenPath(root: unknown, renames: WeakMap<object, Map<string, string>>, path: FieldPath): FieldPath {
  let node: unknown = root;
  return path.map((part) => {
    const here = node;
    node = isJson(here) || Array.isArray(here) ? (here as Record<string | number, unknown>)[part] : undefined;
    return (typeof part === 'string' && isJson(here) && renames.get(here)?.get(part)) || part;
  });
}

/** What the walk reads of one schema node, over its anyOf/oneOf/allOf branches too. */
interface Shape {
  properties: Json;
  mapValues?: Json;
  items?: Json;
  types: Set<string>;
  duration: boolean;
  /** A proto enum's names by number. */
  enumNames?: readonly string[];
}

const shapes = new WeakMap<object, Shape>();

/** The shape of a schema node, worked out once per node: validate walks every document against the same few schemas. */
function shapeOf(schema: Json): Shape {
  let shape = shapes.get(schema);
  if (shape) return shape;
  const nodes = branches(schema);
  const types = new Set<string>();
  for (const n of nodes) for (const t of [n.type].flat()) if (typeof t === 'string') types.add(t);
  shape = {
    properties: Object.assign({}, ...nodes.map((n) => (isJson(n.properties) ? n.properties : {}))),
    mapValues: nodes.map((n) => n.additionalProperties).find(isJson),
    items: nodes.map((n) => n.items).find(isJson),
    types,
    duration: nodes.some((n) => n[PROTO3] === 'duration'),
    enumNames: nodes.filter((n) => n[PROTO3] === 'enum').map((n) => n.enum as string[])[0],
  };
  shapes.set(schema, shape);
  return shape;
}

/** The branches a node's value may take: the node and its anyOf/oneOf/allOf members. */
function branches(schema: Json): Json[] {
  const out = [schema];
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const b of list) if (isJson(b)) out.push(...branches(b));
  }
  return out;
}

function walk(value: unknown, schema: Json, path: FieldPath, origin: Origin, out: Normalised): unknown {
  const shape = shapeOf(schema);
  if (typeof value === 'string') return scalar(value, shape);
  // protojson: an enum written as its number; one the enum does not have is left for the schema check to name the values.
  if (typeof value === 'number' && shape.enumNames) return shape.enumNames[value] ?? value;
  if (Array.isArray(value)) {
    const items = shape.items;
    if (!items) return value;
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = walk(item, items, [...path, i], origin, out);
      if (next !== item) (copy ??= value.slice())[i] = next;
    });
    return copy ?? value;
  }
  if (!isJson(value)) return value;
  const { properties, mapValues } = shape;
  const entries = Object.entries(value);
  const renamed = new Map<string, string>();
  let copy: Json | undefined;
  entries.forEach(([key, child], i) => {
    let name = key;
    if (!Object.hasOwn(properties, key) && key.includes('_') && Object.hasOwn(properties, lowerCamel(key))) {
      name = lowerCamel(key);
      if (Object.hasOwn(value, name)) {
        out.diagnostics.push(
          fieldError(
            'validate',
            origin,
            [...path, key],
            `${quote(key)} and ${quote(name)} are one field written twice (proto3 JSON takes either name)`,
            `keep one of ${name} and ${key}`,
          ),
        );
        copy ??= copied(entries, i);
        return;
      }
      renamed.set(name, key);
    }
    const fieldSchema = Object.hasOwn(properties, name) ? properties[name] : mapValues;
    const next = isJson(fieldSchema) ? walk(child, fieldSchema, [...path, key], origin, out) : child;
    if (!copy && (name !== key || next !== child)) copy = copied(entries, i);
    if (copy) define(copy, name, next);
  });
  if (!copy) return value;
  if (renamed.size > 0) {
    out.renames.set(copy, renamed);
    out.renamed = true;
  }
  return copy;
}

/** A new object holding the first `count` entries. */
function copied(entries: [string, unknown][], count: number): Json {
  const copy: Json = {};
  for (const [key, child] of entries.slice(0, count)) define(copy, key, child);
  return copy;
}

/** Sets an own property, `__proto__` included (assigning that one would set the prototype). */
function define(target: Json, key: string, child: unknown): void {
  Object.defineProperty(target, key, { value: child, writable: true, enumerable: true, configurable: true });
}

/** A string where the schema wants a number, or a Duration in another form: the canonical value, or `value` unchanged. */
function scalar(value: string, shape: Shape): unknown {
  if (shape.duration) {
    const nanos = goDuration(value);
    return nanos === undefined ? value : formatDuration(nanos);
  }
  const { types } = shape;
  if (types.has('string') || !(types.has('integer') || types.has('number'))) return value;
  // protojson: a number in a string is a JSON number, written without spaces; an integer field takes only integral values.
  if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return value;
  const n = Number(value);
  // Past 2^53 the number is not exact, but every such field has a maximum far below, which then says so.
  if (!Number.isFinite(n) || (types.has('integer') && !types.has('number') && !Number.isInteger(n))) return value;
  return n;
}

const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const COMPONENT = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * A Duration as Gloo's reader takes it: Go's time.ParseDuration ("1h", "1m30s",
 * "250ms", "1.5s", "0"), which covers protojson's own "1.500s" and ".5s";
 * nanoseconds, or undefined for anything else (resolve then says what to write).
 */
export function goDuration(text: string): bigint | undefined {
  let rest = text;
  let sign = 1n;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < rest.length) {
    const at = COMPONENT.lastIndex;
    const m = COMPONENT.exec(rest);
    if (!m || m.index !== at) return undefined;
    const [, whole, fraction = '', unit] = m;
    if (whole === '' && fraction === '') return undefined;
    const perUnit = UNIT_NANOS[unit!]!;
    // Go truncates a fraction finer than a nanosecond.
    const fractionNanos = fraction === '' ? 0n : (BigInt(fraction) * perUnit) / 10n ** BigInt(fraction.length);
    total += BigInt(whole || '0') * perUnit + fractionNanos;
  }
  return sign * total;
}

/**
 * A Gloo kind's document with its spec in the canonical spelling; when names
 * were renamed, its origin maps canonical paths back to the written ones.
 */
export function normaliseDocument(
  doc: LoadedDocument,
  spec: object,
): { doc: LoadedDocument; diagnostics: Diagnostic[] } {
  const normalised = normaliseProto3Json(doc.value.spec, spec, ['spec'], doc.origin);
  if (normalised.value === doc.value.spec) return { doc, diagnostics: normalised.diagnostics };
  const value = { ...doc.value, spec: normalised.value };
  if (!normalised.renamed) return { doc: { ...doc, value }, diagnostics: normalised.diagnostics };
  const written = (path: FieldPath) => writtenPath(value, normalised.renames, path);
  const origin: Origin = { ...doc.origin, lineOf: (path) => doc.origin.lineOf(written(path)), written };
  return { doc: { ...doc, value, origin }, diagnostics: normalised.diagnostics };
}
