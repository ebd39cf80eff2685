/**
 * Gloo's `options` on a route and on a virtual host -> IR, with the checks a
 * user can fail. Route options that change the forwarded request (rewrites,
 * timeout, retries, upgrades) need a routeAction; headerManipulation and
 * retries may also sit on the virtual host, where Envoy applies them to every
 * route (a route's own retry policy replaces the host's; headers of both
 * levels apply, the route's first), as Gloo maps them.
 */
import { parseDuration } from '../../contract/proto3-json.js';
import { quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type {
  CorsIR,
  CsrfIR,
  CustomAuthIR,
  TokenBucketIR,
  ExtauthRefIR,
  VirtualHostExtrasIR,
  FractionIR,
  HeaderManipulationIR,
  RetriesIR,
  RouteOptionsIR,
  RbacPolicyIR,
} from '../ir/model.js';
import type { CustomAuthSpec } from './custom-auth.js';
import type { CsrfSpec } from '../kinds/csrf.js';
import type { RateLimitsIR } from '../ir/ratelimit.js';
import type { RateLimitOptionsSpec } from './rate-limits.js';
import type { Ref } from '../kinds/resource.js';
import type { CorsSpec, RetriesSpec, RouteOptionsSpec } from '../kinds/route-options.js';
import type { VirtualHostOptionsSpec } from '../kinds/virtual-host-options.js';
import { re2Problem } from './matchers.js';
import { routeExtProc, type GrpcCluster } from './ext-proc.js';
import { bufferPerRoute } from './gateway-http-options.js';
import type { RbacPoliciesSpec } from '../kinds/rbac.js';
import { routeExtras, virtualHostExtras } from './route-extras.js';
import { OptionReport, tokenBucket } from './option-report.js';
import type { HeaderSecretLookup } from './header-secrets.js';
import { headerManipulation } from './header-lists.js';

/** Options that change the request Envoy forwards upstream: only where there is one (routeAction). */
const FORWARDING: readonly (keyof RouteOptionsSpec)[] = [
  'prefixRewrite',
  'regexRewrite',
  'hostRewrite',
  'autoHostRewrite',
  'timeout',
  'retries',
  'upgrades',
  'lbHash',
  'shadowing',
  'faults',
  'hostRewritePathRegex',
  'hostRewriteHeader',
  'appendXForwardedHost',
  'maxStreamDuration',
  'idleTimeout',
];

/** Whether an option can act on a route with `action` (routeOptions reports the others as errors): what a delegated route may inherit. */
export function optionApplies(key: keyof RouteOptionsSpec, action: RouteActionField): boolean {
  if (FORWARDING.includes(key)) return action === 'routeAction';
  if (key === 'cors') return action === 'routeAction' || action === 'graphqlApiRef';
  return true;
}

function retries(spec: RetriesSpec, path: FieldPath, report: OptionReport): RetriesIR | undefined {
  const out: RetriesIR = {
    retryOn: spec.retryOn ?? '',
    // Gloo turns 0 (unset) into one retry.
    numRetries: spec.numRetries || 1,
    retriableStatusCodes: spec.retriableStatusCodes ?? [],
    // Gloo writes 1 when the frequency is unset (Envoy needs one above 0).
    ...(spec.previousPriorities
      ? { previousPrioritiesUpdateFrequency: spec.previousPriorities.updateFrequency ?? 1 }
      : {}),
  };
  if (out.retryOn === '' && out.retriableStatusCodes.length === 0) {
    report.error(
      path,
      'retries without retryOn or retriableStatusCodes would never retry',
      'set retryOn, e.g. "5xx,reset,connect-failure"',
    );
  }
  if (spec.perTryTimeout !== undefined)
    out.perTryTimeout = report.duration(spec.perTryTimeout, [...path, 'perTryTimeout'], 1n);
  const backOff = spec.retryBackOff;
  if (backOff) {
    // Gloo's and Envoy's rules: a base of at least 1 ms, a maximum not below it.
    const base = report.duration(backOff.baseInterval, [...path, 'retryBackOff', 'baseInterval'], 1_000_000n);
    const max =
      backOff.maxInterval === undefined
        ? undefined
        : report.duration(backOff.maxInterval, [...path, 'retryBackOff', 'maxInterval'], 1n);
    if (base && max && parseDuration(max)! < parseDuration(base)!)
      report.error(
        [...path, 'retryBackOff', 'maxInterval'],
        `maxInterval ${max} is below baseInterval ${base}`,
        'make maxInterval at least baseInterval',
      );
    if (base) out.backOff = { baseInterval: base, ...(max ? { maxInterval: max } : {}) };
  }
  const limited = spec.rateLimitedRetryBackOff;
  if (limited) {
    const at = [...path, 'rateLimitedRetryBackOff'];
    const max =
      limited.maxInterval === undefined ? undefined : report.duration(limited.maxInterval, [...at, 'maxInterval'], 1n);
    out.rateLimitedBackOff = {
      resetHeaders: limited.resetHeaders.map((h) => ({ name: h.name, format: h.format ?? 'SECONDS' })),
      ...(max ? { maxInterval: max } : {}),
    };
  }
  return out;
}

/** Gloo's CorsPolicy: at least one origin (Gloo's rule), regexes checked with RE2. */
function cors(spec: CorsSpec, path: FieldPath, report: OptionReport): CorsIR {
  const disabled = spec.disableForRoute ?? false;
  if (!disabled && (spec.allowOrigin ?? []).length === 0 && (spec.allowOriginRegex ?? []).length === 0) {
    report.error(
      path,
      'cors without allowOrigin or allowOriginRegex would allow no origin',
      'list the origins, e.g. allowOrigin: ["https://app.example.com"]',
    );
  }
  (spec.allowOriginRegex ?? []).forEach((pattern, i) => {
    const problem = re2Problem(pattern);
    if (problem)
      report.error(
        [...path, 'allowOriginRegex', i],
        `RE2 refuses the pattern: ${problem}`,
        'write an RE2 regular expression (no lookaround or backreferences)',
      );
  });
  return {
    allowOrigins: [
      ...(spec.allowOrigin ?? []).map((value) => ({ kind: 'exact' as const, value })),
      ...(spec.allowOriginRegex ?? []).map((value) => ({ kind: 'regex' as const, value })),
    ],
    allowMethods: spec.allowMethods ?? [],
    allowHeaders: spec.allowHeaders ?? [],
    exposeHeaders: spec.exposeHeaders ?? [],
    ...(spec.maxAge !== undefined ? { maxAge: spec.maxAge } : {}),
    allowCredentials: spec.allowCredentials ?? false,
    disabled,
  };
}

type Share = NonNullable<CsrfSpec['filterEnabled']>;

/** Gloo's CsrfPolicy: an unset filterEnabled is 0% (Gloo's translation, not Envoy's 100%); origins are checked against what Envoy compares them with. */
export function csrf(spec: CsrfSpec, path: FieldPath, report: OptionReport): CsrfIR {
  const fraction = (s: Share): FractionIR => ({
    numerator: s.defaultValue.numerator ?? 0,
    denominator: s.defaultValue.denominator ?? 'HUNDRED',
  });
  const additionalOrigins = (spec.additionalOrigins ?? []).map((o, i): CsrfIR['additionalOrigins'][number] => {
    const at = [...path, 'additionalOrigins', i];
    if (o.safeRegex) {
      const problem = re2Problem(o.safeRegex.regex);
      if (problem)
        report.error(
          [...at, 'safeRegex', 'regex'],
          `RE2 refuses the pattern: ${problem}`,
          'write an RE2 regular expression (no lookaround or backreferences)',
        );
      if (o.ignoreCase)
        report.error(
          [...at, 'ignoreCase'],
          'ignoreCase does not apply to safeRegex: Envoy ignores it there',
          'remove ignoreCase; for a regex that ignores case, start it with (?i)',
        );
      return { kind: 'regex', value: o.safeRegex.regex, ignoreCase: false };
    }
    const kind = o.exact !== undefined ? 'exact' : o.prefix !== undefined ? 'prefix' : 'suffix';
    const value = o[kind]!;
    const ignoreCase = o.ignoreCase ?? false;
    // Envoy compares with the Origin's host and port as a URL parser gives them: no scheme, host in lower case.
    if (kind !== 'suffix' && value.includes('://'))
      report.error(
        [...at, kind],
        `${quote(value)} can never match: Envoy compares additional origins with the host and port of the Origin, without its scheme`,
        `write ${quote(hostOf(value))}`,
      );
    else if (!ignoreCase && value !== value.toLowerCase())
      report.error(
        [...at, kind],
        `${quote(value)} can never match: Envoy compares additional origins with the Origin's host in lower case`,
        `write ${quote(value.toLowerCase())}, or set ignoreCase`,
      );
    return { kind, value, ignoreCase };
  });
  return {
    enabled: spec.filterEnabled ? fraction(spec.filterEnabled) : { numerator: 0, denominator: 'HUNDRED' },
    ...(spec.shadowEnabled ? { shadow: fraction(spec.shadowEnabled) } : {}),
    additionalOrigins,
  };
}

/** The host and port of an origin written as a URL, as Envoy would compare it. */
function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin.slice(origin.indexOf('://') + 3);
  }
}

/** A virtual host's retries, headerManipulation, cors, csrf and local rate limit as IR; `ok: false` after reporting a problem. */
export function virtualHostOptions(
  spec: Pick<
    VirtualHostOptionsSpec,
    | 'retries'
    | 'headerManipulation'
    | 'cors'
    | 'csrf'
    | 'ratelimit'
    | 'includeRequestAttemptCount'
    | 'includeAttemptCountInResponse'
    | 'stats'
  >,
  path: FieldPath,
  origin: Origin,
  diagnostics: Diagnostic[],
  secrets: HeaderSecretLookup,
): {
  ok: boolean;
  retries?: RetriesIR;
  headers?: HeaderManipulationIR;
  cors?: CorsIR;
  csrf?: CsrfIR;
  localRateLimit?: TokenBucketIR;
} & VirtualHostExtrasIR {
  const report = new OptionReport(origin, diagnostics);
  const out = {
    ...(spec.retries ? { retries: retries(spec.retries, [...path, 'retries'], report) } : {}),
    ...(spec.headerManipulation
      ? { headers: headerManipulation(spec.headerManipulation, [...path, 'headerManipulation'], report, secrets) }
      : {}),
    ...(spec.cors ? { cors: cors(spec.cors, [...path, 'cors'], report) } : {}),
    ...(spec.csrf ? { csrf: csrf(spec.csrf, [...path, 'csrf'], report) } : {}),
    ...(spec.ratelimit?.localRatelimit
      ? { localRateLimit: tokenBucket(spec.ratelimit.localRatelimit, [...path, 'ratelimit', 'localRatelimit'], report) }
      : {}),
    ...virtualHostExtras(spec, path, report),
  };
  return { ok: report.ok, ...out };
}

/** What a route's options refer to, resolved by the caller (which records what is used); undefined after reporting why not. */
export interface OptionRefs {
  /** The cluster of an Upstream. */
  upstream(path: FieldPath, ref: Ref): string | undefined;
  /** The AuthConfig a route is checked by. */
  authConfig(path: FieldPath, ref: Ref): ExtauthRefIR | undefined;
  /** A team's own ext_authz server (Gloo's customAuth). */
  customAuth(path: FieldPath, spec: CustomAuthSpec): CustomAuthIR | undefined;
  /** Global rate limits (./rate-limits.ts). */
  rateLimits(path: FieldPath, spec: RateLimitOptionsSpec): { ok: boolean; limits?: RateLimitsIR };
  /** The cluster of a gRPC server's Upstream (HTTP/2). */
  grpcUpstream: GrpcCluster;
  /** A route's own RBAC policies (checked against the virtual host's JWT providers). */
  rbacPolicies(path: FieldPath, spec: RbacPoliciesSpec): RbacPolicyIR[];
  /** The Secret of a headerSecretRef. */
  headerSecret: HeaderSecretLookup;
}

/** The options as IR (undefined: none set); `ok: false` after reporting a problem. */
/** The action a route has, by its Gloo field. */
export type RouteActionField = 'routeAction' | 'graphqlApiRef' | 'redirectAction' | 'directResponseAction';

export function routeOptions(
  spec: RouteOptionsSpec | undefined,
  action: RouteActionField,
  path: FieldPath,
  origin: Origin,
  diagnostics: Diagnostic[],
  refs: OptionRefs,
  hostHasExtauth: boolean,
): { ok: boolean; options?: RouteOptionsIR } {
  const set = (Object.keys(spec ?? {}) as (keyof RouteOptionsSpec)[]).filter((k) => spec![k] !== undefined);
  if (set.length === 0) return { ok: true };
  const report = new OptionReport(origin, diagnostics);
  const forwards = action === 'routeAction';
  // A redirect, direct response or GraphQL route forwards no request of its own.
  const forwarding = set.find((k) => FORWARDING.includes(k));
  if (!forwards && forwarding) {
    report.error(
      [...path, forwarding],
      `${forwarding} applies only to a route with routeAction (it changes the request forwarded to the upstream)`,
      `remove ${forwarding}`,
    );
    return { ok: false };
  }
  const s = spec!;
  const options: RouteOptionsIR = {};
  if (s.prefixRewrite !== undefined) options.prefixRewrite = s.prefixRewrite;
  if (s.regexRewrite !== undefined) {
    if (s.prefixRewrite !== undefined)
      report.error(
        [...path, 'regexRewrite'],
        'regexRewrite and prefixRewrite are both set; Envoy takes one path rewrite',
        'keep one of them',
      );
    const problem = re2Problem(s.regexRewrite.pattern.regex);
    if (problem)
      report.error(
        [...path, 'regexRewrite', 'pattern', 'regex'],
        `RE2 refuses the pattern: ${problem}`,
        'write an RE2 regular expression (no lookaround or backreferences)',
      );
    options.regexRewrite = { pattern: s.regexRewrite.pattern.regex, substitution: s.regexRewrite.substitution };
  }
  if (s.hostRewrite !== undefined) options.hostRewrite = s.hostRewrite;
  if (s.autoHostRewrite !== undefined) options.autoHostRewrite = s.autoHostRewrite;
  Object.assign(options, routeExtras(s, path, report));
  if (s.timeout !== undefined) {
    const timeout = report.duration(
      s.timeout,
      [...path, 'timeout'],
      0n,
      'write a number with a unit, e.g. "15s", "0.250s", "250ms" or "1m30s" ("0s": no timeout)',
    );
    if (timeout !== undefined) options.timeout = timeout;
  }
  if (s.retries !== undefined) options.retries = retries(s.retries, [...path, 'retries'], report);
  if (s.upgrades !== undefined) {
    options.upgrades = s.upgrades.map((u) =>
      u.websocket
        ? { type: 'websocket' as const, enabled: u.websocket.enabled ?? true }
        : { type: 'CONNECT' as const, enabled: u.connect!.enabled ?? true },
    );
  }
  if (s.headerManipulation !== undefined)
    options.headers = headerManipulation(
      s.headerManipulation,
      [...path, 'headerManipulation'],
      report,
      refs.headerSecret,
    );
  if (s.cors !== undefined) {
    // The cors filter acts on the route's request (a preflight is answered before any upstream): not on a redirect or direct response.
    if (action === 'redirectAction' || action === 'directResponseAction')
      report.error(
        [...path, 'cors'],
        'cors applies only to a route with routeAction or graphqlApiRef',
        'remove cors from this route',
      );
    options.cors = cors(s.cors, [...path, 'cors'], report);
  }
  if (s.csrf !== undefined) options.csrf = csrf(s.csrf, [...path, 'csrf'], report);
  if (s.ratelimit?.localRatelimit !== undefined)
    options.localRateLimit = tokenBucket(s.ratelimit.localRatelimit, [...path, 'ratelimit', 'localRatelimit'], report);
  const limits = refs.rateLimits(path, s);
  if (!limits.ok) report.ok = false;
  else if (limits.limits) {
    // Envoy reads global limits from the RouteAction: a redirect or direct response has none.
    if (action === 'redirectAction' || action === 'directResponseAction')
      report.error(
        path,
        'global rate limits apply only to a route with routeAction or graphqlApiRef (Envoy reads them from the route action)',
        'remove the rate limit options from this route, or set them on the virtual host',
      );
    options.rateLimits = limits.limits;
  }
  // disable: false is Gloo's default, so it changes nothing and sets nothing.
  if (s.jwt?.disable) options.jwtDisabled = true;
  if (s.rbac?.disable) options.rbacDisabled = true;
  if (s.rbac?.policies && s.rbac.disable)
    report.error(
      [...path, 'rbac', 'policies'],
      'rbac.disable: true turns RBAC off on the route, so its policies would never be checked',
      'remove the policies, or disable',
    );
  else if (s.rbac?.policies) options.rbacPolicies = refs.rbacPolicies([...path, 'rbac'], s.rbac.policies);
  if (s.extauth?.disable) options.extauth = { disabled: true };
  else if (s.extauth?.configRef) {
    // On a host without extauth, Sluice strips x-user-id from every request it forwards, which would drop the user the sidecar vouched for.
    if (!hostHasExtauth)
      report.error(
        [...path, 'extauth', 'configRef'],
        "a route's extauth configRef overrides its virtual host's, and this virtual host has no extauth",
        'set options.extauth on the virtual host (routes that need none can set extauth: {disable: true})',
      );
    const extauth = refs.authConfig([...path, 'extauth', 'configRef'], s.extauth.configRef);
    if (extauth === undefined) report.ok = false;
    else options.extauth = extauth;
  } else if (s.extauth?.customAuth) {
    const custom = refs.customAuth([...path, 'extauth', 'customAuth'], s.extauth.customAuth);
    if (custom === undefined) report.ok = false;
    else options.extauth = { customAuth: custom };
  }
  if (s.bufferPerRoute) options.buffer = bufferPerRoute(s.bufferPerRoute);
  const extProc = routeExtProc(s, path, origin, refs.grpcUpstream, diagnostics);
  if (!extProc.ok) report.ok = false;
  else if (extProc.extProc) options.extProc = extProc.extProc;
  if (s.faults !== undefined) {
    // Gloo's percentage defaults to 0: the fault is configured but injected into no request.
    const { abort, delay } = s.faults;
    options.faults = {
      ...(abort ? { abort: { percentage: abort.percentage ?? 0, httpStatus: abort.httpStatus } } : {}),
      ...(delay ? { delay: { percentage: delay.percentage ?? 0, fixedDelay: delay.fixedDelay } } : {}),
    };
  }
  if (s.shadowing !== undefined) {
    const cluster = refs.upstream([...path, 'shadowing', 'upstream'], s.shadowing.upstream);
    if (cluster === undefined) report.ok = false;
    else {
      options.shadow = {
        cluster,
        // Gloo's default is 0: nothing mirrored until a percentage is given.
        percentage: s.shadowing.percentage ?? 0,
        disableShadowHostSuffixAppend: s.shadowing.disableShadowHostSuffixAppend ?? false,
        ...(s.shadowing.hostRewriteLiteral !== undefined ? { hostRewrite: s.shadowing.hostRewriteLiteral } : {}),
      };
    }
  }
  if (s.lbHash !== undefined) {
    options.hashPolicies = s.lbHash.hashPolicies.map((h) => {
      const terminal = h.terminal ?? false;
      if (h.header !== undefined) return { kind: 'header' as const, name: h.header, terminal };
      if (h.cookie)
        return {
          kind: 'cookie' as const,
          name: h.cookie.name,
          ...(h.cookie.ttl !== undefined ? { ttl: h.cookie.ttl } : {}),
          ...(h.cookie.path !== undefined ? { path: h.cookie.path } : {}),
          terminal,
        };
      return { kind: 'sourceIp' as const, terminal };
    });
    options.lbHashAt = { origin, path: [...path, 'lbHash'] };
  }
  return report.ok ? { ok: true, options } : { ok: false };
}
