/**
 * Gloo's options that set Envoy's RouteAction and VirtualHost fields beyond
 * rewrites and retries: the host rewrites from the path or a request header,
 * x-forwarded-host, stream and idle timeouts (routes); attempt-count headers
 * and virtual cluster statistics (virtual hosts). Each is an Envoy field as
 * Gloo sets it.
 */
import { HTTP_METHODS } from '../kinds/schema.js';
import type { RouteOptionsSpec } from '../kinds/route-options.js';
import type { VirtualHostOptionsSpec } from '../kinds/virtual-host-options.js';
import type { FieldPath } from '../diagnostics.js';
import type { CorsIR, RouteExtrasIR, RouteIR, VirtualHostExtrasIR } from '../ir/model.js';
import { re2Problem } from './matchers.js';

/** What the checks report through (route-options' OptionReport). */
export interface ExtrasReport {
  error(path: FieldPath, message: string, hint?: string): void;
  duration(value: string, path: FieldPath, min?: bigint, hint?: string): string | undefined;
}

const HOST_REWRITES = ['hostRewrite', 'autoHostRewrite', 'hostRewritePathRegex', 'hostRewriteHeader'] as const;

const RE2_HINT = 'write an RE2 regular expression (no lookaround or backreferences)';

/** The route's extra RouteAction fields; errors go to `report`. */
export function routeExtras(s: RouteOptionsSpec, path: FieldPath, report: ExtrasReport): RouteExtrasIR {
  const out: RouteExtrasIR = {};
  // One of Gloo's oneofs: JSON can still hold two members, which Envoy would refuse.
  const rewrites = HOST_REWRITES.filter((k) => s[k] !== undefined);
  if (rewrites.length > 1)
    report.error(
      [...path, rewrites[1]!],
      `${rewrites.join(' and ')} are both set; Envoy takes one host rewrite`,
      'keep one of them',
    );
  if (s.hostRewritePathRegex) {
    const problem = re2Problem(s.hostRewritePathRegex.pattern.regex);
    if (problem)
      report.error(
        [...path, 'hostRewritePathRegex', 'pattern', 'regex'],
        `RE2 refuses the pattern: ${problem}`,
        RE2_HINT,
      );
    out.hostRewritePathRegex = {
      pattern: s.hostRewritePathRegex.pattern.regex,
      substitution: s.hostRewritePathRegex.substitution,
    };
  }
  if (s.hostRewriteHeader !== undefined) out.hostRewriteHeader = s.hostRewriteHeader;
  if (s.appendXForwardedHost !== undefined) {
    // Envoy appends the original host only when it rewrites the host; elsewhere the field would do nothing.
    if (s.appendXForwardedHost && rewrites.length === 0)
      report.error(
        [...path, 'appendXForwardedHost'],
        'appendXForwardedHost acts only on a route that rewrites the host, and this one does not',
        'set one of hostRewrite, autoHostRewrite, hostRewritePathRegex or hostRewriteHeader, or remove appendXForwardedHost',
      );
    out.appendXForwardedHost = s.appendXForwardedHost;
  }
  const none = 'write a number with a unit, e.g. "300s" or "5m" ("0s": none)';
  if (s.idleTimeout !== undefined) {
    const idle = report.duration(s.idleTimeout, [...path, 'idleTimeout'], 0n, none);
    if (idle !== undefined) out.idleTimeout = idle;
  }
  if (s.maxStreamDuration) {
    const at = [...path, 'maxStreamDuration'];
    const m = s.maxStreamDuration;
    const read = (field: 'maxStreamDuration' | 'grpcTimeoutHeaderMax' | 'grpcTimeoutHeaderOffset') =>
      m[field] === undefined ? undefined : report.duration(m[field], [...at, field], 0n, none);
    const max = read('maxStreamDuration');
    const headerMax = read('grpcTimeoutHeaderMax');
    const offset = read('grpcTimeoutHeaderOffset');
    if (offset !== undefined && headerMax === undefined)
      report.error(
        [...at, 'grpcTimeoutHeaderOffset'],
        'grpcTimeoutHeaderOffset acts only with grpcTimeoutHeaderMax (the grpc-timeout header is read only then)',
        'set grpcTimeoutHeaderMax ("0s": the header as sent), or remove grpcTimeoutHeaderOffset',
      );
    if (max === undefined && headerMax === undefined)
      report.error(at, 'maxStreamDuration sets no limit', 'set maxStreamDuration or grpcTimeoutHeaderMax');
    out.maxStreamDuration = {
      ...(max !== undefined ? { max } : {}),
      ...(headerMax !== undefined ? { grpcTimeoutHeaderMax: headerMax } : {}),
      ...(offset !== undefined ? { grpcTimeoutHeaderOffset: offset } : {}),
    };
  }
  if (s.tracing) {
    const t = s.tracing;
    if (t.propagate !== undefined && t.routeDescriptor === undefined)
      report.error(
        [...path, 'tracing', 'propagate'],
        'propagate sends the routeDescriptor upstream, and there is none',
        'set routeDescriptor, or remove propagate',
      );
    // Gloo's default for each share is 100%.
    out.tracing = {
      ...(t.routeDescriptor !== undefined ? { operation: t.routeDescriptor } : {}),
      ...(t.propagate !== undefined ? { propagate: t.propagate } : {}),
      clientSample: t.tracePercentages?.clientSamplePercentage ?? 100,
      randomSample: t.tracePercentages?.randomSamplePercentage ?? 100,
      overallSample: t.tracePercentages?.overallSamplePercentage ?? 100,
    };
  }
  return out;
}

/** The virtual host's attempt-count headers and virtual clusters. */
export function virtualHostExtras(
  s: Pick<VirtualHostOptionsSpec, 'includeRequestAttemptCount' | 'includeAttemptCountInResponse' | 'stats'>,
  path: FieldPath,
  report: ExtrasReport,
): VirtualHostExtrasIR {
  const out: VirtualHostExtrasIR = {};
  if (s.includeRequestAttemptCount !== undefined) out.includeRequestAttemptCount = s.includeRequestAttemptCount;
  if (s.includeAttemptCountInResponse !== undefined)
    out.includeAttemptCountInResponse = s.includeAttemptCountInResponse;
  if (s.stats) {
    const names = new Map<string, number>();
    out.virtualClusters = (s.stats.virtualClusters ?? []).map((v, i) => {
      const at = [...path, 'stats', 'virtualClusters', i];
      // Gloo's sanitising: a dot would split Envoy's stat name (vhost.<host>.vcluster.<name>.*).
      const name = v.name.replaceAll('.', '_');
      const first = names.get(name);
      if (first !== undefined)
        report.error(
          [...at, 'name'],
          `virtual cluster "${name}" is also virtualClusters[${first}]: their statistics would be one`,
          'give each virtual cluster its own name',
        );
      else names.set(name, i);
      const problem = re2Problem(v.pattern);
      if (problem) report.error([...at, 'pattern'], `RE2 refuses the pattern: ${problem}`, RE2_HINT);
      const method = v.method?.toUpperCase();
      if (method !== undefined && !(HTTP_METHODS as readonly string[]).includes(method))
        report.error([...at, 'method'], `"${v.method}" is not an HTTP method`, `use one of ${HTTP_METHODS.join(', ')}`);
      return { name, pattern: v.pattern, ...(method ? { method } : {}) };
    });
  }
  return out;
}

/**
 * Gloo's corsPolicyMergeSettings.exposeHeaders UNION: a route's own CORS
 * policy exposes the virtual host's headers too, when both list some (first
 * the host's, each once); Envoy itself takes the route's policy whole.
 */
export function withUnionExposeHeaders(routes: RouteIR[], host: CorsIR): RouteIR[] {
  if (host.exposeHeaders.length === 0) return routes;
  return routes.map((r) => {
    const own = r.options?.cors;
    if (!own || own.exposeHeaders.length === 0) return r;
    const exposeHeaders = [...new Set([...host.exposeHeaders, ...own.exposeHeaders])];
    return { ...r, options: { ...r.options, cors: { ...own, exposeHeaders } } };
  });
}
