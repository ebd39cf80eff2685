/** A connection manager's `tracing`: sampling, custom tags and the provider sending spans to the collector's cluster. */
import type { TracingIR } from '../ir/listener-options.js';
import type { Json } from './output.js';

const TRACE = 'type.googleapis.com/envoy.config.trace.v3';

function provider(p: NonNullable<TracingIR['provider']>): Json {
  if (p.kind === 'opentelemetry')
    return {
      name: 'envoy.tracers.opentelemetry',
      typed_config: {
        '@type': `${TRACE}.OpenTelemetryConfig`,
        grpc_service: { envoy_grpc: { cluster_name: p.cluster, ...(p.authority ? { authority: p.authority } : {}) } },
        ...(p.serviceName !== undefined ? { service_name: p.serviceName } : {}),
      },
    };
  if (p.kind === 'datadog')
    return {
      name: 'envoy.tracers.datadog',
      typed_config: {
        '@type': `${TRACE}.DatadogConfig`,
        collector_cluster: p.cluster,
        service_name: p.serviceName,
        ...(p.hostname !== undefined ? { collector_hostname: p.hostname } : {}),
        ...(p.remoteConfig
          ? {
              remote_config:
                p.remoteConfig.pollingInterval !== undefined
                  ? { polling_interval: p.remoteConfig.pollingInterval }
                  : {},
            }
          : {}),
      },
    };
  return {
    name: 'envoy.tracers.zipkin',
    typed_config: {
      '@type': `${TRACE}.ZipkinConfig`,
      collector_cluster: p.cluster,
      collector_endpoint: p.endpoint,
      collector_endpoint_version: p.version,
      ...(p.traceId128bit !== undefined ? { trace_id_128bit: p.traceId128bit } : {}),
      ...(p.sharedSpanContext !== undefined ? { shared_span_context: p.sharedSpanContext } : {}),
    },
  };
}

function tagSource(tag: TracingIR['customTags'][number]): Json {
  if (tag.kind === 'header') return { request_header: { name: tag.name } };
  if (tag.kind === 'literal') return { literal: { value: tag.value } };
  if (tag.kind === 'metadata')
    return {
      metadata: {
        kind: tag.of === 'host' ? { host: {} } : { request: {} },
        metadata_key: { key: tag.namespace, path: tag.path.map((key) => ({ key })) },
        ...(tag.defaultValue !== undefined ? { default_value: tag.defaultValue } : {}),
      },
    };
  return {
    environment: { name: tag.name, ...(tag.defaultValue !== undefined ? { default_value: tag.defaultValue } : {}) },
  };
}

export function tracingConfig(t: TracingIR): Json {
  const percent = (value: number | undefined, key: string) => (value === undefined ? {} : { [key]: { value } });
  return {
    ...percent(t.sampling.client, 'client_sampling'),
    ...percent(t.sampling.random, 'random_sampling'),
    ...percent(t.sampling.overall, 'overall_sampling'),
    ...(t.verbose !== undefined ? { verbose: t.verbose } : {}),
    ...(t.customTags.length > 0
      ? {
          custom_tags: t.customTags.map((tag) => ({ tag: tag.tag, ...tagSource(tag) })),
        }
      : {}),
    ...(t.provider ? { provider: provider(t.provider) } : {}),
  };
}
