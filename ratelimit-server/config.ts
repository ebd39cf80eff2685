/**
 * The compiled rate limit rules the server enforces
 * (contract/proto/sluice/ratelimit/v1/ratelimit.proto), from `--config FILE`
 * (proto JSON of a RateLimitDomainSet) or from xDS (decoded Anys), into the
 * lookup structures matcher.ts walks. Checked as envoyproxy/ratelimit checks
 * its YAML: a descriptor needs a key, composite keys are unique per level, a
 * limit has a unit unless it is unlimited; every error names the domain and
 * the field.
 */
import { loadJsonConfig } from '../runtime/config-file.js';
import { bool, ConfigError, enumName, list, message, obj, str, uint32, type Obj } from '../runtime/json-fields.js';

export { ConfigError };

/** The proto's unit names, in its numbering. */
const UNITS = ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type Unit = Exclude<(typeof UNITS)[number], 'UNKNOWN'>;

/** Seconds per window, as envoyproxy/ratelimit's UnitToDivider (a month is 30 days, a year 365). */
export const UNIT_SECONDS: Record<Unit, number> = {
  SECOND: 1,
  MINUTE: 60,
  HOUR: 3600,
  DAY: 86_400,
  WEEK: 604_800,
  MONTH: 2_592_000,
  YEAR: 31_536_000,
};

export interface Limit {
  unit: Unit;
  requestsPerUnit: number;
  /** Matched, never counted. */
  unlimited: boolean;
  /** Counted and reported, never denies. */
  shadowMode: boolean;
  name: string;
  /** The rule's path as envoyproxy/ratelimit names its stats: `domain.key_value.key`. */
  rule: string;
  /** Gloo's rule priority, from the rule's top-level descriptor. */
  weight: number;
  alwaysApply: boolean;
}

/** One level of the descriptor tree: children by `key_value` or `key` (any value), wildcards in order. */
export interface DescriptorNode {
  children: Map<string, DescriptorNode>;
  /** Composite keys containing `*`, split on it, in the order written. */
  wildcards: { key: string; parts: string[] }[];
  limit?: Limit;
}

export interface SetRule {
  /** Sorted by key; an empty value matches any value. */
  entries: { key: string; value: string }[];
  limit: Limit;
  alwaysApply: boolean;
}

export interface Domain {
  name: string;
  root: DescriptorNode;
  sets: SetRule[];
}

const emptyNode = (): DescriptorNode => ({ children: new Map(), wildcards: [] });

function parseLimit(
  o: Obj,
  where: string,
  rule: string,
  top: { weight: number; alwaysApply: boolean },
  shadowMode: boolean,
): Limit {
  const unlimited = bool(o, 'unlimited', where);
  const unit = enumName(o, 'unit', UNITS, where) as (typeof UNITS)[number];
  // envoyproxy/ratelimit's two checks: an unlimited rule names no unit, a limited one a known unit.
  if (unlimited && unit !== 'UNKNOWN') throw new ConfigError(`${where}.unit: an unlimited rate limit has no unit`);
  if (!unlimited && unit === 'UNKNOWN')
    throw new ConfigError(`${where}.unit: required (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR)`);
  return {
    // An unlimited rule is never counted: its unit is never read.
    unit: unit === 'UNKNOWN' ? 'SECOND' : unit,
    requestsPerUnit: uint32(o, 'requests_per_unit', where),
    unlimited,
    shadowMode,
    name: str(o, 'name', where),
    rule,
    ...top,
  };
}

function loadDescriptors(
  node: DescriptorNode,
  raw: unknown[],
  where: string,
  parentRule: string,
  top: { weight: number; alwaysApply: boolean } | undefined,
): void {
  raw.forEach((r, i) => {
    const at = `${where}[${i}]`;
    const o = obj(r, at);
    const key = str(o, 'key', at);
    if (!key) throw new ConfigError(`${at}.key: required`);
    const value = str(o, 'value', at);
    const composite = value ? `${key}_${value}` : key;
    const rule = `${parentRule}.${composite}`;
    if (node.children.has(composite))
      throw new ConfigError(`${at}: a second descriptor ${JSON.stringify(composite)} at this level (${rule})`);
    const weight = uint32(o, 'weight', at);
    const alwaysApply = bool(o, 'always_apply', at);
    // Gloo's priority is a property of a rule: set once, on its top-level descriptor or, where the compiler
    // nests a RateLimitConfig's rules under its (generic_key, <namespace>.<name>) entry, on the rule's first
    // descriptor below it. Every limit below carries it.
    const inherited = top && (top.weight || top.alwaysApply);
    if (inherited && (weight || alwaysApply))
      throw new ConfigError(
        `${at}: weight and always_apply are set above already (${parentRule}); a rule has one priority`,
      );
    const ruleTop = inherited ? top : { weight, alwaysApply };
    const child = emptyNode();
    const limit = message(o, 'rate_limit', at);
    if (limit) child.limit = parseLimit(limit, `${at}.rate_limit`, rule, ruleTop, bool(o, 'shadow_mode', at));
    else if (bool(o, 'shadow_mode', at))
      throw new ConfigError(`${at}.shadow_mode: set on a descriptor without a rate_limit; it applies to a limit`);
    if (composite.includes('*')) node.wildcards.push({ key: composite, parts: composite.split('*') });
    loadDescriptors(child, list(o, 'descriptors', at), `${at}.descriptors`, rule, ruleTop);
    node.children.set(composite, child);
  });
}

function loadSets(raw: unknown[], where: string, domain: string): SetRule[] {
  const seen = new Set<string>();
  return raw.map((r, i) => {
    const at = `${where}[${i}]`;
    const o = obj(r, at);
    const entries = list(o, 'simple_descriptors', at).map((s, j) => {
      const so = obj(s, `${at}.simple_descriptors[${j}]`);
      const key = str(so, 'key', `${at}.simple_descriptors[${j}]`);
      if (!key) throw new ConfigError(`${at}.simple_descriptors[${j}].key: required`);
      return { key, value: str(so, 'value', `${at}.simple_descriptors[${j}]`) };
    });
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (let j = 1; j < entries.length; j++)
      if (entries[j]!.key === entries[j - 1]!.key)
        throw new ConfigError(`${at}.simple_descriptors: key ${JSON.stringify(entries[j]!.key)} twice`);
    const rule = `${domain}.set(${entries.map((e) => (e.value ? `${e.key}=${e.value}` : e.key)).join(',')})`;
    // The same set twice would share its counters (the cache key is made of the set).
    if (seen.has(rule))
      throw new ConfigError(`${at}: a second set descriptor with the same simple descriptors (${rule})`);
    seen.add(rule);
    const limit = message(o, 'rate_limit', at);
    if (!limit) throw new ConfigError(`${at}.rate_limit: required`);
    const alwaysApply = bool(o, 'always_apply', at);
    return {
      entries,
      limit: parseLimit(limit, `${at}.rate_limit`, rule, { weight: 0, alwaysApply }, false),
      alwaysApply,
    };
  });
}

/** One `sluice.ratelimit.v1.RateLimitDomain` as proto3 JSON. */
export function parseDomain(raw: unknown, where = 'RateLimitDomain'): Domain {
  const o = obj(raw, where);
  const name = str(o, 'domain', where);
  if (!name) throw new ConfigError(`${where}.domain: required`);
  const at = `${where} ${name}`;
  const root = emptyNode();
  loadDescriptors(root, list(o, 'descriptors', at), `${at}.descriptors`, name, undefined);
  return { name, root, sets: loadSets(list(o, 'set_descriptors', at), `${at}.set_descriptors`, name) };
}

/** Domains by name; a domain given twice is refused (the compiler merges a domain's rules into one resource). */
export function checkDomains(domains: Domain[]): Map<string, Domain> {
  const byName = new Map<string, Domain>();
  for (const d of domains) {
    if (byName.has(d.name)) throw new ConfigError(`domain ${JSON.stringify(d.name)} is defined twice`);
    byName.set(d.name, d);
  }
  return byName;
}

/** The `RateLimitDomainSet` JSON that `sluice compile -o DIR` writes to DIR/ratelimit.json. */
export function parseDomainSet(raw: unknown): Map<string, Domain> {
  const o = obj(raw, 'RateLimitDomainSet');
  return checkDomains(list(o, 'domains', 'RateLimitDomainSet').map((d, i) => parseDomain(d, `domains[${i}]`)));
}

export function loadConfigFile(file: string): Promise<Map<string, Domain>> {
  return loadJsonConfig(file, parseDomainSet, ConfigError);
}
