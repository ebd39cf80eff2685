/**
 * Gloo's ListenerTracingSettings (tracing.proto): Envoy's tracing on a
 * Gateway's connection manager, with an OpenTelemetry (OTLP over gRPC),
 * Zipkin or Datadog provider whose collector is an Upstream. resolve finds the Upstream.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import {
  atMostOne,
  boolean,
  exactlyOne,
  object,
  oneOfValues,
  percentage,
  positiveDuration,
  protoEnum,
  singleLine,
} from './schema.js';

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

const datadogConfig = object(
  {
    collectorUpstreamRef: note(resourceRef, 'the Upstream of the Datadog agent (its trace port, 8126 by default)'),
    clusterName: clusterName(),
    serviceName: note(singleLine, 'required (Envoy refuses an empty one): the service of the spans'),
    collectorHostname: note(singleLine, 'the Host of the requests to the agent; unset: the cluster name'),
    remoteConfig: note(
      object({
        pollingInterval: note(positiveDuration, "how often the agent is asked for sampling rules; unset: Envoy's 5s"),
        disabled: note(boolean, 'true: Envoy does not ask the agent for its configuration'),
      }),
      "Datadog's remote configuration; unset: on, as Gloo keeps it (Envoy's default before 1.31)",
    ),
  },
  ['serviceName'],
  exactlyOne('collectorUpstreamRef', 'clusterName'),
);

const tag = singleLine;

// Gloo's TracingTagMetadata: a tag from dynamic metadata (REQUEST) or the endpoint's (ENDPOINT).
const metadataTag = object(
  {
    tag,
    kind: note(
      protoEnum(['REQUEST', 'ENDPOINT']),
      "REQUEST (unset): the request's dynamic metadata, which filters write; ENDPOINT: the metadata of the host the request went to",
    ),
    value: object(
      {
        namespace: note(
          singleLine,
          "the metadata's namespace (a filter's name); unset: envoy.filters.http.jwt_authn, where the JWT filter writes the verified payload",
        ),
        key: note(singleLine, 'the path in the namespace, e.g. principal.sub for the JWT subject'),
        nestedFieldDelimiter: note(singleLine, 'splits key into nested fields; unset: "."'),
      },
      ['key'],
    ),
    defaultValue: note(singleLine, 'the tag when the metadata has no such value; unset: no tag'),
  },
  ['tag', 'value'],
);

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
    datadogConfig,
    openCensusConfig: refused('OpenCensus is deprecated in Envoy and not implemented', 'use openTelemetryConfig'),
    environmentVariablesForTags: Type.Array(
      object(
        { tag, name: note(singleLine, "an environment variable of the Envoy's process"), defaultValue: singleLine },
        ['tag', 'name'],
      ),
    ),
    literalsForTags: Type.Array(object({ tag, value: singleLine }, ['tag', 'value'])),
    metadataForTags: note(Type.Array(metadataTag), "Envoy's metadata custom tags"),
    spawnUpstreamSpan: refused(NO_FIELD),
  },
  [],
  atMostOne('zipkinConfig', 'openTelemetryConfig', 'datadogConfig', 'openCensusConfig'),
);

export type ListenerTracingSpec = Static<typeof listenerTracing>;
