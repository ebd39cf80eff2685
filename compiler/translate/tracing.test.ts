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
