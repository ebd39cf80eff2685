/**
 * protoc-gen-validate's `validate.rules` on proto3 JSON values, as Envoy's
 * generated validators check them when a configuration loads: string,
 * bytes, number, enum, repeated, map, duration and Any rules. The walk over
 * the JSON (proto-json.ts) calls these with the rules of each field it meets
 * and a `report` that knows the path.
 */
import type protobuf from 'protobufjs';
import { isIP } from 'node:net';
import { fullNameOf, type FieldPlan, type Rules } from '../../contract/message-plan.js';
import { formatDuration, parseDuration } from '../../contract/proto3-json.js';

/** Records a broken rule at the current path (`at`: one step further, a key or an index). */
export type Report = (rule: string, message: string, at?: string | number) => void;

const HEADER_NAME_RE = /^:?[0-9a-zA-Z!#$%&'*+\-.^_|~`]+$/;
// eslint-disable-next-line no-control-regex
const HEADER_VALUE_RE = /^[^\u0000-\u0008\u000A-\u001F\u007F]*$/;
// eslint-disable-next-line no-control-regex
const HEADER_LOOSE_RE = /^[^\u0000\u000A\u000D]*$/;
const HOSTNAME_RE =
  /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

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

/** The rules of a scalar of `kind` (string, bytes, bool or a number type) whose JSON form is already checked. */
export function scalarRules(report: Report, kind: string, r: Rules, v: unknown): void {
  if (kind === 'string') {
    if (r.string) stringRules(report, r.string, v as string);
  } else if (kind === 'bytes') {
    if (r.bytes) bytesRules(report, r.bytes, v as string);
  } else if (kind === 'bool') {
    if (r.bool?.const !== undefined && v !== r.bool.const) report('bool.const', `must be ${r.bool.const}`);
  } else {
    const nr = r[kind];
    if (nr) numberRules(report, kind, nr, Number(v));
  }
}

function numberRules(report: Report, kind: string, r: Rules, n: number): void {
  if (r.ignore_empty && n === 0) return;
  if (r.const !== undefined && n !== Number(r.const)) report(`${kind}.const`, `must be ${r.const}, got ${n}`);
  const gt = r.gt !== undefined ? Number(r.gt) : undefined;
  const gte = r.gte !== undefined ? Number(r.gte) : undefined;
  const lt = r.lt !== undefined ? Number(r.lt) : undefined;
  const lte = r.lte !== undefined ? Number(r.lte) : undefined;
  range(report, kind, n, gt, gte, lt, lte, String);
  if (r.in !== undefined && !asList(r.in).some((x) => Number(x) === n))
    report(`${kind}.in`, `must be one of ${asList(r.in).join(', ')}, got ${n}`);
  if (r.not_in !== undefined && asList(r.not_in).some((x) => Number(x) === n))
    report(`${kind}.not_in`, `must not be ${n}`);
}

/** PGV range semantics, including the exclusive form (lt < gt: value must be outside). */
function range<T extends number | bigint>(
  report: Report,
  kind: string,
  n: T,
  gt: T | undefined,
  gte: T | undefined,
  lt: T | undefined,
  lte: T | undefined,
  show: (x: T) => string,
): void {
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
    report(rule, `must be ${outside ? 'outside' : 'in'} range ${lo}, ${hi}, got ${show(n)}`);
    return;
  }
  if (!aboveLow)
    report(
      `${kind}.${gt !== undefined ? 'gt' : 'gte'}`,
      `must be ${gt !== undefined ? 'greater than' : 'at least'} ${show(low!)}, got ${show(n)}`,
    );
  if (!belowHigh)
    report(
      `${kind}.${lt !== undefined ? 'lt' : 'lte'}`,
      `must be ${lt !== undefined ? 'less than' : 'at most'} ${show(high!)}, got ${show(n)}`,
    );
}

function stringRules(report: Report, r: Rules, s: string): void {
  if (r.ignore_empty && s === '') return;
  if (r.const !== undefined && s !== r.const) report('string.const', `must be ${JSON.stringify(r.const)}`);
  if (r.len !== undefined && codePoints(s) !== Number(r.len))
    report('string.len', `must be exactly ${r.len} characters`);
  if (r.min_len !== undefined && codePoints(s) < Number(r.min_len)) {
    report(
      'string.min_len',
      Number(r.min_len) === 1 ? 'must not be empty' : `must be at least ${r.min_len} characters, got ${codePoints(s)}`,
    );
  }
  if (r.max_len !== undefined && codePoints(s) > Number(r.max_len))
    report('string.max_len', `must be at most ${r.max_len} characters, got ${codePoints(s)}`);
  if (r.min_bytes !== undefined || r.max_bytes !== undefined || r.len_bytes !== undefined) {
    const bytes = Buffer.byteLength(s, 'utf8');
    if (r.min_bytes !== undefined && bytes < Number(r.min_bytes))
      report('string.min_bytes', `must be at least ${r.min_bytes} bytes, got ${bytes}`);
    if (r.max_bytes !== undefined && bytes > Number(r.max_bytes))
      report('string.max_bytes', `must be at most ${r.max_bytes} bytes, got ${bytes}`);
    if (r.len_bytes !== undefined && bytes !== Number(r.len_bytes))
      report('string.len_bytes', `must be exactly ${r.len_bytes} bytes`);
  }
  if (r.prefix !== undefined && !s.startsWith(r.prefix))
    report('string.prefix', `must start with ${JSON.stringify(r.prefix)}`);
  if (r.suffix !== undefined && !s.endsWith(r.suffix))
    report('string.suffix', `must end with ${JSON.stringify(r.suffix)}`);
  if (r.contains !== undefined && !s.includes(r.contains))
    report('string.contains', `must contain ${JSON.stringify(r.contains)}`);
  if (r.not_contains !== undefined && s.includes(r.not_contains))
    report('string.not_contains', `must not contain ${JSON.stringify(r.not_contains)}`);
  if (r.in !== undefined && !asList(r.in).includes(s))
    report(
      'string.in',
      `must be one of ${asList(r.in)
        .map((x) => JSON.stringify(x))
        .join(', ')}, got ${JSON.stringify(s)}`,
    );
  if (r.not_in !== undefined && asList(r.not_in).includes(s))
    report('string.not_in', `must not be ${JSON.stringify(s)}`);
  if (r.pattern !== undefined) {
    const re = compiledPattern(r.pattern);
    if (re && !re.test(s)) report('string.pattern', `must match /${r.pattern}/, got ${JSON.stringify(s)}`);
  }
  if (r.well_known_regex !== undefined) {
    const strict = r.strict !== false;
    const which = r.well_known_regex as string;
    const re = !strict
      ? HEADER_LOOSE_RE
      : which === 'HTTP_HEADER_NAME'
        ? HEADER_NAME_RE
        : which === 'HTTP_HEADER_VALUE'
          ? HEADER_VALUE_RE
          : undefined;
    if (re && !re.test(s))
      report(
        'string.well_known_regex',
        `must be a valid ${which === 'HTTP_HEADER_NAME' ? 'HTTP header name' : 'HTTP header value'}, got ${JSON.stringify(s)}`,
      );
  }
  if (s !== '' || !r.ignore_empty) wellKnownFormat(report, r, s);
}

function wellKnownFormat(report: Report, r: Rules, s: string): void {
  const bad = (what: string, rule: string) => report(`string.${rule}`, `must be ${what}, got ${JSON.stringify(s)}`);
  if (r.ip && !isIP(s)) bad('an IP address', 'ip');
  if (r.ipv4 && isIP(s) !== 4) bad('an IPv4 address', 'ipv4');
  if (r.ipv6 && isIP(s) !== 6) bad('an IPv6 address', 'ipv6');
  if (r.hostname && !HOSTNAME_RE.test(s)) bad('a hostname', 'hostname');
  if (r.address && !isIP(s) && !HOSTNAME_RE.test(s)) bad('a hostname or IP address', 'address');
  if (r.uuid && !UUID_RE.test(s)) bad('a UUID', 'uuid');
  if (r.uri && !URL.canParse(s)) bad('an absolute URI', 'uri');
  if (r.email && !/^[^@\s]+@[^@\s]+$/.test(s)) bad('an email address', 'email');
}

function bytesRules(report: Report, r: Rules, b64: string): void {
  if (r.ignore_empty && b64 === '') return;
  const n = Buffer.from(b64, 'base64').length;
  if (r.min_len !== undefined && n < Number(r.min_len))
    report('bytes.min_len', `must be at least ${r.min_len} bytes, got ${n}`);
  if (r.max_len !== undefined && n > Number(r.max_len))
    report('bytes.max_len', `must be at most ${r.max_len} bytes, got ${n}`);
  if (r.len !== undefined && n !== Number(r.len)) report('bytes.len', `must be exactly ${r.len} bytes, got ${n}`);
}

export function enumRules(report: Report, r: Rules | undefined, n: number, e: protobuf.Enum): void {
  if (!r) return;
  const name = e.valuesById[n] ?? String(n);
  if (r.defined_only && e.valuesById[n] === undefined)
    report('enum.defined_only', `${n} is not a defined value of ${fullNameOf(e)}`);
  if (r.const !== undefined && n !== Number(r.const))
    report('enum.const', `must be ${e.valuesById[Number(r.const)] ?? r.const}, got ${name}`);
  if (r.in !== undefined && !asList(r.in).some((x) => Number(x) === n))
    report(
      'enum.in',
      `must be one of ${asList(r.in)
        .map((x) => e.valuesById[Number(x)] ?? x)
        .join(', ')}, got ${name}`,
    );
  if (r.not_in !== undefined && asList(r.not_in).some((x) => Number(x) === n))
    report('enum.not_in', `must not be ${name}`);
}

export function repeatedRules(report: Report, r: Rules, list: unknown[], fp: FieldPlan): void {
  if (r.ignore_empty && list.length === 0) return;
  if (r.min_items !== undefined && list.length < Number(r.min_items)) {
    report(
      'repeated.min_items',
      `needs at least ${r.min_items} item${Number(r.min_items) === 1 ? '' : 's'}, got ${list.length}`,
    );
  }
  if (r.max_items !== undefined && list.length > Number(r.max_items))
    report('repeated.max_items', `allows at most ${r.max_items} items, got ${list.length}`);
  if (r.unique && list.length > 1) {
    const seen = new Set<unknown>();
    for (let i = 0; i < list.length; i++) {
      const key = fp.kind === 'message' ? JSON.stringify(list[i]) : list[i];
      if (seen.has(key)) report('repeated.unique', `items must be unique; ${JSON.stringify(list[i])} repeats`, i);
      seen.add(key);
    }
  }
}

export function mapRules(report: Report, r: Rules, pairs: number): void {
  if (r.ignore_empty && pairs === 0) return;
  if (r.min_pairs !== undefined && pairs < Number(r.min_pairs))
    report(
      'map.min_pairs',
      `needs at least ${r.min_pairs} entr${Number(r.min_pairs) === 1 ? 'y' : 'ies'}, got ${pairs}`,
    );
  if (r.max_pairs !== undefined && pairs > Number(r.max_pairs))
    report('map.max_pairs', `allows at most ${r.max_pairs} entries, got ${pairs}`);
}

/** A duration field's rules (its JSON form already checked). */
export function durationRules(report: Report, d: Rules, v: string): void {
  const n = parseDuration(v);
  if (n === undefined) return;
  if (d.const !== undefined && n !== ruleDurationNanos(d.const))
    report('duration.const', `must be ${formatDuration(ruleDurationNanos(d.const)!)}`);
  range(
    report,
    'duration',
    n,
    ruleDurationNanos(d.gt),
    ruleDurationNanos(d.gte),
    ruleDurationNanos(d.lt),
    ruleDurationNanos(d.lte),
    formatDuration,
  );
  if (d.in !== undefined && !asList(d.in).some((x) => ruleDurationNanos(x as never) === n))
    report(
      'duration.in',
      `must be one of ${asList(d.in)
        .map((x) => formatDuration(ruleDurationNanos(x as never)!))
        .join(', ')}`,
    );
  if (d.not_in !== undefined && asList(d.not_in).some((x) => ruleDurationNanos(x as never) === n))
    report('duration.not_in', `must not be ${v}`);
}

/** An Any field's rules on its `@type`. */
export function anyRules(report: Report, r: Rules, url: unknown): void {
  if (typeof url !== 'string') return;
  if (r.in !== undefined && !asList(r.in).includes(url))
    report('any.in', `type must be one of ${asList(r.in).join(', ')}, got ${url}`);
  if (r.not_in !== undefined && asList(r.not_in).includes(url)) report('any.not_in', `type must not be ${url}`);
}
