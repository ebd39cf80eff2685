/**
 * The Envoy bootstrap for a dynamically configured Envoy: listeners and
 * clusters come over ADS from `sluice serve` (routes and endpoints follow
 * from them), through the HTTP/2 cluster `xds_cluster`. Pure.
 */
import { staticCluster } from '../emit/bootstrap.js';
import { sidecarCluster } from '../translate/clusters.js';
import { ADS_CONFIG_SOURCE, type Json } from '../translate/output.js';

export const XDS_CLUSTER = 'xds_cluster';
/** Node metadata key carrying the listener port this Envoy expects; serve warns when its own differs. */
export const LISTENER_PORT_KEY = 'sluice.listener_port';
/** Node metadata key naming the proxy of a fleet this Envoy is (Gateway proxyNames): Gloo's key, so Gloo's bootstraps work unchanged. */
export const PROXY_ROLE_KEY = 'role';

export interface AdsBootstrapOptions {
  xdsAddress: { host: string; port: number };
  nodeId: string;
  /** `node.cluster`: the service cluster Envoy reports (stats, logs). */
  nodeCluster: string;
  listenerPort?: number;
  /** The proxy of a fleet this Envoy is; absent: gateway-proxy. */
  proxy?: string;
  /** Envoy's admin interface, bound to 127.0.0.1. */
  adminPort: number;
  /** Incremental xDS instead of state of the world. */
  delta: boolean;
}

export function adsBootstrap(o: AdsBootstrapOptions): Json {
  return {
    node: {
      id: o.nodeId,
      cluster: o.nodeCluster,
      ...(o.listenerPort !== undefined || o.proxy !== undefined
        ? { metadata: { ...(o.proxy !== undefined ? { [PROXY_ROLE_KEY]: o.proxy } : {}), ...(o.listenerPort !== undefined ? { [LISTENER_PORT_KEY]: o.listenerPort } : {}) } }
        : {}),
    },
    // Loopback only: the admin interface can change Envoy's state.
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: o.adminPort } } },
    dynamic_resources: {
      ads_config: {
        api_type: o.delta ? 'DELTA_GRPC' : 'GRPC',
        transport_api_version: 'V3',
        grpc_services: [{ envoy_grpc: { cluster_name: XDS_CLUSTER } }],
        set_node_on_first_message_only: true,
      },
      lds_config: ADS_CONFIG_SOURCE,
      cds_config: ADS_CONFIG_SOURCE,
    },
    static_resources: {
      // TCP keepalive: a control plane that vanished without a FIN (node lost) is noticed and reconnected to.
      clusters: [{ ...xdsCluster(o.xdsAddress), upstream_connection_options: { tcp_keepalive: {} } }],
    },
  };
}

/** The control plane's own cluster cannot come over xDS: STATIC or STRICT_DNS, with its address inline. */
function xdsCluster(address: { host: string; port: number }): Json {
  const { cluster, endpoints } = sidecarCluster(XDS_CLUSTER, address, true);
  return staticCluster(cluster, endpoints);
}
