/**
 * Envoy's matching, on the compiled messages: path normalization by the
 * connection manager, virtual host selection by domain, route selection in
 * order, and the string, header and query parameter matchers routes and RBAC
 * use. Each function says why something did or did not match. `sluice
 * explain` walks a request through them; `sluice serve` answers on-demand
 * VHDS requests with findVirtualHost. Sources: docs/envoy-behaviour.md, "How
 * explain reads the configuration".
 */
import type { JsonObject as Json } from '../../contract/codec.js';
import { headerValue, pathOnly, queryParams, type HttpRequest } from './request.js';

export interface Verdict {
  ok: boolean;
  /** Why, in words a user can check against the configuration. */
  why: string;
}

const q = (s: string) => JSON.stringify(s);

/** envoy.type.matcher.v3.StringMatcher. */
export function matchString(m: Json, value: string): boolean {
  const ic = m.ignore_case === true;
  const v = ic ? value.toLowerCase() : value;
  const lit = (s: unknown) => (ic ? String(s).toLowerCase() : String(s));
  if (m.exact !== undefined) return v === lit(m.exact);
  if (m.prefix !== undefined) return v.startsWith(lit(m.prefix));
  if (m.suffix !== undefined) return v.endsWith(lit(m.suffix));
  if (m.contains !== undefined) return v.includes(lit(m.contains));
  // RE2 full match; JavaScript's syntax agrees for the patterns RE2 accepts.
  if (m.safe_regex !== undefined) return new RegExp(`^(?:${(m.safe_regex as Json).regex as string})$`).test(value);
  throw new Error(`string matcher ${JSON.stringify(m)} is not one explain knows`);
}

export function describeString(m: Json): string {
  const ic = m.ignore_case === true ? ' (any case)' : '';
  if (m.exact !== undefined) return `${q(String(m.exact))}${ic}`;
  if (m.prefix !== undefined) return `prefixed by ${q(String(m.prefix))}${ic}`;
  if (m.suffix !== undefined) return `suffixed by ${q(String(m.suffix))}${ic}`;
  if (m.contains !== undefined) return `a string containing ${q(String(m.contains))}${ic}`;
  if (m.safe_regex !== undefined) return `a full match of /${(m.safe_regex as Json).regex as string}/`;
  return JSON.stringify(m);
}

/** The StringMatcher inside a HeaderMatcher, old spellings included. */
function headerStringMatcher(h: Json): Json | undefined {
  if (h.string_match) return h.string_match as Json;
  if (h.exact_match !== undefined) return { exact: h.exact_match };
  if (h.prefix_match !== undefined) return { prefix: h.prefix_match };
  if (h.suffix_match !== undefined) return { suffix: h.suffix_match };
  if (h.contains_match !== undefined) return { contains: h.contains_match };
  if (h.safe_regex_match !== undefined) return { safe_regex: h.safe_regex_match };
  return undefined;
}

/** envoy.config.route.v3.HeaderMatcher (routes and RBAC `header` permissions). */
export function matchHeader(h: Json, req: HttpRequest): Verdict {
  const name = h.name as string;
  const label = name === ':method' ? 'method' : `header ${name}`;
  let value = headerValue(req, name);
  if (value === undefined && h.treat_missing_header_as_empty === true) value = '';
  const invert = h.invert_match === true;
  const verdict = (matched: boolean, why: string): Verdict => ({
    ok: matched !== invert,
    why: invert ? `not (${why})` : why,
  });
  if (h.present_match !== undefined) {
    const want = h.present_match === true;
    return verdict((value !== undefined) === want, value === undefined ? `${label} is absent` : `${label} is present`);
  }
  const sm = headerStringMatcher(h);
  if (!sm) return verdict(value !== undefined, value === undefined ? `${label} is absent` : `${label} is present`);
  if (value === undefined) return { ok: invert, why: `${label} is absent (wanted ${describeString(sm)})` };
  const matched = matchString(sm, value);
  return verdict(
    matched,
    matched ? `${label} ${q(value)} is ${describeString(sm)}` : `${label} ${q(value)} is not ${describeString(sm)}`,
  );
}

function matchQueryParameter(m: Json, req: HttpRequest): Verdict {
  const name = m.name as string;
  const value = queryParams(req.path).get(name);
  if (m.present_match === true)
    return { ok: value !== undefined, why: `query parameter ${name} is ${value === undefined ? 'absent' : 'present'}` };
  const sm = m.string_match as Json | undefined;
  if (value === undefined) return { ok: false, why: `query parameter ${name} is absent` };
  if (!sm) return { ok: true, why: `query parameter ${name} is present` };
  const ok = matchString(sm, value);
  return { ok, why: `query parameter ${name} ${q(value)} is ${ok ? '' : 'not '}${describeString(sm)}` };
}

/** The connection manager's path handling before filters and routing: escaped slashes, RFC 3986 dot segments, merged slashes. */
export interface NormalizedPath {
  path: string;
  /** Set when Envoy answers with a redirect to `path` instead of routing. */
  redirect: boolean;
  notes: string[];
}

function removeDotSegments(path: string): string {
  const out: string[] = [];
  const segments = path.split('/');
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!.replace(/%2e/gi, '.');
    if (s === '.') {
      if (i === segments.length - 1) out.push('');
    } else if (s === '..') {
      if (out.length > 1) out.pop();
      if (i === segments.length - 1) out.push('');
    } else out.push(segments[i]!);
  }
  return out.join('/') || '/';
}

export function normalizePath(path: string, hcm: Json): NormalizedPath {
  const qAt = path.search(/[?#]/);
  let p = qAt === -1 ? path : path.slice(0, qAt);
  const rest = qAt === -1 ? '' : path.slice(qAt);
  const notes: string[] = [];
  let redirect = false;
  const action = hcm.path_with_escaped_slashes_action as string | undefined;
  if (/%2f|%5c/i.test(p) && action && action !== 'KEEP_UNCHANGED' && action !== 'IMPLEMENTATION_SPECIFIC_DEFAULT') {
    if (action === 'REJECT_REQUEST')
      return {
        path,
        redirect: false,
        notes: ['escaped slash (%2F or %5C) in the path: path_with_escaped_slashes_action REJECT_REQUEST answers 400'],
      };
    p = p.replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
    redirect = action === 'UNESCAPE_AND_REDIRECT';
    notes.push(`escaped slashes decoded (path_with_escaped_slashes_action ${action})`);
  }
  if (hcm.normalize_path === true) {
    const n = removeDotSegments(p);
    if (n !== p) notes.push(`normalize_path: ${q(p)} -> ${q(n)}`);
    p = n;
  }
  if (hcm.merge_slashes === true) {
    const m = p.replace(/\/{2,}/g, '/');
    if (m !== p) notes.push(`merge_slashes: ${q(p)} -> ${q(m)}`);
    p = m;
  }
  return { path: p + rest, redirect, notes };
}

/** Which virtual host a host (with its port, if sent) selects: exact, then suffix wildcards, then prefix wildcards (longest first), then `*`. */
export function findVirtualHost<VirtualHost extends { domains?: unknown }>(
  virtualHosts: VirtualHost[],
  authority: string,
): { vh?: VirtualHost; why: string } {
  const host = authority.toLowerCase();
  const all = virtualHosts.flatMap((vh) => (vh.domains as string[]).map((d) => ({ vh, domain: d.toLowerCase() })));
  const exact = all.find((d) => d.domain === host);
  if (exact) return { vh: exact.vh, why: `exact domain ${q(exact.domain)}` };
  const byLength = (a: { domain: string }, b: { domain: string }) => b.domain.length - a.domain.length;
  const suffix = all
    .filter(
      (d) =>
        d.domain.length > 1 &&
        d.domain.startsWith('*') &&
        host.length > d.domain.length - 1 &&
        host.endsWith(d.domain.slice(1)),
    )
    .sort(byLength)[0];
  if (suffix) return { vh: suffix.vh, why: `suffix wildcard ${q(suffix.domain)} (no exact domain)` };
  const prefix = all
    .filter(
      (d) =>
        d.domain.length > 1 &&
        d.domain.endsWith('*') &&
        host.length > d.domain.length - 1 &&
        host.startsWith(d.domain.slice(0, -1)),
    )
    .sort(byLength)[0];
  if (prefix) return { vh: prefix.vh, why: `prefix wildcard ${q(prefix.domain)} (no exact or suffix-wildcard domain)` };
  const star = all.find((d) => d.domain === '*');
  const portNote = /:\d+$/.test(host) ? ` (the port is part of the host Envoy matches: no domain is ${q(host)})` : '';
  if (star) return { vh: star.vh, why: `catch-all domain "*": no other domain matches ${q(host)}${portNote}` };
  return { why: `no domain matches ${q(host)}${portNote}, and no virtual host has "*"` };
}

/** One route's `match`: path specifier (case_sensitive), headers, query parameters. */
export function matchRoute(match: Json, req: HttpRequest): Verdict {
  const caseSensitive = match.case_sensitive !== false;
  const fold = (s: string) => (caseSensitive ? s : s.toLowerCase());
  const path = req.path;
  const bare = pathOnly(path);
  let verdict: Verdict;
  if (match.prefix !== undefined) {
    const prefix = match.prefix as string;
    const ok = fold(path).startsWith(fold(prefix));
    verdict = { ok, why: `path ${q(bare)} ${ok ? 'starts' : 'does not start'} with prefix ${q(prefix)}` };
  } else if (match.path !== undefined) {
    const ok = fold(bare) === fold(match.path as string);
    verdict = { ok, why: `path ${q(bare)} ${ok ? 'is' : 'is not'} ${q(match.path as string)}` };
  } else if (match.path_separated_prefix !== undefined) {
    const prefix = match.path_separated_prefix as string;
    const ok = fold(bare) === fold(prefix) || fold(bare).startsWith(`${fold(prefix)}/`);
    verdict = { ok, why: `path ${q(bare)} ${ok ? 'is' : 'is not'} ${q(prefix)} or under it` };
  } else if (match.safe_regex !== undefined) {
    const regex = (match.safe_regex as Json).regex as string;
    const ok = new RegExp(`^(?:${regex})$`).test(bare);
    verdict = { ok, why: `path ${q(bare)} ${ok ? 'matches' : 'does not match'} /${regex}/` };
  } else if (match.connect_matcher !== undefined) {
    const ok = req.method === 'CONNECT';
    verdict = { ok, why: ok ? 'a CONNECT request' : 'not a CONNECT request' };
  } else {
    throw new Error(`route match ${JSON.stringify(match)}: explain does not know this path specifier`);
  }
  if (!verdict.ok) return verdict;
  const reasons = [verdict.why];
  for (const h of (match.headers as Json[] | undefined) ?? []) {
    const v = matchHeader(h, req);
    if (!v.ok) return v;
    reasons.push(v.why);
  }
  for (const p of (match.query_parameters as Json[] | undefined) ?? []) {
    const v = matchQueryParameter(p, req);
    if (!v.ok) return v;
    reasons.push(v.why);
  }
  if (match.grpc !== undefined) {
    const ct = headerValue(req, 'content-type') ?? '';
    if (!/^application\/grpc(\+|;|$)/.test(ct))
      return { ok: false, why: 'not a gRPC request (content-type is not application/grpc)' };
    reasons.push('a gRPC request');
  }
  return { ok: true, why: reasons.join(', ') };
}

/** The most specific `typed_per_filter_config` of a filter: route, then virtual host, then route configuration. */
export function perFilterConfig(
  filter: string,
  levels: { cluster?: Json; route?: Json; vh?: Json; routeConfig?: Json },
): { config: Json; level: string } | undefined {
  for (const [level, holder] of [
    ['weighted destination', levels.cluster],
    ['route', levels.route],
    ['virtual host', levels.vh],
    ['route configuration', levels.routeConfig],
  ] as const) {
    const config = (holder?.typed_per_filter_config as Json | undefined)?.[filter] as Json | undefined;
    if (config) return { config, level };
  }
  return undefined;
}
