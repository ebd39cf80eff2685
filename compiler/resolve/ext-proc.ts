/**
 * Gloo's external processing -> IR: a Gateway's extProcEarly / extProc /
 * extProcLate filters and a virtual host's or route's settings for them,
 * with the checks the schema cannot make (the server's Upstream speaks
 * HTTP/2, durations within Envoy's bounds, RE2 patterns).
 */
import { parseDuration } from '../../contract/proto3-json.js';
import { fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type {
  ExtProcFilterIR,
  ExtProcOverridesIR,
  ExtProcRouteIR,
  ExtProcServiceIR,
  ExtProcSlot,
  HeaderNameMatcherIR,
  ProcessingModeIR,
} from '../ir/ext-proc.js';
import type { GatewayIR, UpstreamIR, VirtualHostIR } from '../ir/model.js';
import type { StringMatcherSpec } from '../kinds/csrf.js';
import type { ExtProcGrpcServiceSpec, ExtProcRouteSettingsSpec, ExtProcSettingsSpec } from '../kinds/ext-proc.js';
import type { Ref } from '../kinds/resource.js';
import { re2Problem } from './matchers.js';
import { OptionReport } from './option-report.js';

/** The Gloo field of each filter. */
export const EXT_PROC_FIELDS: Record<ExtProcSlot, 'extProcEarly' | 'extProc' | 'extProcLate'> = {
  early: 'extProcEarly',
  regular: 'extProc',
  late: 'extProcLate',
};

type Fields = Partial<Record<'extProcEarly' | 'extProc' | 'extProcLate', unknown>>;

/** The cluster of a gRPC server's Upstream; undefined after reporting why not. */
export type GrpcCluster = (path: FieldPath, ref: Ref) => string | undefined;

/** A gRPC server's Upstream must speak HTTP/2: the problem, when it does not. */
export function http2Problem(upstream: UpstreamIR): { message: string; hint: string } | undefined {
  if (upstream.http2) return undefined;
  return {
    message: `Upstream ${upstream.namespace}/${upstream.name} does not speak HTTP/2, which gRPC needs`,
    hint: `set useHttp2: true on Upstream ${upstream.namespace}/${upstream.name}`,
  };
}

const HOUR = 3600n * 1_000_000_000n;

/** OptionReport with ext_proc's own bounds on durations. */
class Report extends OptionReport {
  /** A duration from 0s to an hour (Envoy's bounds on ext_proc's timeouts), or any not negative one when `hour` is false. */
  timeout(value: string | undefined, path: FieldPath, hour = true): string | undefined {
    if (value === undefined) return undefined;
    const nanos = parseDuration(value);
    if (nanos === undefined || nanos < 0n || (hour && nanos > HOUR)) {
      this.error(
        path,
        nanos === undefined
          ? `${quote(value)} is not a duration`
          : `${quote(value)} is outside 0s to ${hour ? '3600s' : 'forever'}`,
        hour ? 'write a duration from "0s" to "3600s", e.g. "0.200s"' : 'write a duration, e.g. "5s"',
      );
      return undefined;
    }
    return value;
  }
  regex(value: string, path: FieldPath): void {
    const problem = re2Problem(value);
    if (problem)
      this.error(
        path,
        `RE2 refuses the pattern: ${problem}`,
        'write an RE2 regular expression (no lookaround or backreferences)',
      );
  }
}

function service(
  spec: ExtProcGrpcServiceSpec,
  path: FieldPath,
  grpc: GrpcCluster,
  r: Report,
): ExtProcServiceIR | undefined {
  const cluster = grpc([...path, 'extProcServerRef'], spec.extProcServerRef);
  if (cluster === undefined) r.ok = false;
  const timeout = r.timeout(spec.timeout, [...path, 'timeout'], false);
  return cluster === undefined
    ? undefined
    : {
        cluster,
        ...(spec.authority !== undefined ? { authority: spec.authority } : {}),
        ...(timeout !== undefined ? { timeout } : {}),
        initialMetadata: (spec.initialMetadata ?? []).map((m) => ({ key: m.key, value: m.value ?? '' })),
      };
}

type OverridesSpec = NonNullable<ExtProcRouteSettingsSpec['overrides']>;

function overrides(spec: Omit<OverridesSpec, 'grpcService'>, svc: ExtProcServiceIR | undefined): ExtProcOverridesIR {
  const untyped = spec.metadataContextNamespaces ?? [];
  const typed = spec.typedMetadataContextNamespaces ?? [];
  return {
    ...(spec.processingMode ? { processingMode: { ...spec.processingMode } as ProcessingModeIR } : {}),
    ...(spec.requestAttributes?.length ? { requestAttributes: spec.requestAttributes } : {}),
    ...(spec.responseAttributes?.length ? { responseAttributes: spec.responseAttributes } : {}),
    ...(svc ? { service: svc } : {}),
    ...(untyped.length || typed.length ? { metadataNamespaces: { untyped, typed } } : {}),
  };
}

function matchers(
  list: StringMatcherSpec[] | undefined,
  path: FieldPath,
  r: Report,
): HeaderNameMatcherIR[] | undefined {
  if (!list) return undefined;
  return list.map((m, i) => {
    if (m.safeRegex) {
      r.regex(m.safeRegex.regex, [...path, i, 'safeRegex', 'regex']);
      return { kind: 'regex' as const, value: m.safeRegex.regex, ignoreCase: false };
    }
    const kind = m.exact !== undefined ? 'exact' : m.prefix !== undefined ? 'prefix' : 'suffix';
    return { kind, value: m[kind]!, ignoreCase: m.ignoreCase ?? false };
  });
}

/** A Gateway's ext_proc filters (httpGateway.options), in Gloo's order early, regular, late. */
export function gatewayExtProc(
  options: Fields,
  path: FieldPath,
  origin: Origin,
  grpc: GrpcCluster,
  diagnostics: Diagnostic[],
): ExtProcFilterIR[] {
  const r = new Report(origin, diagnostics);
  const out: ExtProcFilterIR[] = [];
  for (const [slot, field] of Object.entries(EXT_PROC_FIELDS) as [ExtProcSlot, keyof Fields][]) {
    const spec = options[field] as ExtProcSettingsSpec | undefined;
    if (!spec) continue;
    const at = [...path, field];
    const svc = service(spec.grpcService, [...at, 'grpcService'], grpc, r);
    const messageTimeout = r.timeout(spec.messageTimeout, [...at, 'messageTimeout']);
    const maxMessageTimeout = r.timeout(spec.maxMessageTimeout, [...at, 'maxMessageTimeout']);
    if (
      messageTimeout !== undefined &&
      maxMessageTimeout !== undefined &&
      parseDuration(maxMessageTimeout)! < parseDuration(messageTimeout)!
    )
      r.error(
        [...at, 'maxMessageTimeout'],
        `maxMessageTimeout ${maxMessageTimeout} is below messageTimeout ${messageTimeout}`,
        "make maxMessageTimeout at least messageTimeout (Gloo's rule)",
      );
    const rules = spec.mutationRules;
    if (rules?.allowExpression)
      r.regex(rules.allowExpression.regex, [...at, 'mutationRules', 'allowExpression', 'regex']);
    if (rules?.disallowExpression)
      r.regex(rules.disallowExpression.regex, [...at, 'mutationRules', 'disallowExpression', 'regex']);
    const forward = spec.forwardRules;
    const allowed = matchers(
      forward?.allowedHeaders?.patterns,
      [...at, 'forwardRules', 'allowedHeaders', 'patterns'],
      r,
    );
    const disallowed = matchers(
      forward?.disallowedHeaders?.patterns,
      [...at, 'forwardRules', 'disallowedHeaders', 'patterns'],
      r,
    );
    if (!svc) continue;
    const { allowExpression, disallowExpression, ...flags } = rules ?? {};
    out.push({
      slot,
      ...overrides(spec, undefined),
      service: svc,
      stage: { stage: spec.filterStage.stage ?? 'FaultStage', predicate: spec.filterStage.predicate ?? 'During' },
      ...(spec.failureModeAllow !== undefined ? { failureModeAllow: spec.failureModeAllow } : {}),
      ...(messageTimeout !== undefined ? { messageTimeout } : {}),
      ...(maxMessageTimeout !== undefined ? { maxMessageTimeout } : {}),
      ...(spec.statPrefix !== undefined ? { statPrefix: spec.statPrefix } : {}),
      ...(rules
        ? {
            mutationRules: {
              ...flags,
              ...(allowExpression ? { allowExpression: allowExpression.regex } : {}),
              ...(disallowExpression ? { disallowExpression: disallowExpression.regex } : {}),
            },
          }
        : {}),
      ...(spec.disableClearRouteCache !== undefined ? { disableClearRouteCache: spec.disableClearRouteCache } : {}),
      ...(allowed || disallowed
        ? { forwardRules: { ...(allowed ? { allowed } : {}), ...(disallowed ? { disallowed } : {}) } }
        : {}),
      ...(spec.filterMetadata ? { filterMetadata: spec.filterMetadata } : {}),
      ...(spec.allowModeOverride !== undefined ? { allowModeOverride: spec.allowModeOverride } : {}),
    });
  }
  return out;
}

/** A virtual host's or route's extProc settings; undefined when none is set; `ok: false` after reporting a problem. */
export function routeExtProc(
  options: Fields,
  path: FieldPath,
  origin: Origin,
  grpc: GrpcCluster,
  diagnostics: Diagnostic[],
): { ok: boolean; extProc?: ExtProcRouteIR } {
  const r = new Report(origin, diagnostics);
  const out: ExtProcRouteIR = {};
  for (const [slot, field] of Object.entries(EXT_PROC_FIELDS) as [ExtProcSlot, keyof Fields][]) {
    const spec = options[field] as ExtProcRouteSettingsSpec | undefined;
    if (!spec) continue;
    if (spec.disabled) {
      out[slot] = { disabled: true };
      continue;
    }
    const o = spec.overrides!;
    const svc = o.grpcService
      ? service(o.grpcService, [...path, field, 'overrides', 'grpcService'], grpc, r)
      : undefined;
    out[slot] = { overrides: overrides(o, svc) };
  }
  if (!r.ok) return { ok: false };
  return Object.keys(out).length > 0 ? { ok: true, extProc: out } : { ok: true };
}

/**
 * A virtual host's or route's settings act on a Gateway's filter: every
 * Gateway chain serving the virtual host must have that filter, or the
 * settings would be accepted and do nothing.
 */
export function extProcWithoutFilter(
  virtualHosts: readonly VirtualHostIR[],
  gateways: readonly GatewayIR[],
  diagnostics: Diagnostic[],
): void {
  for (const vh of virtualHosts) {
    const wanted = new Map<ExtProcSlot, string>();
    for (const slot of Object.keys(vh.extProc ?? {}) as ExtProcSlot[]) wanted.set(slot, 'the virtual host');
    for (const route of vh.routes)
      for (const slot of Object.keys(route.options?.extProc ?? {}) as ExtProcSlot[])
        if (!wanted.has(slot)) wanted.set(slot, `route ${route.name}`);
    for (const [slot, where] of wanted) {
      const chains = gateways.flatMap((gw) =>
        gw.chains.filter((c) => c.virtualHosts.includes(vh.name)).map((c) => ({ gw, chain: c })),
      );
      const missing = chains.find(({ chain }) => !chain.options?.extProc?.some((f) => f.slot === slot));
      if (chains.length > 0 && !missing) continue;
      const field = EXT_PROC_FIELDS[slot];
      diagnostics.push(
        fieldError(
          'resolve',
          vh.origin,
          ['spec', 'virtualHost'],
          `${field} of ${where} sets an ext_proc filter that ${
            missing
              ? `Gateway ${missing.gw.name.replace('.', '/')}, which serves it, does not have`
              : 'no Gateway serving it has (the default gateway has none)'
          }`,
          `set httpGateway.options.${field} on ${missing ? `Gateway ${missing.gw.name.replace('.', '/')}` : 'the Gateway that serves it'}, or remove ${field}`,
        ),
      );
    }
  }
}
