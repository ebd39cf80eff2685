/** Upstreams and sidecars -> Envoy Cluster messages. */
import type { UpstreamIR } from '../resolve/model.js';
import type { Json } from './output.js';

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

function cluster(name: string, type: 'STRICT_DNS' | 'STATIC', hosts: { address: string; port: number }[], http2: boolean): Json {
  return {
    name,
    type,
    connect_timeout: CONNECT_TIMEOUT,
    load_assignment: { cluster_name: name, endpoints: [{ lb_endpoints: hosts.map((h) => endpoint(h.address, h.port)) }] },
    ...(http2 ? { typed_extension_protocol_options: HTTP2_OPTIONS } : {}),
  };
}

/** STRICT_DNS for cluster services, STATIC for `spec.static` hosts (which must be IP addresses). */
export function upstreamCluster(upstream: UpstreamIR): Json {
  const http2 = upstream.http2 ?? false;
  if (upstream.target.kind === 'dns') return cluster(upstream.name, 'STRICT_DNS', [{ address: upstream.target.host, port: upstream.target.port }], http2);
  const allIps = upstream.target.hosts.every((h) => isIpAddress(h.address));
  return cluster(upstream.name, allIps ? 'STATIC' : 'STRICT_DNS', upstream.target.hosts, http2);
}

/** A sidecar (ext_authz, graphql) reached by DNS name; gRPC sidecars need HTTP/2. */
export function sidecarCluster(name: string, address: { host: string; port: number }, http2: boolean): Json {
  return cluster(name, isIpAddress(address.host) ? 'STATIC' : 'STRICT_DNS', [{ address: address.host, port: address.port }], http2);
}

function isIpAddress(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}
