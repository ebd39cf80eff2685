/**
 * Upstreams and sidecars -> Envoy Cluster messages. Clusters on IP addresses
 * are EDS clusters whose ClusterLoadAssignment is served on its own, so an
 * endpoint change is an EDS push that does not re-warm the cluster; DNS
 * clusters (STRICT_DNS) carry their assignment, since Envoy resolves them itself.
 */
import type { TlsSecretIR, UpstreamIR } from '../ir/model.js';
import { ADS_CONFIG_SOURCE, type Json } from './output.js';
import { upstreamTransportSocket } from './tls.js';

export const CONNECT_TIMEOUT = '5s';

const HTTP2_OPTIONS: Json = {
  'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
    '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
    explicit_http_config: { http2_protocol_options: {} },
  },
};

function endpoint(address: string, port: number): Json {
  return { endpoint: { address: { socket_address: { address, port_value: port } } } };
}

/** A cluster, and the load assignment served apart from it (EDS clusters only). */
export interface ClusterPair {
  cluster: Json;
  endpoints?: Json;
}

function cluster(name: string, type: 'STRICT_DNS' | 'EDS', hosts: { address: string; port: number }[], http2: boolean, transportSocket?: Json): ClusterPair {
  const assignment = { cluster_name: name, endpoints: [{ lb_endpoints: hosts.map((h) => endpoint(h.address, h.port)) }] };
  const protocol = { ...(http2 ? { typed_extension_protocol_options: HTTP2_OPTIONS } : {}), ...(transportSocket ? { transport_socket: transportSocket } : {}) };
  if (type === 'STRICT_DNS') return { cluster: { name, type, connect_timeout: CONNECT_TIMEOUT, load_assignment: assignment, ...protocol } };
  return { cluster: { name, type, connect_timeout: CONNECT_TIMEOUT, ...protocol, eds_cluster_config: { eds_config: ADS_CONFIG_SOURCE } }, endpoints: assignment };
}

/** STRICT_DNS for cluster services, EDS for `spec.static` hosts that are all IP addresses. `secret`: the one its sslConfig names. */
export function upstreamCluster(upstream: UpstreamIR, secret?: TlsSecretIR): ClusterPair {
  const http2 = upstream.http2 ?? false;
  const tls = upstream.tls ? upstreamTransportSocket(upstream.tls, secret) : undefined;
  if (upstream.target.kind === 'dns') return cluster(upstream.name, 'STRICT_DNS', [{ address: upstream.target.host, port: upstream.target.port }], http2, tls);
  const allIps = upstream.target.hosts.every((h) => isIpAddress(h.address));
  return cluster(upstream.name, allIps ? 'EDS' : 'STRICT_DNS', upstream.target.hosts, http2, tls);
}

/** A sidecar (ext_authz, graphql) reached by DNS name; gRPC sidecars need HTTP/2. */
export function sidecarCluster(name: string, address: { host: string; port: number }, http2: boolean): ClusterPair {
  return cluster(name, isIpAddress(address.host) ? 'EDS' : 'STRICT_DNS', [{ address: address.host, port: address.port }], http2);
}

function isIpAddress(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}
