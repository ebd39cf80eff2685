/**
 * Upstreams and sidecars -> Envoy Cluster messages. Clusters on IP addresses
 * (static hosts, a Service's pod endpoints) are EDS clusters whose
 * ClusterLoadAssignment is served on its own, so an endpoint change is an
 * EDS push that does not re-warm the cluster; DNS clusters (STRICT_DNS)
 * carry their assignment, since Envoy resolves them itself.
 */
import {
  clusterFields,
  headerValueOptions,
  healthCheckMore,
  httpCheckMore,
  slowStartConfig,
  tcpCheckPayloads,
} from './cluster-extras.js';
import type {
  EndpointSetIR,
  FailoverIR,
  HostIR,
  HealthCheckIR,
  SubsetsIR,
  TlsSecretIR,
  UpstreamIR,
  UpstreamPolicyIR,
} from '../ir/model.js';
import { isIpAddress, resolvesByDns } from '../ir/cluster-type.js';
import { ADS_CONFIG_SOURCE, type Json } from './output.js';
import { upstreamTransportSocket } from './tls.js';
import { protocolOptions, withProxyProtocol } from './upstream-protocol.js';

export const CONNECT_TIMEOUT = '5s';

function endpoint(address: string, port: number): Json {
  return { endpoint: { address: { socket_address: { address, port_value: port } } } };
}

/** A static host or failover endpoint: its address, where health checks reach it, its weight. */
function hostEndpoint(h: HostIR): Json {
  const e = endpoint(h.address, h.port);
  const check = h.healthCheck;
  return {
    endpoint: {
      ...(e.endpoint as Json),
      ...(check
        ? {
            health_check_config: {
              ...(check.port !== undefined ? { port_value: check.port } : {}),
              ...(check.hostname !== undefined ? { hostname: check.hostname } : {}),
            },
          }
        : {}),
    },
    ...(h.weight !== undefined ? { load_balancing_weight: h.weight } : {}),
  };
}

/** The hosts at priority 0, then Gloo's failover localities at 1, 2, ... */
function staticEndpoints(hosts: HostIR[], failover: FailoverIR | undefined): Json[] {
  const primary = { lb_endpoints: hosts.map(hostEndpoint) };
  if (!failover) return [primary];
  return [
    primary,
    ...failover.priorities.flatMap((localities, i) =>
      localities.map((l) => ({
        ...(l.locality ? { locality: localityOf(l.locality) } : {}),
        lb_endpoints: l.hosts.map(hostEndpoint),
        priority: i + 1,
      })),
    ),
  ];
}

function localityOf(l: { region?: string; zone?: string; subZone?: string }): Json {
  return {
    ...(l.region ? { region: l.region } : {}),
    ...(l.zone ? { zone: l.zone } : {}),
    ...(l.subZone ? { sub_zone: l.subZone } : {}),
  };
}

/** A cluster, and the load assignment served apart from it (EDS clusters only). */
export interface ClusterPair {
  cluster: Json;
  endpoints?: Json;
}

function cluster(
  name: string,
  type: 'STRICT_DNS' | 'EDS',
  hosts: HostIR[],
  protocol: Json | undefined,
  transportSocket?: Json,
  failover?: FailoverIR,
): ClusterPair {
  const assignment = {
    cluster_name: name,
    endpoints: staticEndpoints(hosts, failover),
    ...(failover?.overprovisioningFactor !== undefined
      ? { policy: { overprovisioning_factor: failover.overprovisioningFactor } }
      : {}),
  };
  const speech = {
    ...(protocol ? { typed_extension_protocol_options: protocol } : {}),
    ...(transportSocket ? { transport_socket: transportSocket } : {}),
  };
  if (type === 'STRICT_DNS')
    return { cluster: { name, type, connect_timeout: CONNECT_TIMEOUT, load_assignment: assignment, ...speech } };
  return {
    cluster: {
      name,
      type,
      connect_timeout: CONNECT_TIMEOUT,
      ...speech,
      eds_cluster_config: { eds_config: ADS_CONFIG_SOURCE },
    },
    endpoints: assignment,
  };
}

/**
 * STRICT_DNS for a DNS name, EDS for `spec.static` hosts that are all IP
 * addresses, EDS without an assignment for a Service whose endpoints are
 * known (the assignment is the Model's endpoint set: loadAssignment).
 * `secret`: the one its sslConfig names.
 */
export function upstreamCluster(upstream: UpstreamIR, secret?: TlsSecretIR): ClusterPair {
  const protocol = protocolOptions(upstream.http2 ?? false, upstream.policy);
  const socket = upstreamSocket(upstream, secret);
  const { target } = upstream;
  let pair: ClusterPair;
  if (target.kind === 'service') {
    pair = { cluster: cluster(upstream.name, 'EDS', [], protocol, socket).cluster };
    if (upstream.subsets) pair.cluster = { ...pair.cluster, lb_subset_config: subsetConfig(upstream.subsets) };
  } else {
    const hosts = target.kind === 'dns' ? [{ address: target.host, port: target.port }] : target.hosts;
    pair = cluster(
      upstream.name,
      resolvesByDns(upstream) ? 'STRICT_DNS' : 'EDS',
      hosts,
      protocol,
      socket,
      upstream.failover,
    );
  }
  // The aws_lambda filter acts only on a cluster with this metadata: Lambda's endpoint.
  if (upstream.lambda) pair = { ...pair, cluster: { ...pair.cluster, metadata: LAMBDA_METADATA } };
  return upstream.policy ? { ...pair, cluster: withPolicy(pair.cluster, upstream.policy) } : pair;
}

const LAMBDA_METADATA: Json = { filter_metadata: { 'com.amazonaws.lambda': { egress_gateway: true } } };

/** The Upstream's transport socket: its TLS, in the PROXY protocol socket with proxyProtocolVersion; none for plain TCP. */
export function upstreamSocket(upstream: UpstreamIR, secret: TlsSecretIR | undefined): Json | undefined {
  const tls = upstream.tls ? upstreamTransportSocket(upstream.tls, secret) : undefined;
  const proxyProtocol = upstream.policy?.proxyProtocolVersion;
  return proxyProtocol ? withProxyProtocol(proxyProtocol, tls) : tls;
}

/** Envoy's subset load balancer, as Gloo configures it from a subsetSpec: the fallback always written, since Envoy's default (NO_FALLBACK) is not Gloo's (ANY_ENDPOINT). */
function subsetConfig(subsets: SubsetsIR): Json {
  return {
    fallback_policy: subsets.fallbackPolicy ?? 'ANY_ENDPOINT',
    ...(subsets.defaultSubset ? { default_subset: subsets.defaultSubset } : {}),
    subset_selectors: subsets.selectors.map((s) => ({
      keys: s.keys,
      ...(s.singleHostPerSubset ? { single_host_per_subset: true } : {}),
    })),
  };
}

/** Endpoint metadata and route metadata_match both carry labels under this filter name, which the subset load balancer reads. */
export const LB_METADATA = 'envoy.lb';

/**
 * A Service's ClusterLoadAssignment: one locality per zone, terminating
 * endpoints that still serve as DRAINING (Envoy sends them no new requests
 * while others are healthy, and lets their connections finish), and with
 * subsets each endpoint's labels.
 */
export function loadAssignment(set: EndpointSetIR): Json {
  return {
    cluster_name: set.cluster,
    endpoints: set.zones.map(({ zone, endpoints }) => ({
      ...(zone ? { locality: { zone } } : {}),
      lb_endpoints: endpoints.map((e) => ({
        ...endpoint(e.address, e.port),
        ...(e.draining ? { health_status: 'DRAINING' } : {}),
        ...(e.labels ? { metadata: { filter_metadata: { [LB_METADATA]: e.labels } } } : {}),
      })),
    })),
  };
}

const LB_POLICY = {
  roundRobin: 'ROUND_ROBIN',
  leastRequest: 'LEAST_REQUEST',
  random: 'RANDOM',
  ringHash: 'RING_HASH',
  maglev: 'MAGLEV',
} as const;

/** Gloo's OutlierDetection names -> Envoy's (the same fields, snake_case with the digits apart). */
const OUTLIER_FIELDS: Record<string, string> = {
  consecutive5xx: 'consecutive_5xx',
  interval: 'interval',
  baseEjectionTime: 'base_ejection_time',
  maxEjectionPercent: 'max_ejection_percent',
  enforcingConsecutive5xx: 'enforcing_consecutive_5xx',
  enforcingSuccessRate: 'enforcing_success_rate',
  successRateMinimumHosts: 'success_rate_minimum_hosts',
  successRateRequestVolume: 'success_rate_request_volume',
  successRateStdevFactor: 'success_rate_stdev_factor',
  consecutiveGatewayFailure: 'consecutive_gateway_failure',
  enforcingConsecutiveGatewayFailure: 'enforcing_consecutive_gateway_failure',
  splitExternalLocalOriginErrors: 'split_external_local_origin_errors',
  consecutiveLocalOriginFailure: 'consecutive_local_origin_failure',
  enforcingConsecutiveLocalOriginFailure: 'enforcing_consecutive_local_origin_failure',
  enforcingLocalOriginSuccessRate: 'enforcing_local_origin_success_rate',
};

/** Envoy's TCP keepalive takes whole seconds; a shorter duration is one second. */
function seconds(duration: string): number {
  return Math.max(1, Math.ceil(Number(duration.slice(0, -1))));
}

function healthCheck(h: HealthCheckIR): Json {
  const check =
    h.check.kind === 'http'
      ? {
          http_health_check: {
            path: h.check.path,
            ...(h.check.host !== undefined ? { host: h.check.host } : {}),
            ...httpCheckMore(h.check),
          },
        }
      : h.check.kind === 'grpc'
        ? {
            grpc_health_check: {
              ...(h.check.serviceName !== undefined ? { service_name: h.check.serviceName } : {}),
              ...(h.check.authority !== undefined ? { authority: h.check.authority } : {}),
              ...(h.check.metadata ? { initial_metadata: headerValueOptions(h.check.metadata) } : {}),
            },
          }
        : // No payload: the check is that a connection opens.
          { tcp_health_check: tcpCheckPayloads(h.check) };
  return {
    timeout: h.timeout,
    interval: h.interval,
    unhealthy_threshold: h.unhealthyThreshold,
    healthy_threshold: h.healthyThreshold,
    ...(h.noTrafficInterval !== undefined ? { no_traffic_interval: h.noTrafficInterval } : {}),
    ...healthCheckMore(h.more),
    ...(h.alpnProtocols ? { tls_options: { alpn_protocols: h.alpnProtocols } } : {}),
    ...check,
  };
}

/** The Upstream's settings as Cluster fields (envoy.config.cluster.v3.Cluster). */
function withPolicy(cluster: Json, p: UpstreamPolicyIR): Json {
  const out: Json = { ...cluster };
  const lb = p.loadBalancer;
  if (lb) {
    out.lb_policy = LB_POLICY[lb.kind];
    const slowStart = lb.slowStart ? { slow_start_config: slowStartConfig(out.name as string, lb.slowStart) } : {};
    if (lb.choiceCount !== undefined || (lb.kind === 'leastRequest' && lb.slowStart))
      out.least_request_lb_config = {
        ...(lb.choiceCount !== undefined ? { choice_count: lb.choiceCount } : {}),
        ...slowStart,
      };
    if (lb.kind === 'roundRobin' && lb.slowStart) out.round_robin_lb_config = slowStart;
    if (lb.minimumRingSize !== undefined || lb.maximumRingSize !== undefined) {
      out.ring_hash_lb_config = {
        ...(lb.minimumRingSize !== undefined ? { minimum_ring_size: lb.minimumRingSize } : {}),
        ...(lb.maximumRingSize !== undefined ? { maximum_ring_size: lb.maximumRingSize } : {}),
      };
    }
    const common = {
      ...(lb.healthyPanicThreshold !== undefined
        ? { healthy_panic_threshold: { value: lb.healthyPanicThreshold } }
        : {}),
      ...(lb.updateMergeWindow !== undefined ? { update_merge_window: lb.updateMergeWindow } : {}),
      ...(lb.closeConnectionsOnHostSetChange !== undefined
        ? { close_connections_on_host_set_change: lb.closeConnectionsOnHostSetChange }
        : {}),
      ...(lb.useHostnameForHashing !== undefined
        ? { consistent_hashing_lb_config: { use_hostname_for_hashing: lb.useHostnameForHashing } }
        : {}),
    };
    if (Object.keys(common).length > 0) out.common_lb_config = common;
  }
  if (p.circuitBreakers) {
    const c = p.circuitBreakers;
    out.circuit_breakers = {
      thresholds: [
        {
          ...(c.maxConnections !== undefined ? { max_connections: c.maxConnections } : {}),
          ...(c.maxPendingRequests !== undefined ? { max_pending_requests: c.maxPendingRequests } : {}),
          ...(c.maxRequests !== undefined ? { max_requests: c.maxRequests } : {}),
          ...(c.maxRetries !== undefined ? { max_retries: c.maxRetries } : {}),
          ...(c.trackRemaining !== undefined ? { track_remaining: c.trackRemaining } : {}),
        },
      ],
    };
  }
  const conn = p.connection;
  if (conn) {
    if (conn.connectTimeout !== undefined) out.connect_timeout = conn.connectTimeout;
    if (conn.perConnectionBufferLimitBytes !== undefined)
      out.per_connection_buffer_limit_bytes = conn.perConnectionBufferLimitBytes;
    const k = conn.tcpKeepalive;
    if (k) {
      out.upstream_connection_options = {
        tcp_keepalive: {
          ...(k.keepaliveProbes !== undefined ? { keepalive_probes: k.keepaliveProbes } : {}),
          ...(k.keepaliveTime !== undefined ? { keepalive_time: seconds(k.keepaliveTime) } : {}),
          ...(k.keepaliveInterval !== undefined ? { keepalive_interval: seconds(k.keepaliveInterval) } : {}),
        },
      };
    }
  }
  if (p.outlierDetection)
    out.outlier_detection = Object.fromEntries(
      Object.entries(p.outlierDetection).map(([k, v]) => [OUTLIER_FIELDS[k]!, v]),
    );
  if (p.healthChecks) out.health_checks = p.healthChecks.map(healthCheck);
  return { ...out, ...clusterFields(p.cluster) };
}

/** A sidecar (ext_authz, graphql) reached by DNS name; gRPC sidecars need HTTP/2. */
export function sidecarCluster(name: string, address: { host: string; port: number }, http2: boolean): ClusterPair {
  return cluster(
    name,
    isIpAddress(address.host) ? 'EDS' : 'STRICT_DNS',
    [{ address: address.host, port: address.port }],
    protocolOptions(http2, undefined),
  );
}
