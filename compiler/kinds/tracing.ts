/**
 * Gloo's ListenerTracingSettings (tracing.proto): Envoy's tracing on a
 * Gateway's connection manager, with an OpenTelemetry (OTLP over gRPC) or
 * Zipkin provider whose collector is an Upstream. resolve finds the Upstream.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import { atMostOne, boolean, exactlyOne, object, oneOfValues, percentage, singleLine } from './schema.js';

const NO_FIELD = 'the Envoy API Sluice is checked against has no such field';
const clusterName = () =>
  refused('cluster names are internal to Sluice', 'name the collector with collectorUpstreamRef');

const zipkinConfig = object(
  {
    collectorUpstreamRef: note(resourceRef, 'the Upstream of the Zipkin collector'),
    clusterName: clusterName(),
    collectorEndpoint: note(singleLine, 'the path spans are posted to, e.g. /api/v2/spans'),
    traceId128bit: boolean,
    sharedSpanContext: note(boolean, 'unset: true'),
    collectorEndpointVersion: note(oneOfValues(['HTTP_JSON', 'HTTP_PROTO']), 'HTTP_JSON (unset) or HTTP_PROTO'),
  },
  ['collectorEndpoint'],
  exactlyOne('collectorUpstreamRef', 'clusterName'),
);

const openTelemetryConfig = object(
  {
    collectorUpstreamRef: note(resourceRef, 'the Upstream of the OTLP collector; it must speak gRPC (HTTP/2)'),
    clusterName: clusterName(),
    serviceName: note(singleLine, "the service.name of the spans; unset: Envoy's unknown_service:envoy"),
    grpcService: object({ authority: note(singleLine, ':authority of the export calls') }),
    maxCacheSize: refused(NO_FIELD),
  },
  [],
  exactlyOne('collectorUpstreamRef', 'clusterName'),
);

const tag = singleLine;

export const listenerTracing = object(
  {
    requestHeadersForTags: note(Type.Array(singleLine), 'each header becomes a tag of its own name'),
    verbose: note(boolean, 'spans for the filters and the upstream call too'),
    tracePercentages: object({
      clientSamplePercentage: note(percentage, 'of requests with x-client-trace-id; unset: 100'),
      randomSamplePercentage: note(percentage, 'of the others; unset: 100'),
      overallSamplePercentage: note(percentage, 'applied after the two; unset: 100'),
    }),
    zipkinConfig,
    openTelemetryConfig,
    datadogConfig: refused(
      'not implemented: Sluice builds OpenTelemetry and Zipkin providers',
      'use openTelemetryConfig',
    ),
    openCensusConfig: refused('OpenCensus is deprecated in Envoy and not implemented', 'use openTelemetryConfig'),
    environmentVariablesForTags: Type.Array(
      object(
        { tag, name: note(singleLine, "an environment variable of the Envoy's process"), defaultValue: singleLine },
        ['tag', 'name'],
      ),
    ),
    literalsForTags: Type.Array(object({ tag, value: singleLine }, ['tag', 'value'])),
    metadataForTags: refused('metadata tags are not implemented yet', 'use literalsForTags or requestHeadersForTags'),
    spawnUpstreamSpan: refused(NO_FIELD),
  },
  [],
  atMostOne('zipkinConfig', 'openTelemetryConfig', 'datadogConfig', 'openCensusConfig'),
);

export type ListenerTracingSpec = Static<typeof listenerTracing>;
