/**
 * One ShouldRateLimit call without I/O: which counters a request increments
 * (plan) and, from their new values, the answer (answer). Windows and cache
 * keys as envoyproxy/ratelimit makes them (src/limiter/cache_key.go:
 * `prefix domain_key_value_..._windowstart`, the window start a multiple of
 * the unit's seconds since the epoch), so a limit means the same in both
 * servers; Gloo's weight / always_apply priority among the tree rules.
 */
import { UNIT_SECONDS, type Domain, type Limit, type Unit } from './config.js';
import { matchDescriptor, treeKey, type Entry } from './matcher.js';

/** envoy.type.v3.RateLimitUnit of a descriptor's `limit` override, by number. */
const OVERRIDE_UNITS: (Unit | undefined)[] = [undefined, 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR', 'WEEK'];

/** What the server reads of an envoy.service.ratelimit.v3.RateLimitRequest (protobufjs leaves absent strings ''). */
export interface RateLimitRequest {
  domain: string;
  descriptors: { entries: Entry[]; limit?: { requests_per_unit: number; unit: number } | null }[];
  hits_addend: number;
}

/** One counter to increment: a limit matched by descriptor `descriptor`. */
export interface Hit {
  descriptor: number;
  limit: Limit;
  /** The Redis key, window included. */
  key: string;
  /** Seconds the key must live: the unit's, as envoyproxy/ratelimit sets its EXPIRE. */
  ttl: number;
}

export interface Plan {
  /** Counters to increment, each by `addend`. */
  hits: Hit[];
  addend: number;
  /** Descriptors matched by an unlimited rule. */
  unlimited: Set<number>;
  descriptors: number;
  /** Unix time of the plan, in seconds. */
  now: number;
}

export class RequestError extends Error {}

/** A limit from a request's override: counted under the descriptor's own key, never shadowed, no priority. */
function overrideLimit(domain: string, entries: Entry[], o: { requests_per_unit: number; unit: number }): Limit {
  const unit = OVERRIDE_UNITS[o.unit];
  if (!unit) throw new RequestError(`a descriptor's limit override has unit ${o.unit}, not one of Envoy's units`);
  const rule = `${domain}.${entries.map((e) => (e.value ? `${e.key}_${e.value}` : e.key)).join('.')}`;
  return {
    unit,
    requestsPerUnit: o.requests_per_unit,
    unlimited: false,
    shadowMode: false,
    name: '',
    rule,
    weight: 0,
    alwaysApply: true,
  };
}

/**
 * The counters of a request. A domain that is not configured limits nothing
 * (as envoyproxy/ratelimit). Among the tree rules matched, only those of the
 * highest weight count, and every one with always_apply; the others are
 * neither counted nor reported. Set rules are chosen by their own order
 * (matcher.ts) and are not ranked against the tree rules.
 */
export function plan(
  domains: ReadonlyMap<string, Domain>,
  request: RateLimitRequest,
  nowSeconds: number,
  prefix = '',
): Plan {
  if (!request.domain) throw new RequestError('rate limit domain must not be empty');
  if (!request.descriptors.length) throw new RequestError('rate limit descriptor list must not be empty');
  const addend = Math.max(1, request.hits_addend || 0);
  const domain = domains.get(request.domain);
  const result: Plan = {
    hits: [],
    addend,
    unlimited: new Set(),
    descriptors: request.descriptors.length,
    now: nowSeconds,
  };
  if (!domain) return result;
  const matched: { descriptor: number; limit: Limit; key: string; set: boolean }[] = [];
  let maxWeight = -1;
  request.descriptors.forEach((d, i) => {
    if (d.limit) {
      const limit = overrideLimit(domain.name, d.entries, d.limit);
      matched.push({ descriptor: i, limit, key: treeKey(d.entries), set: false });
      return;
    }
    for (const m of matchDescriptor(domain, d.entries)) {
      if (!m.set) maxWeight = Math.max(maxWeight, m.limit.weight);
      matched.push({ descriptor: i, ...m });
    }
  });
  for (const m of matched) {
    if (!m.set && m.limit.weight < maxWeight && !m.limit.alwaysApply) continue;
    if (m.limit.unlimited) {
      result.unlimited.add(m.descriptor);
      continue;
    }
    const seconds = UNIT_SECONDS[m.limit.unit];
    const window = Math.floor(nowSeconds / seconds) * seconds;
    result.hits.push({
      descriptor: m.descriptor,
      limit: m.limit,
      key: `${prefix}${domain.name}_${m.key}${window}`,
      ttl: seconds,
    });
  }
  return result;
}

/** envoy.service.ratelimit.v3.RateLimitResponse.Code. */
export const CODE = { OK: 1, OVER_LIMIT: 2 } as const;
/** envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit by name (WEEK as newer Envoy numbers it). */
const RESPONSE_UNIT: Record<Unit, number> = { SECOND: 1, MINUTE: 2, HOUR: 3, DAY: 4, MONTH: 5, YEAR: 6, WEEK: 7 };
const MAX_UINT32 = 0xffffffff;

export interface DescriptorStatus {
  code: number;
  current_limit?: { requests_per_unit: number; unit: number; name: string };
  limit_remaining: number;
  duration_until_reset?: { seconds: number };
}

/** How each counted hit came out, for the metrics. */
export type HitResult = 'within_limit' | 'over_limit' | 'shadow_mode';

export interface Answer {
  response: {
    overall_code: number;
    statuses: DescriptorStatus[];
    response_headers_to_add?: { key: string; value: string }[];
  };
  /** Parallel to plan.hits. */
  results: HitResult[];
}

function status(hit: Hit, code: number, remaining: number, now: number): DescriptorStatus {
  const seconds = UNIT_SECONDS[hit.limit.unit];
  return {
    code,
    current_limit: {
      requests_per_unit: hit.limit.requestsPerUnit,
      unit: RESPONSE_UNIT[hit.limit.unit],
      name: hit.limit.name,
    },
    limit_remaining: remaining,
    duration_until_reset: { seconds: seconds - (now % seconds) },
  };
}

/**
 * The response, from each hit's count after the increment (`counts`,
 * parallel to plan.hits), or `failed` when Redis did not answer: then each
 * hit is OVER_LIMIT when `denyOnFail`, otherwise OK. A descriptor's status is
 * its hit's; of a set's several, the one over the limit, else the one with
 * the least remaining. `headers`: x-ratelimit-limit/remaining/reset of the
 * status closest to its limit, as envoyproxy/ratelimit adds them.
 */
export function answer(
  p: Plan,
  outcome: { counts: number[] } | { failed: true; denyOnFail: boolean },
  headers: boolean,
): Answer {
  const statuses: DescriptorStatus[] = Array.from({ length: p.descriptors }, () => ({
    code: CODE.OK,
    limit_remaining: 0,
  }));
  for (const d of p.unlimited) statuses[d] = { code: CODE.OK, limit_remaining: MAX_UINT32 };
  const results: HitResult[] = [];
  const chosen: (DescriptorStatus | undefined)[] = new Array(p.descriptors);
  let over = false;
  p.hits.forEach((hit, i) => {
    let s: DescriptorStatus;
    let result: HitResult;
    if ('failed' in outcome) {
      s = status(hit, outcome.denyOnFail ? CODE.OVER_LIMIT : CODE.OK, 0, p.now);
      result = outcome.denyOnFail ? 'over_limit' : 'within_limit';
    } else {
      const after = outcome.counts[i]!;
      if (after > hit.limit.requestsPerUnit) {
        // Shadow mode: counted and reported in the metrics, answered OK.
        result = hit.limit.shadowMode ? 'shadow_mode' : 'over_limit';
        s = status(hit, hit.limit.shadowMode ? CODE.OK : CODE.OVER_LIMIT, 0, p.now);
      } else {
        result = 'within_limit';
        s = status(hit, CODE.OK, hit.limit.requestsPerUnit - after, p.now);
      }
    }
    results.push(result);
    if (s.code === CODE.OVER_LIMIT) over = true;
    const prev = chosen[hit.descriptor];
    if (
      !prev ||
      (prev.code !== CODE.OVER_LIMIT && (s.code === CODE.OVER_LIMIT || s.limit_remaining < prev.limit_remaining))
    )
      chosen[hit.descriptor] = s;
  });
  chosen.forEach((s, d) => s && (statuses[d] = s));
  const response: Answer['response'] = { overall_code: over ? CODE.OVER_LIMIT : CODE.OK, statuses };
  if (headers) {
    let closest: DescriptorStatus | undefined;
    for (const s of chosen)
      if (
        s &&
        (!closest ||
          (closest.code !== CODE.OVER_LIMIT &&
            (s.code === CODE.OVER_LIMIT || s.limit_remaining < closest.limit_remaining)))
      )
        closest = s;
    if (closest)
      response.response_headers_to_add = [
        { key: 'x-ratelimit-limit', value: String(closest.current_limit!.requests_per_unit) },
        { key: 'x-ratelimit-remaining', value: String(closest.limit_remaining) },
        { key: 'x-ratelimit-reset', value: String(closest.duration_until_reset!.seconds) },
      ];
  }
  return { response, results };
}
