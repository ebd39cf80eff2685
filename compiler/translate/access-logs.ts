/**
 * A Gateway's access logs as Envoy's AccessLog: a file, the gRPC access log
 * service, or OpenTelemetry (OTLP logs) through a cluster made for the
 * collector; each with its AccessLogFilter.
 */
import type { AccessLogFilterIR, AccessLogIR, HeaderMatchIR, OpenTelemetrySinkIR } from '../ir/access-log.js';
import type { Model, TlsSecretIR } from '../ir/model.js';
import { sidecarCluster, type ClusterPair } from './clusters.js';
import type { Json } from './output.js';
import { upstreamTransportSocket } from './tls.js';

const LOGGERS = 'type.googleapis.com/envoy.extensions.access_loggers';

/** `protocol`: the connection manager's logs (HTTP) or a tcp_proxy's (TCP: the gRPC logger without headers). */
export function accessLog(log: AccessLogIR, protocol: 'http' | 'tcp'): Json {
  return { ...sink(log.sink, protocol), ...(log.filter ? { filter: filterJson(log.filter) } : {}) };
}

function sink(s: AccessLogIR['sink'], protocol: 'http' | 'tcp'): Json {
  if (s.kind === 'file') {
    const format =
      s.format?.kind === 'text'
        ? { log_format: { text_format_source: { inline_string: s.format.text } } }
        : s.format?.kind === 'json'
          ? { log_format: { json_format: s.format.json } }
          : {};
    return {
      name: 'envoy.access_loggers.file',
      typed_config: { '@type': `${LOGGERS}.file.v3.FileAccessLog`, path: s.path, ...format },
    };
  }
  if (s.kind === 'grpc') {
    const common = commonConfig(s.logName, { envoy_grpc: { cluster_name: s.cluster } }, s.filterStateObjects);
    if (protocol === 'tcp')
      return {
        name: 'envoy.access_loggers.tcp_grpc',
        typed_config: { '@type': `${LOGGERS}.grpc.v3.TcpGrpcAccessLogConfig`, common_config: common },
      };
    const list = (values: string[], key: string) => (values.length > 0 ? { [key]: values } : {});
    return {
      name: 'envoy.access_loggers.http_grpc',
      typed_config: {
        '@type': `${LOGGERS}.grpc.v3.HttpGrpcAccessLogConfig`,
        common_config: common,
        ...list(s.requestHeaders, 'additional_request_headers_to_log'),
        ...list(s.responseHeaders, 'additional_response_headers_to_log'),
        ...list(s.responseTrailers, 'additional_response_trailers_to_log'),
      },
    };
  }
  return {
    name: 'envoy.access_loggers.open_telemetry',
    typed_config: {
      '@type': `${LOGGERS}.open_telemetry.v3.OpenTelemetryAccessLogConfig`,
      common_config: commonConfig(
        s.logName,
        {
          envoy_grpc: { cluster_name: s.cluster, ...(s.authority !== undefined ? { authority: s.authority } : {}) },
          ...(s.timeout !== undefined ? { timeout: s.timeout } : {}),
          ...(s.headers.length > 0 ? { initial_metadata: s.headers } : {}),
        },
        s.filterStateObjects,
      ),
      ...(s.disableBuiltinLabels !== undefined ? { disable_builtin_labels: s.disableBuiltinLabels } : {}),
      ...(s.body ? { body: s.body } : {}),
      ...(s.attributes ? { attributes: s.attributes } : {}),
    },
  };
}

function commonConfig(logName: string, grpcService: Json, filterStateObjects: string[]): Json {
  return {
    log_name: logName,
    grpc_service: grpcService,
    transport_api_version: 'V3',
    ...(filterStateObjects.length > 0 ? { filter_state_objects_to_log: filterStateObjects } : {}),
  };
}

function filterJson(f: AccessLogFilterIR): Json {
  switch (f.kind) {
    case 'statusCode':
    case 'duration':
      return {
        [`${f.kind === 'statusCode' ? 'status_code' : 'duration'}_filter`]: {
          comparison: { op: f.op, value: { default_value: f.value, runtime_key: f.runtimeKey } },
        },
      };
    case 'notHealthCheck':
      return { not_health_check_filter: {} };
    case 'traceable':
      return { traceable_filter: {} };
    case 'runtime':
      return {
        runtime_filter: {
          runtime_key: f.runtimeKey,
          percent_sampled: f.percent,
          ...(f.independent ? { use_independent_randomness: true } : {}),
        },
      };
    case 'and':
    case 'or':
      return { [`${f.kind}_filter`]: { filters: f.filters.map(filterJson) } };
    case 'header':
      return { header_filter: { header: headerMatcher(f.header) } };
    case 'responseFlag':
      return { response_flag_filter: f.flags.length > 0 ? { flags: f.flags } : {} };
    case 'grpcStatus':
      return {
        grpc_status_filter: {
          ...(f.statuses.length > 0 ? { statuses: f.statuses } : {}),
          ...(f.exclude ? { exclude: true } : {}),
        },
      };
  }
}

function headerMatcher(h: HeaderMatchIR): Json {
  const m = h.match;
  const match =
    m === undefined
      ? {}
      : m.kind === 'range'
        ? { range_match: { start: m.start, end: m.end } }
        : m.kind === 'present'
          ? { present_match: m.present }
          : { string_match: m.kind === 'regex' ? { safe_regex: { regex: m.value } } : { [m.kind]: m.value } };
  return { name: h.name, ...match, ...(h.invert ? { invert_match: true } : {}) };
}

/** The clusters of the Gateways' OpenTelemetry collectors: HTTP/2, with their TLS (an Upstream's transport socket) unless insecure. `secrets`: by name. */
export function collectorClusters(model: Model, secrets: ReadonlyMap<string, TlsSecretIR>): ClusterPair[] {
  return model.gateways.flatMap((gw) =>
    [...gw.accessLogs, ...(gw.listenerFields?.accessLogs ?? [])].flatMap((log) =>
      log.sink.kind === 'opentelemetry' ? [collectorCluster(log.sink, secrets)] : [],
    ),
  );
}

function collectorCluster(s: OpenTelemetrySinkIR, secrets: ReadonlyMap<string, TlsSecretIR>): ClusterPair {
  const pair = sidecarCluster(s.cluster, { host: s.host, port: s.port }, true);
  const tls = s.tls ? upstreamTransportSocket(s.tls, s.tls.secret ? secrets.get(s.tls.secret) : undefined) : undefined;
  return {
    ...pair,
    cluster: {
      ...pair.cluster,
      ...(s.timeout !== undefined ? { connect_timeout: s.timeout } : {}),
      ...(tls ? { transport_socket: tls } : {}),
    },
  };
}
