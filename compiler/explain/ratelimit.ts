/**
 * envoy.filters.http.ratelimit, read as the filter reads its configuration
 * (ratelimit.cc): the route's rate_limits of the filter's stage, or its
 * virtual host's when the route has none; the descriptors each sends, entry
 * by entry as Envoy's actions make them from the request; and, from the
 * compiled RateLimitDomain, the rule each descriptor reaches (tree rules as
 * envoyproxy/ratelimit walks them, Gloo's set rules for a descriptor led by
 * the set marker). Explain does not count: it assumes the request is under
 * every limit, with the 429 Envoy sends otherwise.
 */
import { SET_DESCRIPTOR_MARKER } from '../../contract/ratelimit.js';
import { matchHeader } from '../envoy/match.js';
import { headerValue, type HttpRequest } from '../envoy/request.js';
import type { Json } from '../translate/output.js';
import type { Outcome, Step } from './model.js';

export const RATELIMIT_FILTER = 'envoy.filters.http.ratelimit';
export const isRateLimitFilter = (name: string) => name === RATELIMIT_FILTER || name.startsWith(`${RATELIMIT_FILTER}.`);
const CITE = 'docs/rate-limiting.md § What explain shows';
const OVER_LIMIT: Outcome = { status: 429, body: '', headers: { 'x-envoy-ratelimited': 'true' }, by: RATELIMIT_FILTER };

/** An entry's value; undefined: known only to Envoy at run time (the client's address, metadata). */
type Entry = { key: string; value: string | undefined; note?: string };

export interface RateLimitResult {
  step: Step;
  assumption?: { text: string; otherwise: Outcome[] };
}

const show = (d: Entry[]) => d.map((e) => `(${e.key}, ${e.value ?? `<${e.note}>`})`).join(' ');

/** The descriptor one RateLimit's actions make, or why Envoy sends none. */
function descriptorOf(actions: Json[], req: HttpRequest, route: Json): Entry[] | string {
  const out: Entry[] = [];
  for (const a of actions) {
    if (a.generic_key) {
      const g = a.generic_key as Json;
      out.push({ key: (g.descriptor_key as string | undefined) ?? 'generic_key', value: g.descriptor_value as string });
    } else if (a.request_headers) {
      const h = a.request_headers as Json;
      const value = headerValue(req, h.header_name as string);
      if (value !== undefined) out.push({ key: h.descriptor_key as string, value });
      else if (!h.skip_if_absent) return `no ${String(h.header_name)} header: this descriptor is not sent`;
    } else if (a.remote_address) out.push({ key: 'remote_address', value: undefined, note: "the client's address" });
    else if (a.source_cluster) out.push({ key: 'source_cluster', value: undefined, note: "Envoy's --service-cluster" });
    else if (a.destination_cluster) {
      const cluster = (route.route as Json | undefined)?.cluster as string | undefined;
      out.push({ key: 'destination_cluster', value: cluster, note: 'the weighted cluster picked' });
    } else if (a.header_value_match) {
      const m = a.header_value_match as Json;
      const matched = ((m.headers as Json[] | undefined) ?? []).every((h) => matchHeaderOrRange(h, req));
      if (matched !== (m.expect_match !== false))
        return `the headers ${matched ? 'match' : 'do not match'}: the header_match ${String(m.descriptor_value)} descriptor is not sent`;
      out.push({ key: 'header_match', value: m.descriptor_value as string });
    } else if (a.metadata) {
      const m = a.metadata as Json;
      out.push({ key: m.descriptor_key as string, value: undefined, note: 'from metadata' });
    }
  }
  return out;
}

function matchHeaderOrRange(h: Json, req: HttpRequest): boolean {
  const range = h.range_match as Json | undefined;
  if (!range) return matchHeader(h, req).ok;
  const value = headerValue(req, h.name as string);
  const n = value !== undefined && /^[+-]?\d+$/.test(value) ? Number(value) : undefined;
  const inRange = n !== undefined && n >= Number(range.start) && n < Number(range.end);
  return inRange !== (h.invert_match === true);
}

const limitOf = (rl: Json | undefined) =>
  rl ? `${String(rl.requests_per_unit)} per ${String(rl.unit).toLowerCase()}` : 'no limit';

/** The tree rule a descriptor reaches, as envoyproxy/ratelimit walks it (an exact value first, else the rule without one). */
function treeRule(rules: Json[] | undefined, entries: Entry[]): string {
  let level = rules ?? [];
  let node: Json | undefined;
  const path: string[] = [];
  for (const e of entries) {
    const exact = e.value !== undefined ? level.find((r) => r.key === e.key && r.value === e.value) : undefined;
    const valued = level.some((r) => r.key === e.key && r.value !== undefined);
    node = exact ?? level.find((r) => r.key === e.key && r.value === undefined);
    if (!node && e.value === undefined && valued)
      return `depends on ${e.note}: rules of ${e.key} name values, and explain does not know it`;
    if (!node) return `no rule for ${path.length ? `${path.join(' > ')} > ` : ''}${e.key}: not limited`;
    path.push(node.value !== undefined ? `${e.key}=${String(node.value)}` : e.key);
    level = (node.descriptors as Json[] | undefined) ?? [];
  }
  const rl = node?.rate_limit as Json | undefined;
  if (!rl) return `rule ${path.join(' > ')} has no limit`;
  // A rule without a value keeps one counter per value the request brings.
  return `rule ${path.join(' > ')}: ${limitOf(rl)}${node!.value === undefined ? `, one counter per ${String(node!.key)}` : ''}`;
}

/** Gloo's set rules a set descriptor matches: every entry of a rule in the request's set; the first, and every alwaysApply one. */
function setRules(rules: Json[] | undefined, entries: Entry[]): string {
  const hits: string[] = [];
  let first = true;
  for (const r of rules ?? []) {
    const simple = (r.simple_descriptors as Json[] | undefined) ?? [];
    const ok = simple.every((s) =>
      entries.some((e) => e.key === s.key && (s.value === undefined || e.value === s.value)),
    );
    if (!ok || (!first && !r.always_apply)) continue;
    first = false;
    hits.push(
      `set rule {${simple.map((s) => `${String(s.key)}${s.value !== undefined ? `=${String(s.value)}` : ''}`).join(', ')}}: ${limitOf(r.rate_limit as Json)}`,
    );
  }
  return hits.length ? hits.join('; ') : 'no set rule matches: not limited';
}

/** Envoy's RateLimit.Override: the limit comes from dynamic metadata, which explain cannot see. */
function overrideNote(policy: Json): string {
  const key = ((policy.limit as Json | undefined)?.dynamic_metadata as Json | undefined)?.metadata_key as
    Json | undefined;
  if (!key) return '';
  const path = ((key.path as Json[] | undefined) ?? []).map((p) => String(p.key)).join('.');
  return `, unless dynamic metadata ${String(key.key)}: ${path} holds a limit, which the service counts instead (explain does not see dynamic metadata)`;
}

export function evaluateRateLimit(
  filter: Json,
  levels: { route?: Json; vh?: Json },
  req: HttpRequest,
  domains: Map<string, Json>,
): RateLimitResult {
  const domain = filter.domain as string;
  const stage = (filter.stage as number | undefined) ?? 0;
  const step: Step = { stage: `ratelimit ${domain}`, summary: '', details: [], cite: CITE };
  const action = levels.route?.route as Json | undefined;
  if (!action) {
    step.summary = 'skipped: the route has no route action';
    return { step };
  }
  const ofStage = (list: unknown) =>
    ((list as Json[] | undefined) ?? []).filter((r) => ((r.stage as number | undefined) ?? 0) === stage);
  const own = (action.rate_limits as Json[] | undefined) ?? [];
  const policies = [
    ...ofStage(own),
    ...(own.length === 0 || action.include_vh_rate_limits ? ofStage(levels.vh?.rate_limits) : []),
  ];
  const whose = own.length ? 'the route' : 'the virtual host';
  if (policies.length === 0) {
    step.summary = `no descriptor: ${whose} has no rate limit of stage ${stage}`;
    return { step };
  }
  const rules = domains.get(domain);
  let sent = 0;
  for (const p of policies) {
    const d = descriptorOf((p.actions as Json[] | undefined) ?? [], req, levels.route!);
    if (typeof d === 'string') {
      step.details.push(d);
      continue;
    }
    sent++;
    const isSet = d[0]?.key === SET_DESCRIPTOR_MARKER.key && d[0]?.value === SET_DESCRIPTOR_MARKER.value;
    const match = !rules
      ? `domain ${domain} has no rules in this output`
      : isSet
        ? setRules(rules.set_descriptors as Json[] | undefined, d.slice(1))
        : treeRule(rules.descriptors as Json[] | undefined, d);
    step.details.push(`${show(d)} -> ${match}${overrideNote(p)}`);
  }
  step.summary = `${sent} descriptor${sent === 1 ? '' : 's'} of ${whose} to domain ${domain} (stage ${stage})`;
  if (sent === 0) return { step };
  const otherwise = [OVER_LIMIT];
  if (filter.failure_mode_deny === true) otherwise.push({ status: 503, body: '', by: RATELIMIT_FILTER });
  return {
    step,
    assumption: {
      text: `the request is under every limit of domain ${domain} (explain does not count the requests before this one${filter.failure_mode_deny === true ? ', and assumes the service answers' : ''})`,
      otherwise,
    },
  };
}
