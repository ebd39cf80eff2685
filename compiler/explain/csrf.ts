/**
 * envoy.filters.http.csrf, evaluated on its compiled config as
 * `CsrfFilter::decodeHeaders` does (csrf_filter.cc): the most specific
 * CsrfPolicy, else the filter's own; only POST, PUT, DELETE and PATCH are
 * checked; the source origin is the host and port of Origin, else of
 * Referer; the target is the host and port of `<scheme>://<Host>`; equal, or
 * matched by an additional origin, passes. Otherwise 403 `Invalid origin`,
 * unless only shadow mode applies (counted, let through).
 */
import type { Json } from '../translate/output.js';
import { describeString, matchString, perFilterConfig } from '../envoy/match.js';
import type { Outcome, Step } from './model.js';
import { headerValue, type HttpRequest } from '../envoy/request.js';

export const CSRF_FILTER = 'envoy.filters.http.csrf';
export const CSRF_DENIED: Outcome = { status: 403, body: 'Invalid origin', by: CSRF_FILTER };
const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: csrf';

const MODIFYING = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
const DENOMINATORS: Record<string, number> = { HUNDRED: 100, TEN_THOUSAND: 10_000, MILLION: 1_000_000 };

/** The share of requests a RuntimeFractionalPercent selects, from 0 to 1 (no runtime layer: its default value). */
function share(fraction: Json | undefined): number {
  const value = (fraction?.default_value as Json | undefined) ?? {};
  return Math.min(1, Number(value.numerator ?? 0) / DENOMINATORS[String(value.denominator ?? 'HUNDRED')]!);
}

const percent = (s: number) => `${+(s * 100).toFixed(4)}%`;

/**
 * The host and port of an absolute http(s) URL, default ports left out and
 * the host lower-cased (Envoy's `Utility::Url::hostAndPort`, a GURL parse);
 * anything else as it is, as Envoy compares it.
 */
function hostAndPort(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.host;
  } catch {
    // Not a URL: compared as written.
  }
  return value;
}

export interface CsrfResult {
  step: Step;
  reply?: Outcome;
  assumption?: { text: string; otherwise: Outcome[] };
}

export function evaluateCsrf(
  filter: Json,
  levels: Parameters<typeof perFilterConfig>[1],
  req: HttpRequest,
): CsrfResult {
  const step: Step = { stage: 'csrf', summary: '', details: [], cite: CITE };
  const per = perFilterConfig(CSRF_FILTER, levels);
  const policy = per?.config ?? filter;
  const where = per ? `the ${per.level}'s policy` : "the filter's own policy";
  const enabled = share(policy.filter_enabled as Json | undefined);
  const shadow = share(policy.shadow_enabled as Json | undefined);
  if (enabled === 0 && shadow === 0) {
    step.summary = `off: ${where} checks no request`;
    return { step };
  }
  if (!MODIFYING.has(req.method)) {
    step.summary = `not checked: ${req.method} (only POST, PUT, DELETE and PATCH are)`;
    return { step };
  }
  const origin = hostAndPort(headerValue(req, 'origin') ?? '');
  const source = origin !== '' ? origin : hostAndPort(headerValue(req, 'referer') ?? '');
  const target = hostAndPort(`${req.scheme}://${req.authority}`);
  step.details.push(
    `${where}: ${enabled > 0 ? `enforced for ${percent(enabled)} of requests` : `shadow mode for ${percent(shadow)} of requests`}`,
  );
  step.details.push(
    `source origin: ${source === '' ? 'none (no Origin or Referer)' : `${JSON.stringify(source)}, from ${origin !== '' ? 'Origin' : 'Referer'}`}; target: ${JSON.stringify(target)}, from Host`,
  );
  if (source !== '' && source === target) {
    step.summary = `allowed: the source origin ${source} is the request's host`;
    return { step };
  }
  const additional =
    source === ''
      ? undefined
      : ((policy.additional_origins as Json[] | undefined) ?? []).find((m) => matchString(m, source));
  if (additional) {
    step.summary = `allowed: the source origin ${source} is an additional origin (${describeString(additional)})`;
    return { step };
  }
  const why =
    source === ''
      ? 'the request has neither Origin nor Referer'
      : `the source origin ${source} is neither the request's host ${target} nor an additional origin`;
  if (enabled === 0) {
    step.summary = `let through: ${why}, but this policy only counts it (shadow mode)`;
    return { step };
  }
  if (enabled < 1) {
    step.summary = `${why}: refused for ${percent(enabled)} of requests`;
    return {
      step,
      assumption: {
        text: `the csrf filter does not enforce its policy on this request (it does on ${percent(enabled)} of them)`,
        otherwise: [CSRF_DENIED],
      },
    };
  }
  step.summary = `denied: ${why}`;
  return { step, reply: CSRF_DENIED };
}
