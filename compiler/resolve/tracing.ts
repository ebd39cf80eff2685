/** A Gateway's tracing settings: the provider's collector Upstream found (its cluster), the tags and percentages as Envoy takes them. */
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import { JWT_FILTER_NAME } from '../ir/jwt.js';
import type { TracingIR } from '../ir/listener-options.js';
import type { HttpSettingsIR } from '../ir/model.js';
import type { ListenerTracingSpec } from '../kinds/tracing.js';
import type { Resource } from '../validate/validate.js';
import type { FindCluster } from './gateway-tls.js';

/** Metadata keys with an empty field (Envoy refuses the path), and a polling interval of a remote configuration turned off. */
function tracingProblems(spec: ListenerTracingSpec, resource: Resource, path: FieldPath): Diagnostic[] {
  const out: Diagnostic[] = [];
  (spec.metadataForTags ?? []).forEach((m, i) => {
    const delimiter = m.value.nestedFieldDelimiter ?? '.';
    if (m.value.key.split(delimiter).some((field) => field === ''))
      out.push(
        fieldError(
          'resolve',
          resource.origin,
          [...path, 'metadataForTags', i, 'value', 'key'],
          `key ${JSON.stringify(m.value.key)} has an empty field between its "${delimiter}" delimiters, and Envoy refuses an empty metadata path segment`,
          `name each nested field, as in principal${delimiter}sub`,
        ),
      );
  });
  const remote = spec.datadogConfig?.remoteConfig;
  if (remote?.disabled && remote.pollingInterval !== undefined)
    out.push(
      fieldError(
        'resolve',
        resource.origin,
        [...path, 'datadogConfig', 'remoteConfig', 'pollingInterval'],
        'pollingInterval is how often remote configuration is fetched, and disabled: true turns it off',
        'remove pollingInterval, or disabled',
      ),
    );
  return out;
}

/** Gloo's metadata tag: an unset namespace is the JWT filter's, where it writes the verified payload (Gloo's documented default). */
function metadataTag(m: NonNullable<ListenerTracingSpec['metadataForTags']>[number]): TracingIR['customTags'][number] {
  return {
    tag: m.tag,
    kind: 'metadata',
    of: m.kind === 'ENDPOINT' ? 'host' : 'request',
    namespace: m.value.namespace ?? JWT_FILTER_NAME,
    path: m.value.key.split(m.value.nestedFieldDelimiter ?? '.'),
    ...(m.defaultValue !== undefined ? { defaultValue: m.defaultValue } : {}),
  };
}

/** `settings` with the tracing of `spec`, when it is set; a collector that is not found has been reported. */
export function withTracing(
  settings: HttpSettingsIR,
  spec: ListenerTracingSpec | undefined,
  resource: Resource,
  path: FieldPath,
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
): HttpSettingsIR {
  if (!spec) return settings;
  diagnostics.push(...tracingProblems(spec, resource, path));
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
      ...(spec.metadataForTags ?? []).map(metadataTag),
    ],
  };
  const otel = spec.openTelemetryConfig;
  const zipkin = spec.zipkinConfig;
  const datadog = spec.datadogConfig;
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
  } else if (datadog?.collectorUpstreamRef) {
    const at = [...path, 'datadogConfig', 'collectorUpstreamRef'];
    const cluster = findCluster(resource, at, datadog.collectorUpstreamRef);
    const remote = datadog.remoteConfig;
    if (cluster)
      tracing.provider = {
        kind: 'datadog',
        cluster,
        serviceName: datadog.serviceName,
        ...(datadog.collectorHostname !== undefined ? { hostname: datadog.collectorHostname } : {}),
        // Gloo keeps remote configuration on unless disabled (Envoy's default before 1.31).
        remoteConfig: remote?.disabled
          ? false
          : remote?.pollingInterval !== undefined
            ? { pollingInterval: remote.pollingInterval }
            : {},
      };
  }
  return { ...settings, tracing };
}
