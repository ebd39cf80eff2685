/**
 * Gloo's Upstream settings that become Envoy Cluster fields: load balancing,
 * circuit breakers, connection settings, outlier detection and health checks.
 * The schema has checked every value's form and bounds, so this only
 * gathers what is set (unset fields keep Envoy's defaults).
 */
import type { ClusterFieldsIR, HeaderToAddIR, HealthCheckIR, UpstreamPolicyIR } from '../ir/model.js';
import type { UpstreamSpec } from '../kinds/upstream.js';

type LoadBalancer = NonNullable<UpstreamPolicyIR['loadBalancer']>;

/** What of an Upstream becomes Cluster settings. */
export type UpstreamPolicySpec = Pick<
  UpstreamSpec,
  | 'loadBalancerConfig'
  | 'circuitBreakers'
  | 'connectionConfig'
  | 'outlierDetection'
  | 'healthChecks'
  | 'protocolSelection'
  | 'initialStreamWindowSize'
  | 'initialConnectionWindowSize'
  | 'maxConcurrentStreams'
  | 'overrideStreamErrorOnInvalidHttpMessage'
  | 'proxyProtocolVersion'
  | 'ignoreHealthOnHostRemoval'
  | 'respectDnsTtl'
  | 'dnsRefreshRate'
  | 'preconnectPolicy'
>;

/** The HTTP/2 settings that are set (resolve's checks refuse them without useHttp2). */
function http2Options(spec: UpstreamPolicySpec): UpstreamPolicyIR['http2'] {
  const out = {
    ...(spec.initialStreamWindowSize !== undefined ? { initialStreamWindowSize: spec.initialStreamWindowSize } : {}),
    ...(spec.initialConnectionWindowSize !== undefined
      ? { initialConnectionWindowSize: spec.initialConnectionWindowSize }
      : {}),
    ...(spec.maxConcurrentStreams !== undefined ? { maxConcurrentStreams: spec.maxConcurrentStreams } : {}),
    ...(spec.overrideStreamErrorOnInvalidHttpMessage !== undefined
      ? { overrideStreamErrorOnInvalidHttpMessage: spec.overrideStreamErrorOnInvalidHttpMessage }
      : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}

const LB_KINDS = ['roundRobin', 'leastRequest', 'random', 'ringHash', 'maglev'] as const;

function loadBalancer(spec: NonNullable<UpstreamPolicySpec['loadBalancerConfig']>): LoadBalancer {
  // Unset: round robin, Envoy's default and Gloo's.
  const kind = LB_KINDS.find((k) => spec[k] !== undefined) ?? 'roundRobin';
  const ring = spec.ringHash?.ringHashConfig;
  const out: LoadBalancer = { kind };
  if (spec.leastRequest?.choiceCount !== undefined) out.choiceCount = spec.leastRequest.choiceCount;
  const slow = (spec.roundRobin ?? spec.leastRequest)?.slowStartConfig;
  if (slow)
    out.slowStart = {
      ...(slow.slowStartWindow !== undefined ? { window: slow.slowStartWindow } : {}),
      ...(slow.aggression !== undefined ? { aggression: slow.aggression } : {}),
      ...(slow.minWeightPercent !== undefined ? { minWeightPercent: slow.minWeightPercent } : {}),
    };
  if (ring?.minimumRingSize !== undefined) out.minimumRingSize = ring.minimumRingSize;
  if (ring?.maximumRingSize !== undefined) out.maximumRingSize = ring.maximumRingSize;
  if (spec.healthyPanicThreshold !== undefined) out.healthyPanicThreshold = spec.healthyPanicThreshold;
  if (spec.updateMergeWindow !== undefined) out.updateMergeWindow = spec.updateMergeWindow;
  if (spec.useHostnameForHashing !== undefined) out.useHostnameForHashing = spec.useHostnameForHashing;
  if (spec.closeConnectionsOnHostSetChange !== undefined)
    out.closeConnectionsOnHostSetChange = spec.closeConnectionsOnHostSetChange;
  return out;
}

const HEALTH_CHECK_MORE = [
  'initialJitter',
  'intervalJitter',
  'intervalJitterPercent',
  'reuseConnection',
  'unhealthyInterval',
  'unhealthyEdgeInterval',
  'healthyEdgeInterval',
  'eventLogPath',
  'alwaysLogHealthCheckFailures',
] as const;

type HeaderOptions = { header: { key: string; value: string }; append?: boolean }[];

/** Gloo's HeaderValueOption list: appended unless append is false. */
const headersToAdd = (options: HeaderOptions): HeaderToAddIR[] =>
  options.map((o) => ({ key: o.header.key, value: o.header.value, append: o.append ?? true }));

function healthCheck(h: NonNullable<UpstreamPolicySpec['healthChecks']>[number]): HealthCheckIR {
  const http = h.httpHealthCheck;
  const grpc = h.grpcHealthCheck;
  const tcp = h.tcpHealthCheck;
  const check: HealthCheckIR['check'] = http
    ? {
        kind: 'http',
        path: http.path,
        ...(http.host !== undefined ? { host: http.host } : {}),
        ...(http.requestHeadersToAdd?.length ? { headersToAdd: headersToAdd(http.requestHeadersToAdd) } : {}),
        ...(http.requestHeadersToRemove?.length ? { headersToRemove: http.requestHeadersToRemove } : {}),
        ...(http.useHttp2 ? { http2: true } : {}),
        ...(http.expectedStatuses?.length ? { expectedStatuses: http.expectedStatuses } : {}),
        ...(http.serviceName !== undefined ? { serviceName: http.serviceName } : {}),
        // METHOD_UNSPECIFIED is Envoy's GET, as unset.
        ...(http.method !== undefined && http.method !== 'METHOD_UNSPECIFIED' ? { method: http.method } : {}),
      }
    : grpc
      ? {
          kind: 'grpc',
          ...(grpc.serviceName !== undefined ? { serviceName: grpc.serviceName } : {}),
          ...(grpc.authority !== undefined ? { authority: grpc.authority } : {}),
          ...(grpc.initialMetadata?.length ? { metadata: headersToAdd(grpc.initialMetadata) } : {}),
        }
      : {
          kind: 'tcp',
          ...(tcp?.send ? { send: tcp.send.text } : {}),
          ...(tcp?.receive?.length ? { receive: tcp.receive.map((p) => p.text) } : {}),
        };
  const more = Object.fromEntries(HEALTH_CHECK_MORE.flatMap((k) => (h[k] !== undefined ? [[k, h[k]!]] : [])));
  return {
    timeout: h.timeout,
    interval: h.interval,
    unhealthyThreshold: h.unhealthyThreshold,
    healthyThreshold: h.healthyThreshold,
    ...(h.noTrafficInterval !== undefined ? { noTrafficInterval: h.noTrafficInterval } : {}),
    ...(Object.keys(more).length > 0 ? { more } : {}),
    ...(h.tlsOptions ? { alpnProtocols: h.tlsOptions.alpnProtocols } : {}),
    check,
  };
}

/** Cluster fields Gloo passes to Envoy as they are. */
function clusterFields(spec: UpstreamPolicySpec): { cluster?: ClusterFieldsIR } {
  const p = spec.preconnectPolicy;
  const preconnect = p && {
    ...(p.perUpstreamPreconnectRatio !== undefined ? { perUpstream: p.perUpstreamPreconnectRatio } : {}),
    ...(p.predictivePreconnectRatio !== undefined ? { predictive: p.predictivePreconnectRatio } : {}),
  };
  const cluster: ClusterFieldsIR = {
    ...(spec.ignoreHealthOnHostRemoval !== undefined
      ? { ignoreHealthOnHostRemoval: spec.ignoreHealthOnHostRemoval }
      : {}),
    ...(spec.respectDnsTtl !== undefined ? { respectDnsTtl: spec.respectDnsTtl } : {}),
    ...(spec.dnsRefreshRate !== undefined ? { dnsRefreshRate: spec.dnsRefreshRate } : {}),
    ...(preconnect ? { preconnect } : {}),
  };
  return Object.keys(cluster).length > 0 ? { cluster } : {};
}

/** The settings as IR; undefined when the Upstream sets none. */
export function upstreamPolicy(spec: UpstreamPolicySpec): UpstreamPolicyIR | undefined {
  const http2 = http2Options(spec);
  const policy: UpstreamPolicyIR = {
    ...(spec.loadBalancerConfig ? { loadBalancer: loadBalancer(spec.loadBalancerConfig) } : {}),
    ...(spec.circuitBreakers ? { circuitBreakers: spec.circuitBreakers } : {}),
    ...(spec.connectionConfig ? { connection: spec.connectionConfig } : {}),
    // Integers and durations under Gloo's names (the refused ones are never set here).
    ...(spec.outlierDetection
      ? { outlierDetection: spec.outlierDetection as Record<string, number | string | boolean> }
      : {}),
    ...(spec.healthChecks ? { healthChecks: spec.healthChecks.map(healthCheck) } : {}),
    ...(spec.protocolSelection === 'USE_DOWNSTREAM_PROTOCOL' ? { downstreamProtocol: true } : {}),
    ...(http2 ? { http2 } : {}),
    ...(spec.proxyProtocolVersion ? { proxyProtocolVersion: spec.proxyProtocolVersion } : {}),
    ...clusterFields(spec),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}
