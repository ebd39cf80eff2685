/**
 * A Gateway's options.accessLoggingService: each log's sink (a file, the gRPC
 * access log service at an Upstream, an OpenTelemetry collector) and its filter
 * tree, checked where the schema cannot.
 */
import { isIP } from 'node:net';
import { asWarning, fieldError, quote, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { AccessLogFilterIR, AccessLogIR, HeaderMatchIR, OpenTelemetrySinkIR } from '../ir/access-log.js';
import type { AccessLogFilterSpec, AccessLogSpec, ComparisonSpec, HeaderMatcherSpec } from '../kinds/access-log.js';
import type { Resource } from '../validate/validate.js';
import type { FindCluster } from './gateway-tls.js';
import type { UpstreamTlsIR } from '../ir/model.js';
import { re2Problem } from './matchers.js';
import { upstreamTls } from './tls.js';
import { anyValue, keyValueList, type ValueProblem } from './otel-values.js';

/** Gloo names an Upstream's cluster `<name>_<namespace>`; Kubernetes names have no `_`, so the split is unambiguous. */
const GLOO_CLUSTER = /^([a-z0-9][-a-z0-9.]*)_([a-z0-9][-a-z0-9]*)$/;

/**
 * The access logs of `resource` (a Gateway) in its options' `field`:
 * accessLoggingService (the connection manager's and TCP hosts') or
 * listenerAccessLoggingService (the listener's, before a filter chain is
 * chosen). `tcp`: some of them are logged without HTTP headers. Logs in error
 * are reported and left out.
 */
export function accessLogs(
  logs: AccessLogSpec[],
  resource: Resource,
  field: 'accessLoggingService' | 'listenerAccessLoggingService',
  tcp: boolean,
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
): AccessLogIR[] {
  const listener = field === 'listenerAccessLoggingService';
  const gateway = `${resource.namespace}_${resource.name}${listener ? '_listener' : ''}`;
  return logs.flatMap((log, i) => {
    const path = ['spec', 'options', field, 'accessLog', i];
    const error = (at: FieldPath, message: string, hint: string) =>
      diagnostics.push(fieldError('resolve', resource.origin, [...path, ...at], message, hint));
    const sink = logSink(log, i, gateway, resource, path, tcp, findCluster, error, diagnostics);
    const before = diagnostics.length;
    const filter = log.filter ? accessLogFilter(log.filter, ['filter'], error) : undefined;
    if (!sink || diagnostics.length > before) return [];
    return [{ sink, ...(filter ? { filter } : {}) }];
  });
}

type Report = (at: FieldPath, message: string, hint: string) => void;

function logSink(
  log: AccessLogSpec,
  index: number,
  gateway: string,
  resource: Resource,
  path: FieldPath,
  tcp: boolean,
  findCluster: FindCluster,
  error: Report,
  diagnostics: Diagnostic[],
): AccessLogIR['sink'] | undefined {
  if (log.fileSink) {
    const f = log.fileSink;
    if (f.stringFormat !== undefined && f.jsonFormat !== undefined) {
      error(
        ['fileSink', 'jsonFormat'],
        'stringFormat and jsonFormat are both set; a file sink has one format',
        'keep one of them',
      );
      return undefined;
    }
    return {
      kind: 'file',
      path: f.path,
      ...(f.stringFormat !== undefined
        ? { format: { kind: 'text' as const, text: f.stringFormat } }
        : f.jsonFormat !== undefined
          ? { format: { kind: 'json' as const, json: f.jsonFormat } }
          : {}),
    };
  }
  if (log.grpcService) {
    const g = log.grpcService;
    const headers = [
      'additionalRequestHeadersToLog',
      'additionalResponseHeadersToLog',
      'additionalResponseTrailersToLog',
    ] as const;
    const httpOnly = headers.find((h) => g[h]?.length);
    if (tcp && httpOnly) {
      error(
        ['grpcService', httpOnly],
        path[2] === 'listenerAccessLoggingService'
          ? "a listener's access log entries are connections, with no HTTP headers (Envoy's tcp_grpc logger)"
          : "this Gateway proxies TCP connections, whose access log entries have no HTTP headers (Envoy's tcp_grpc logger)",
        `remove ${httpOnly}${path[2] === 'listenerAccessLoggingService' ? ', or log the requests in accessLoggingService' : ', or log TCP hosts from a Gateway of their own'}`,
      );
      return undefined;
    }
    const m = GLOO_CLUSTER.exec(g.staticClusterName);
    if (!m) {
      error(
        ['grpcService', 'staticClusterName'],
        `${quote(g.staticClusterName)} is not a cluster Sluice has: in Gloo it names a cluster of the proxy's bootstrap, and Sluice's bootstrap has none of a user's`,
        'define the access log service as an Upstream and name it as Gloo names its cluster, `<name>_<namespace>` (e.g. access-logger_gloo-system)',
      );
      return undefined;
    }
    const cluster = findCluster(resource, [...path, 'grpcService', 'staticClusterName'], {
      name: m[1]!,
      namespace: m[2]!,
    });
    if (!cluster) return undefined;
    return {
      kind: 'grpc',
      logName: g.logName,
      cluster,
      requestHeaders: g.additionalRequestHeadersToLog ?? [],
      responseHeaders: g.additionalResponseHeadersToLog ?? [],
      responseTrailers: g.additionalResponseTrailersToLog ?? [],
      filterStateObjects: g.filterStateObjectsToLog ?? [],
    };
  }
  return openTelemetrySink(log.openTelemetryService!, index, gateway, resource, path, error, diagnostics);
}

function openTelemetrySink(
  o: NonNullable<AccessLogSpec['openTelemetryService']>,
  index: number,
  gateway: string,
  resource: Resource,
  path: FieldPath,
  error: Report,
  diagnostics: Diagnostic[],
): OpenTelemetrySinkIR | undefined {
  const c = o.collector;
  const address = hostPort(c.endpoint);
  if (!address) {
    error(
      ['openTelemetryService', 'collector', 'endpoint'],
      `${quote(c.endpoint)} is not host:port`,
      'write the collector as host:port, e.g. otel-collector.observability.svc.cluster.local:4317 ([::1]:4317 for an IPv6 address)',
    );
    return undefined;
  }
  const problems: ValueProblem[] = [];
  const body = o.body === undefined ? undefined : anyValue(o.body, ['openTelemetryService', 'body'], problems);
  const attributes =
    o.attributes === undefined
      ? undefined
      : keyValueList(o.attributes, ['openTelemetryService', 'attributes'], problems);
  for (const p of problems)
    error(p.path, p.message, 'write OpenTelemetry\'s proto3 JSON, e.g. {stringValue: "%REQ(:PATH)%"}');
  if (problems.length > 0) return undefined;
  const sslConfigAt = [...path, 'openTelemetryService', 'collector', 'sslConfig'];
  if (c.insecure && c.sslConfig) {
    error(
      ['openTelemetryService', 'collector', 'sslConfig'],
      'insecure: true speaks plain HTTP/2 to the collector, so sslConfig would not be used (Gloo ignores it)',
      'remove insecure to use sslConfig, or remove sslConfig',
    );
    return undefined;
  }
  // sslConfig replaces the default TLS whole, as in Gloo; its checks are an Upstream's (tls.ts).
  const tls = c.insecure ? undefined : c.sslConfig ? upstreamTls(c.sslConfig, resource) : defaultTls(address.host);
  if (tls && !c.sslConfig)
    diagnostics.push(
      asWarning(
        fieldError(
          'resolve',
          resource.origin,
          [...path, 'openTelemetryService', 'collector'],
          "TLS to the collector checks no certificate (as Gloo's): anyone who can answer for its address receives the logs",
          'set insecure: true for a collector on a network you trust, or accept the unchecked TLS',
        ),
      ),
    );
  return {
    kind: 'opentelemetry',
    logName: o.logName,
    cluster: `otel_logs_${gateway}_${index}`,
    host: address.host,
    port: address.port,
    ...(tls ? { tls } : {}),
    ...(c.sslConfig && tls ? { sslConfigAt } : {}),
    ...(c.authority !== undefined ? { authority: c.authority } : {}),
    headers: Object.entries(c.headers ?? {}).map(([key, value]) => ({ key: key.toLowerCase(), value })),
    ...(c.timeout !== undefined ? { timeout: c.timeout } : {}),
    filterStateObjects: o.filterStateObjectsToLog ?? [],
    ...(o.disableBuiltinLabels !== undefined ? { disableBuiltinLabels: o.disableBuiltinLabels } : {}),
    ...(body ? { body } : {}),
    ...(attributes ? { attributes } : {}),
  };
}

/** Gloo's TLS to a collector without sslConfig: SNI the host when it is a name, no certificate check. */
function defaultTls(host: string): UpstreamTlsIR {
  return {
    ...(isIP(host) === 0 ? { sni: host } : {}),
    parameters: {},
    alpnProtocols: [],
    verifySubjectAltNames: [],
    oneWayTls: false,
  };
}

/** `host:port` or `[v6]:port`, as Go's net.SplitHostPort takes it. */
function hostPort(endpoint: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(endpoint);
  if (!m) return undefined;
  const host = m[1] ?? m[2]!;
  const port = Number(m[3]);
  if (port < 1 || port > 65535 || (m[1] !== undefined && isIP(host) !== 6)) return undefined;
  return { host, port };
}

function accessLogFilter(f: AccessLogFilterSpec, path: FieldPath, error: Report): AccessLogFilterIR | undefined {
  if (f.statusCodeFilter) return compared('statusCode', f.statusCodeFilter.comparison);
  if (f.durationFilter) return compared('duration', f.durationFilter.comparison);
  if (f.notHealthCheckFilter) return { kind: 'notHealthCheck' };
  if (f.traceableFilter) return { kind: 'traceable' };
  if (f.runtimeFilter) {
    const r = f.runtimeFilter;
    return {
      kind: 'runtime',
      runtimeKey: r.runtimeKey,
      percent: { numerator: r.percentSampled?.numerator ?? 0, denominator: r.percentSampled?.denominator ?? 'HUNDRED' },
      independent: r.useIndependentRandomness ?? false,
    };
  }
  const logical = f.andFilter
    ? (['and', f.andFilter] as const)
    : f.orFilter
      ? (['or', f.orFilter] as const)
      : undefined;
  if (logical) {
    const [kind, spec] = logical;
    const filters = spec.filters.map((inner, i) =>
      accessLogFilter(inner, [...path, `${kind}Filter`, 'filters', i], error),
    );
    return filters.every(Boolean) ? { kind, filters: filters as AccessLogFilterIR[] } : undefined;
  }
  if (f.headerFilter) {
    const header = headerMatch(f.headerFilter.header, [...path, 'headerFilter', 'header'], error);
    return header ? { kind: 'header', header } : undefined;
  }
  if (f.responseFlagFilter) return { kind: 'responseFlag', flags: f.responseFlagFilter.flags ?? [] };
  const g = f.grpcStatusFilter!;
  return { kind: 'grpcStatus', statuses: g.statuses ?? [], exclude: g.exclude ?? false };
}

function compared(kind: 'statusCode' | 'duration', c: ComparisonSpec): AccessLogFilterIR {
  return { kind, op: c.op ?? 'EQ', value: c.value.defaultValue ?? 0, runtimeKey: c.value.runtimeKey };
}

function headerMatch(h: HeaderMatcherSpec, path: FieldPath, error: Report): HeaderMatchIR | undefined {
  const base = { name: h.name.toLowerCase(), invert: h.invertMatch ?? false };
  if (h.safeRegexMatch) {
    const problem = re2Problem(h.safeRegexMatch.regex);
    if (problem) {
      error(
        [...path, 'safeRegexMatch', 'regex'],
        problem,
        'write an RE2 expression (no lookaround, no backreferences)',
      );
      return undefined;
    }
    return { ...base, match: { kind: 'regex', value: h.safeRegexMatch.regex } };
  }
  if (h.rangeMatch) {
    const unsafe = (['start', 'end'] as const).find((k) => !Number.isSafeInteger(h.rangeMatch![k]));
    if (unsafe) {
      error(
        [...path, 'rangeMatch', unsafe],
        `${unsafe} is beyond ±${Number.MAX_SAFE_INTEGER}, the integers Sluice reads exactly`,
        `use a value from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`,
      );
      return undefined;
    }
    if (h.rangeMatch.start >= h.rangeMatch.end) {
      error(
        [...path, 'rangeMatch'],
        'start is not below end (end is exclusive): no value would match',
        'make end greater than start',
      );
      return undefined;
    }
    return { ...base, match: { kind: 'range', start: h.rangeMatch.start, end: h.rangeMatch.end } };
  }
  if (h.presentMatch !== undefined) return { ...base, match: { kind: 'present', present: h.presentMatch } };
  if (h.exactMatch !== undefined) return { ...base, match: { kind: 'exact', value: h.exactMatch } };
  if (h.prefixMatch !== undefined) return { ...base, match: { kind: 'prefix', value: h.prefixMatch } };
  if (h.suffixMatch !== undefined) return { ...base, match: { kind: 'suffix', value: h.suffixMatch } };
  return base;
}
