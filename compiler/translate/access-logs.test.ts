import type { AccessLogIR, OpenTelemetrySinkIR } from '../ir/access-log.js';
import type { GatewayIR, Model } from '../ir/model.js';
import { decodeMessage, encodeMessage } from '../../contract/codec.js';
import { checkMessage } from '../verify/proto-json.js';
import { accessLog, collectorClusters } from './access-logs.js';

const ACCESS_LOG = 'envoy.config.accesslog.v3.AccessLog';
const CLUSTER = 'envoy.config.cluster.v3.Cluster';

const grpc: AccessLogIR = {
  sink: {
    kind: 'grpc',
    logName: 'public',
    cluster: 'access-logger',
    requestHeaders: ['x-tenant'],
    responseHeaders: [],
    responseTrailers: ['grpc-status'],
    filterStateObjects: [],
  },
};

const otel: OpenTelemetrySinkIR = {
  kind: 'opentelemetry',
  logName: 'public',
  cluster: 'otel_logs_gloo-system_public_0',
  host: 'otel.observability',
  port: 4317,
  tls: { sni: 'otel.observability', parameters: {}, alpnProtocols: [], verifySubjectAltNames: [], oneWayTls: false },
  headers: [],
  filterStateObjects: [],
};

test("gRPC on a connection manager: Envoy's HTTP logger with the headers asked for, none of the empty lists", () => {
  const json = accessLog(grpc, 'http');
  expect(json).toEqual({
    name: 'envoy.access_loggers.http_grpc',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.access_loggers.grpc.v3.HttpGrpcAccessLogConfig',
      common_config: {
        log_name: 'public',
        grpc_service: { envoy_grpc: { cluster_name: 'access-logger' } },
        transport_api_version: 'V3',
      },
      additional_request_headers_to_log: ['x-tenant'],
      additional_response_trailers_to_log: ['grpc-status'],
    },
  });
  expect(checkMessage(ACCESS_LOG, json)).toEqual([]);
});

test('gRPC on a tcp_proxy: the TCP logger, which has no headers', () => {
  const json = accessLog(grpc, 'tcp');
  expect(json.name).toBe('envoy.access_loggers.tcp_grpc');
  expect(json.typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.access_loggers.grpc.v3.TcpGrpcAccessLogConfig',
    common_config: {
      log_name: 'public',
      grpc_service: { envoy_grpc: { cluster_name: 'access-logger' } },
      transport_api_version: 'V3',
    },
  });
  expect(checkMessage(ACCESS_LOG, json)).toEqual([]);
});

test("OpenTelemetry: the collector's cluster, metadata and timeout on the gRPC service; body and attributes as given", () => {
  const json = accessLog(
    {
      sink: {
        ...otel,
        authority: 'otel',
        timeout: '2s',
        headers: [{ key: 'x-tenant', value: 'shop' }],
        body: { string_value: '%RESPONSE_CODE%' },
        attributes: { values: [{ key: 'n', value: { int_value: '1' } }] },
        disableBuiltinLabels: false,
      },
    },
    'http',
  );
  expect(json.typed_config).toEqual({
    '@type': 'type.googleapis.com/envoy.extensions.access_loggers.open_telemetry.v3.OpenTelemetryAccessLogConfig',
    common_config: {
      log_name: 'public',
      grpc_service: {
        envoy_grpc: { cluster_name: 'otel_logs_gloo-system_public_0', authority: 'otel' },
        timeout: '2s',
        initial_metadata: [{ key: 'x-tenant', value: 'shop' }],
      },
      transport_api_version: 'V3',
    },
    disable_builtin_labels: false,
    body: { string_value: '%RESPONSE_CODE%' },
    attributes: { values: [{ key: 'n', value: { int_value: '1' } }] },
  });
  expect(checkMessage(ACCESS_LOG, json)).toEqual([]);
});

test("filters: Envoy's AccessLogFilter, nested and/or kept in order, header matchers in Envoy's forms", () => {
  const json = accessLog(
    {
      sink: { kind: 'file', path: '/dev/stdout' },
      filter: {
        kind: 'and',
        filters: [
          { kind: 'notHealthCheck' },
          {
            kind: 'or',
            filters: [
              { kind: 'statusCode', op: 'GE', value: 500, runtimeKey: 'min_status' },
              { kind: 'responseFlag', flags: [] },
              { kind: 'grpcStatus', statuses: ['INTERNAL'], exclude: true },
              { kind: 'header', header: { name: 'x-a', match: { kind: 'prefix', value: 'v' }, invert: false } },
              { kind: 'header', header: { name: 'x-b', match: { kind: 'present', present: false }, invert: true } },
              { kind: 'header', header: { name: 'x-c', invert: false } },
              {
                kind: 'runtime',
                runtimeKey: 'k',
                percent: { numerator: 1, denominator: 'MILLION' },
                independent: false,
              },
            ],
          },
        ],
      },
    },
    'http',
  );
  expect(json.filter).toEqual({
    and_filter: {
      filters: [
        { not_health_check_filter: {} },
        {
          or_filter: {
            filters: [
              {
                status_code_filter: {
                  comparison: { op: 'GE', value: { default_value: 500, runtime_key: 'min_status' } },
                },
              },
              { response_flag_filter: {} },
              { grpc_status_filter: { statuses: ['INTERNAL'], exclude: true } },
              { header_filter: { header: { name: 'x-a', string_match: { prefix: 'v' } } } },
              { header_filter: { header: { name: 'x-b', present_match: false, invert_match: true } } },
              { header_filter: { header: { name: 'x-c' } } },
              { runtime_filter: { runtime_key: 'k', percent_sampled: { numerator: 1, denominator: 'MILLION' } } },
            ],
          },
        },
      ],
    },
  });
  expect(checkMessage(ACCESS_LOG, json)).toEqual([]);
});

function model(logs: AccessLogIR[]): Model {
  const gw = { accessLogs: logs } as GatewayIR;
  return { virtualHosts: [], gateways: [gw], upstreams: [], authConfigs: [], graphqlApis: [] };
}

test("collector clusters: one per OpenTelemetry log, HTTP/2; TLS with the host's name as SNI unless insecure; an address is an EDS cluster", () => {
  const [named, address] = collectorClusters(
    model([
      grpc,
      { sink: otel },
      { sink: { ...otel, cluster: 'otel_logs_gloo-system_public_2', host: '10.0.0.9', tls: undefined, timeout: '1s' } },
    ]),
    new Map(),
  );
  expect(named!.cluster).toMatchObject({
    name: 'otel_logs_gloo-system_public_0',
    type: 'STRICT_DNS',
    transport_socket: { typed_config: { sni: 'otel.observability' } },
  });
  expect(checkMessage(CLUSTER, named!.cluster)).toEqual([]);
  expect(address!.cluster).toMatchObject({
    name: 'otel_logs_gloo-system_public_2',
    type: 'EDS',
    connect_timeout: '1s',
  });
  expect(address!.cluster.transport_socket).toBeUndefined();
  expect(address!.endpoints).toBeDefined();
  expect(collectorClusters(model([grpc]), new Map())).toEqual([]);
});

test("the OpenTelemetry logger's body and attributes go on the wire as OTLP's AnyValue (what Envoy decodes)", () => {
  const body = { kvlist_value: { values: [{ key: 'path', value: { string_value: '%REQ(:PATH)%' } }] } };
  const config = accessLog({ sink: { ...otel, body } }, 'http').typed_config as Record<string, unknown>;
  const { '@type': _type, ...message } = config;
  const type = 'envoy.extensions.access_loggers.open_telemetry.v3.OpenTelemetryAccessLogConfig';
  const decoded = decodeMessage(type, encodeMessage(type, message));
  expect(decoded.body).toEqual(body);
});

test("a collector's sslConfig is an Upstream's transport socket: its Secret's CA by SDS, its SNI, its client certificate", () => {
  const tls = { ...otel.tls!, sni: 'otel.example.com', secret: 'gloo-system/otel-mtls' };
  const secret = { name: 'gloo-system/otel-mtls', certificate: { chain: 'CHAIN', privateKey: 'KEY' }, ca: 'CA' };
  const [cluster] = collectorClusters(model([{ sink: { ...otel, tls } }]), new Map([[secret.name, secret]]));
  expect(cluster!.cluster.transport_socket).toMatchObject({
    typed_config: {
      sni: 'otel.example.com',
      common_tls_context: {
        tls_certificate_sds_secret_configs: [{ name: 'gloo-system/otel-mtls' }],
        validation_context_sds_secret_config: { name: 'gloo-system/otel-mtls/ca.crt' },
      },
    },
  });
  expect(checkMessage(CLUSTER, cluster!.cluster)).toEqual([]);
});
