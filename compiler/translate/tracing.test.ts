import { checkMessage } from '../verify/proto-json.js';
import { tracingConfig } from './tracing.js';

test('nothing but the settings given: no percentages, tags or provider of its own', () => {
  expect(tracingConfig({ sampling: {}, customTags: [] })).toEqual({});
});

test('OpenTelemetry: OTLP over gRPC to the collector cluster; tags keep their order and kinds', () => {
  expect(
    tracingConfig({
      sampling: { random: 0 },
      customTags: [
        { tag: 'tenant', kind: 'header', name: 'x-tenant' },
        { tag: 'pod', kind: 'environment', name: 'POD_NAME' },
      ],
      provider: { kind: 'opentelemetry', cluster: 'otel' },
    }),
  ).toEqual({
    random_sampling: { value: 0 },
    custom_tags: [
      { tag: 'tenant', request_header: { name: 'x-tenant' } },
      { tag: 'pod', environment: { name: 'POD_NAME' } },
    ],
    provider: {
      name: 'envoy.tracers.opentelemetry',
      typed_config: {
        '@type': 'type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig',
        grpc_service: { envoy_grpc: { cluster_name: 'otel' } },
      },
    },
  });
});

test('Zipkin: the collector cluster, path and version', () => {
  expect(
    tracingConfig({
      sampling: {},
      customTags: [],
      provider: {
        kind: 'zipkin',
        cluster: 'zipkin',
        endpoint: '/api/v2/spans',
        version: 'HTTP_PROTO',
        sharedSpanContext: false,
      },
    }).provider,
  ).toEqual({
    name: 'envoy.tracers.zipkin',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.config.trace.v3.ZipkinConfig',
      collector_cluster: 'zipkin',
      collector_endpoint: '/api/v2/spans',
      collector_endpoint_version: 'HTTP_PROTO',
      shared_span_context: false,
    },
  });
});

test("metadata tags: the request's dynamic metadata or the host's, a key path, a default; Envoy's Tracing accepts them", () => {
  const config = tracingConfig({
    sampling: {},
    customTags: [
      {
        tag: 'user',
        kind: 'metadata',
        of: 'request',
        namespace: 'envoy.filters.http.jwt_authn',
        path: ['principal', 'sub'],
      },
      { tag: 'version', kind: 'metadata', of: 'host', namespace: 'envoy.lb', path: ['version'], defaultValue: 'v0' },
    ],
  });
  expect(config.custom_tags).toEqual([
    {
      tag: 'user',
      metadata: {
        kind: { request: {} },
        metadata_key: { key: 'envoy.filters.http.jwt_authn', path: [{ key: 'principal' }, { key: 'sub' }] },
      },
    },
    {
      tag: 'version',
      metadata: {
        kind: { host: {} },
        metadata_key: { key: 'envoy.lb', path: [{ key: 'version' }] },
        default_value: 'v0',
      },
    },
  ]);
  expect(
    checkMessage('envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.Tracing', config),
  ).toEqual([]);
});

test('Datadog: the agent cluster and service; remote configuration on unless turned off, with its polling interval', () => {
  const datadog = (remoteConfig: false | { pollingInterval?: string }) =>
    tracingConfig({
      sampling: {},
      customTags: [],
      provider: { kind: 'datadog', cluster: 'agent', serviceName: 'shop', hostname: 'agent.local', remoteConfig },
    }).provider as { name: string; typed_config: Record<string, unknown> };
  const polled = datadog({ pollingInterval: '30s' });
  expect(polled).toEqual({
    name: 'envoy.tracers.datadog',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.config.trace.v3.DatadogConfig',
      collector_cluster: 'agent',
      service_name: 'shop',
      collector_hostname: 'agent.local',
      remote_config: { polling_interval: '30s' },
    },
  });
  expect(checkMessage('envoy.config.trace.v3.Tracing.Http', polled)).toEqual([]);
  expect(datadog({}).typed_config.remote_config).toEqual({});
  expect(datadog(false).typed_config).not.toHaveProperty('remote_config');
});
