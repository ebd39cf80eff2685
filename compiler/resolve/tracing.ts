/** A Gateway's tracing settings: the provider's collector Upstream found (its cluster), the tags and percentages as Envoy takes them. */
import type { FieldPath } from '../diagnostics.js';
import type { TracingIR } from '../ir/listener-options.js';
import type { HttpSettingsIR } from '../ir/model.js';
import type { ListenerTracingSpec } from '../kinds/tracing.js';
import type { Resource } from '../validate/validate.js';
import type { FindCluster } from './gateway-tls.js';

/** `settings` with the tracing of `spec`, when it is set; a collector that is not found has been reported. */
export function withTracing(
  settings: HttpSettingsIR,
  spec: ListenerTracingSpec | undefined,
  resource: Resource,
  path: FieldPath,
  findCluster: FindCluster,
): HttpSettingsIR {
  if (!spec) return settings;
  const p = spec.tracePercentages;
  const tracing: TracingIR = {
    ...(spec.verbose !== undefined ? { verbose: spec.verbose } : {}),
    sampling: {
      ...(p?.clientSamplePercentage !== undefined ? { client: p.clientSamplePercentage } : {}),
      ...(p?.randomSamplePercentage !== undefined ? { random: p.randomSamplePercentage } : {}),
      ...(p?.overallSamplePercentage !== undefined ? { overall: p.overallSamplePercentage } : {}),
    },
    customTags: [
      ...(spec.requestHeadersForTags ?? []).map((name) => ({ tag: name, kind: 'header' as const, name })),
      ...(spec.environmentVariablesForTags ?? []).map((e) => ({
        tag: e.tag,
        kind: 'environment' as const,
        name: e.name,
        ...(e.defaultValue !== undefined ? { defaultValue: e.defaultValue } : {}),
      })),
      ...(spec.literalsForTags ?? []).map((l) => ({ tag: l.tag, kind: 'literal' as const, value: l.value })),
    ],
  };
  const otel = spec.openTelemetryConfig;
  const zipkin = spec.zipkinConfig;
  if (otel?.collectorUpstreamRef) {
    const at = [...path, 'openTelemetryConfig', 'collectorUpstreamRef'];
    const cluster = findCluster(resource, at, otel.collectorUpstreamRef);
    if (cluster)
      tracing.provider = {
        kind: 'opentelemetry',
        cluster,
        ...(otel.serviceName !== undefined ? { serviceName: otel.serviceName } : {}),
        ...(otel.grpcService?.authority !== undefined ? { authority: otel.grpcService.authority } : {}),
      };
  } else if (zipkin?.collectorUpstreamRef) {
    const at = [...path, 'zipkinConfig', 'collectorUpstreamRef'];
    const cluster = findCluster(resource, at, zipkin.collectorUpstreamRef);
    if (cluster)
      tracing.provider = {
        kind: 'zipkin',
        cluster,
        endpoint: zipkin.collectorEndpoint,
        // Envoy refuses its enum's zero value (deprecated); Gloo's unset means HTTP_JSON.
        version: zipkin.collectorEndpointVersion ?? 'HTTP_JSON',
        ...(zipkin.traceId128bit !== undefined ? { traceId128bit: zipkin.traceId128bit } : {}),
        ...(zipkin.sharedSpanContext !== undefined ? { sharedSpanContext: zipkin.sharedSpanContext } : {}),
      };
  }
  return { ...settings, tracing };
}
