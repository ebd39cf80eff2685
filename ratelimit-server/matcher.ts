/**
 * Which rule a request descriptor matches: the tree walk of
 * envoyproxy/ratelimit's GetLimit (src/config/config_impl.go) and Gloo's
 * set-style rules. Pure functions over config.ts's structures.
 */
import { SET_DESCRIPTOR_MARKER } from '../contract/ratelimit.js';
import type { DescriptorNode, Domain, Limit, SetRule } from './config.js';

export interface Entry {
  key: string;
  value: string;
}

/** Whether `value` matches a pattern split on `*` (each `*` zero or more characters), as wildcardMatch does. */
export function wildcardMatch(parts: string[], value: string): boolean {
  if (parts.length === 1) return parts[0] === value;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!value.startsWith(first) || !value.endsWith(last)) return false;
  let fixed = 0;
  for (const p of parts) fixed += p.length;
  if (value.length < fixed) return false;
  let rest = value.slice(first.length, value.length - last.length);
  for (let i = 1; i < parts.length - 1; i++) {
    const at = rest.indexOf(parts[i]!);
    if (at < 0) return false;
    rest = rest.slice(at + parts[i]!.length);
  }
  return true;
}

/**
 * The limit of a tree descriptor, or undefined. Each entry is looked up as
 * `key_value`, then among the level's wildcards, then as `key` (any value);
 * the limit counts only when found at the request's last entry; the walk
 * stops where the tree has no deeper level.
 */
export function matchTree(root: DescriptorNode, entries: readonly Entry[]): Limit | undefined {
  let level = root;
  let found: Limit | undefined;
  for (let i = 0; i < entries.length; i++) {
    const { key, value } = entries[i]!;
    const composite = `${key}_${value}`;
    let next = level.children.get(composite);
    if (!next)
      for (const w of level.wildcards)
        if (wildcardMatch(w.parts, composite)) {
          next = level.children.get(w.key);
          break;
        }
    next ??= level.children.get(key);
    if (next?.limit && i === entries.length - 1) found = next.limit;
    if (!next || next.children.size === 0) break;
    level = next;
  }
  return found;
}

/** Whether a request descriptor is one of Gloo's sets: its first entry is the marker. */
export function isSetDescriptor(entries: readonly Entry[]): boolean {
  const first = entries[0];
  return first !== undefined && first.key === SET_DESCRIPTOR_MARKER.key && first.value === SET_DESCRIPTOR_MARKER.value;
}

/** A set rule matched, with the request's values of its keys (in the rule's order). */
export interface SetMatch {
  rule: SetRule;
  values: string[];
}

/**
 * The set rules a set descriptor's entries (after the marker) match: a rule
 * matches when each of its simple descriptors is among the entries (same
 * key, and same value unless the rule's is empty); the first rule that
 * matches, and every later one with always_apply.
 */
export function matchSets(rules: readonly SetRule[], entries: readonly Entry[]): SetMatch[] {
  const values = new Map<string, string>();
  // The marker is not part of the set; a key sent twice keeps its first value.
  for (let i = 1; i < entries.length; i++)
    if (!values.has(entries[i]!.key)) values.set(entries[i]!.key, entries[i]!.value);
  const matched: SetMatch[] = [];
  for (const rule of rules) {
    if (matched.length && !rule.alwaysApply) continue;
    const ruleValues: string[] = [];
    let ok = true;
    for (const e of rule.entries) {
      const v = values.get(e.key);
      if (v === undefined || (e.value && e.value !== v)) {
        ok = false;
        break;
      }
      ruleValues.push(v);
    }
    if (ok) matched.push({ rule, values: ruleValues });
  }
  return matched;
}

/** The domain's limits for one request descriptor (several only for a set). */
export function matchDescriptor(
  domain: Domain,
  entries: readonly Entry[],
): { limit: Limit; key: string; set: boolean }[] {
  if (isSetDescriptor(entries))
    return matchSets(domain.sets, entries).map((m) => ({ limit: m.rule.limit, key: setKey(m), set: true }));
  const limit = matchTree(domain.root, entries);
  return limit ? [{ limit, key: treeKey(entries), set: false }] : [];
}

/** envoyproxy/ratelimit's cache key of a descriptor without the window: `key_value_` per entry. */
export function treeKey(entries: readonly Entry[]): string {
  let k = '';
  for (const e of entries) k += `${e.key}_${e.value}_`;
  return k;
}

/**
 * A set rule's cache key: the marker, then the rule's entries sorted by key
 * with the request's values; an entry whose rule value is empty (any value)
 * is written `key:value_`, so it never shares a counter with a rule naming
 * that value.
 */
export function setKey(m: SetMatch): string {
  let k = `${SET_DESCRIPTOR_MARKER.key}_${SET_DESCRIPTOR_MARKER.value}_`;
  m.rule.entries.forEach((e, i) => (k += `${e.key}${e.value ? '_' : ':'}${m.values[i]}_`));
  return k;
}
