/**
 * Cluster settings beyond the basics: a health check's jitter, edge intervals,
 * event log, HTTP and TCP details; the load balancer's slow start; DNS
 * refresh, host removal and preconnecting.
 */
import type { ClusterFieldsIR, HeaderToAddIR, HealthCheckIR, HttpCheckMoreIR, UpstreamPolicyIR } from '../ir/model.js';
import type { Json } from './output.js';

const MORE_FIELDS: Record<string, string> = {
  initialJitter: 'initial_jitter',
  intervalJitter: 'interval_jitter',
  intervalJitterPercent: 'interval_jitter_percent',
  reuseConnection: 'reuse_connection',
  unhealthyInterval: 'unhealthy_interval',
  unhealthyEdgeInterval: 'unhealthy_edge_interval',
  healthyEdgeInterval: 'healthy_edge_interval',
  alwaysLogHealthCheckFailures: 'always_log_health_check_failures',
};

/** eventLogPath becomes Envoy's file event sink (its own event_log_path field is deprecated for it). */
export function healthCheckMore(more: HealthCheckIR['more']): Json {
  if (!more) return {};
  const { eventLogPath, ...rest } = more;
  return {
    ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [MORE_FIELDS[k]!, v])),
    ...(eventLogPath !== undefined
      ? {
          event_logger: [
            {
              name: 'envoy.health_check.event_sink.file',
              typed_config: {
                '@type':
                  'type.googleapis.com/envoy.extensions.health_check.event_sinks.file.v3.HealthCheckEventFileSink',
                event_log_path: eventLogPath,
              },
            },
          ],
        }
      : {}),
  };
}

/** Envoy's HeaderValueOption list (a check's request headers, a gRPC check's metadata). */
export function headerValueOptions(headers: HeaderToAddIR[]): Json[] {
  return headers.map((h) => ({
    header: { key: h.key, value: h.value },
    append_action: h.append ? 'APPEND_IF_EXISTS_OR_ADD' : 'OVERWRITE_IF_EXISTS_OR_ADD',
  }));
}

export function httpCheckMore(c: HttpCheckMoreIR): Json {
  return {
    ...(c.headersToAdd ? { request_headers_to_add: headerValueOptions(c.headersToAdd) } : {}),
    ...(c.headersToRemove ? { request_headers_to_remove: c.headersToRemove } : {}),
    ...(c.expectedStatuses ? { expected_statuses: c.expectedStatuses } : {}),
    ...(c.http2 ? { codec_client_type: 'HTTP2' } : {}),
    // Gloo matches the service name as a prefix.
    ...(c.serviceName !== undefined ? { service_name_matcher: { prefix: c.serviceName } } : {}),
    ...(c.method !== undefined ? { method: c.method } : {}),
  };
}

/** The Cluster fields Gloo's Upstream sets as they are. */
export function clusterFields(c: ClusterFieldsIR | undefined): Json {
  if (!c) return {};
  return {
    ...(c.ignoreHealthOnHostRemoval !== undefined
      ? { ignore_health_on_host_removal: c.ignoreHealthOnHostRemoval }
      : {}),
    ...(c.respectDnsTtl !== undefined ? { respect_dns_ttl: c.respectDnsTtl } : {}),
    ...(c.dnsRefreshRate !== undefined ? { dns_refresh_rate: c.dnsRefreshRate } : {}),
    ...(c.preconnect
      ? {
          preconnect_policy: {
            ...(c.preconnect.perUpstream !== undefined
              ? { per_upstream_preconnect_ratio: c.preconnect.perUpstream }
              : {}),
            ...(c.preconnect.predictive !== undefined ? { predictive_preconnect_ratio: c.preconnect.predictive } : {}),
          },
        }
      : {}),
  };
}

export function tcpCheckPayloads(c: { send?: string; receive?: string[] }): Json {
  return {
    ...(c.send !== undefined ? { send: { text: c.send } } : {}),
    ...(c.receive ? { receive: c.receive.map((text) => ({ text })) } : {}),
  };
}

/** Envoy's SlowStartConfig; aggression under Gloo's runtime key, so a runtime value replaces it as in Gloo. */
export function slowStartConfig(
  cluster: string,
  s: NonNullable<NonNullable<UpstreamPolicyIR['loadBalancer']>['slowStart']>,
): Json {
  return {
    ...(s.window !== undefined ? { slow_start_window: s.window } : {}),
    ...(s.aggression !== undefined
      ? { aggression: { default_value: s.aggression, runtime_key: `upstream.${cluster}.slowStart.aggression` } }
      : {}),
    ...(s.minWeightPercent !== undefined ? { min_weight_percent: { value: s.minWeightPercent } } : {}),
  };
}
