/**
 * OpenTelemetry's AnyValue and KeyValueList (common.proto) as a Gateway writes
 * them in proto3 JSON (lowerCamelCase or the proto's snake_case names), checked
 * and rewritten in the snake_case names the rest of the output uses.
 */
import type { FieldPath } from '../diagnostics.js';

type Json = Record<string, unknown>;

/** Where a value is wrong and what is wrong with it. */
export interface ValueProblem {
  path: FieldPath;
  message: string;
}

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const SCALARS: Record<string, (v: unknown) => boolean> = {
  string_value: (v) => typeof v === 'string',
  bool_value: (v) => typeof v === 'boolean',
  int_value: (v) => (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v)),
  double_value: (v) => typeof v === 'number',
  bytes_value: (v) => typeof v === 'string' && /^[A-Za-z0-9+/\-_]*={0,2}$/.test(v),
};
const KINDS = [...Object.keys(SCALARS), 'array_value', 'kvlist_value'];
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** `value` as an AnyValue in snake_case names; undefined after pushing what is wrong. */
export function anyValue(value: unknown, path: FieldPath, problems: ValueProblem[]): Json | undefined {
  const keys = isJson(value) ? Object.keys(value) : [];
  if (!isJson(value) || keys.length !== 1 || !KINDS.includes(snake(keys[0]!))) {
    problems.push({
      path,
      message: `an AnyValue has exactly one of ${KINDS.map(camel).join(', ')}`,
    });
    return undefined;
  }
  const written = keys[0]!;
  const kind = snake(written);
  const inner = value[written];
  const at = [...path, written];
  if (kind === 'array_value' || kind === 'kvlist_value') {
    const list = isJson(inner) ? inner.values : undefined;
    if (!isJson(inner) || !Array.isArray(list) || Object.keys(inner).some((k) => k !== 'values')) {
      problems.push({ path: at, message: `${camel(kind)} is {values: [...]}` });
      return undefined;
    }
    const values =
      kind === 'array_value'
        ? list.map((v, i) => anyValue(v, [...at, 'values', i], problems))
        : keyValues(list, [...at, 'values'], problems);
    return values && values.every(Boolean) ? { [kind]: { values } } : undefined;
  }
  if (!SCALARS[kind]!(inner)) {
    problems.push({ path: at, message: `${quoteJson(inner)} is not a valid ${camel(kind)}` });
    return undefined;
  }
  return { [kind]: inner };
}

/** A KeyValueList (`{values: [{key, value}]}`) in snake_case names; undefined after pushing what is wrong. */
export function keyValueList(value: unknown, path: FieldPath, problems: ValueProblem[]): Json | undefined {
  if (!isJson(value) || !Array.isArray(value.values) || Object.keys(value).some((k) => k !== 'values')) {
    problems.push({ path, message: 'a KeyValueList is {values: [{key, value}, ...]}' });
    return undefined;
  }
  const values = keyValues(value.values, [...path, 'values'], problems);
  return values ? { values } : undefined;
}

function keyValues(list: unknown[], path: FieldPath, problems: ValueProblem[]): Json[] | undefined {
  const before = problems.length;
  const seen = new Set<string>();
  const out = list.map((kv, i) => {
    const at = [...path, i];
    if (
      !isJson(kv) ||
      typeof kv.key !== 'string' ||
      kv.key === '' ||
      Object.keys(kv).some((k) => k !== 'key' && k !== 'value')
    ) {
      problems.push({ path: at, message: 'each entry is {key, value} with a non-empty key' });
      return undefined;
    }
    if (seen.has(kv.key))
      problems.push({ path: [...at, 'key'], message: `key ${JSON.stringify(kv.key)} is given twice` });
    seen.add(kv.key);
    const v = kv.value === undefined ? undefined : anyValue(kv.value, [...at, 'value'], problems);
    return { key: kv.key, ...(v ? { value: v } : {}) };
  });
  return problems.length === before ? (out as Json[]) : undefined;
}

function quoteJson(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}
