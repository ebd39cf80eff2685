/**
 * The Envoy bootstrap for a dynamically configured Envoy: listeners and
 * clusters come over ADS from `sluice serve` (routes and endpoints follow
 * from them), through the HTTP/2 cluster `xds_cluster`. Pure.
 */
import { staticCluster } from '../compiler/emit/bootstrap.js';
import { sidecarCluster } from '../compiler/translate/clusters.js';
import { MESH_CONCERNS } from '../compiler/translate/concerns.js';
import { meshConfigSource, meshXdsCluster } from '../compiler/translate/mesh.js';
import { ADS_CONFIG_SOURCE, type Json, type MeshOptions } from '../compiler/translate/output.js';

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
        ? {
            metadata: {
              ...(o.proxy !== undefined ? { [PROXY_ROLE_KEY]: o.proxy } : {}),
              ...(o.listenerPort !== undefined ? { [LISTENER_PORT_KEY]: o.listenerPort } : {}),
            },
          }
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
function xdsCluster(address: { host: string; port: number }, name = XDS_CLUSTER): Json {
  const { cluster, endpoints } = sidecarCluster(name, address, true);
  return staticCluster(cluster, endpoints);
}

/** What an Envoy its team already runs needs from Sluice in mesh mode (`sluice serve --mesh`), to paste into its bootstrap. */
export interface MeshPieces {
  /** Under static_resources.clusters: reaches `sluice serve`. */
  cluster: Json;
  /** dynamic_resources.cds_config: Sluice's clusters (an Envoy has one CDS source). */
  cdsConfig: Json;
  /** In the connection manager: the route configuration over RDS. */
  rds: Json;
  /** In the connection manager, before its router: every Sluice HTTP filter over ECDS. */
  httpFilters: Json[];
}

export function meshPieces(xdsAddress: { host: string; port: number }, mesh: MeshOptions): MeshPieces {
  const source = meshConfigSource(mesh);
  return {
    cluster: { ...xdsCluster(xdsAddress, meshXdsCluster(mesh)), upstream_connection_options: { tcp_keepalive: {} } },
    cdsConfig: source,
    rds: { route_config_name: mesh.routeConfigName, config_source: source },
    // No default config: until Sluice's arrives the filter is warming and the listener waits (fail closed).
    httpFilters: MESH_CONCERNS.map((c) => ({
      name: `${mesh.namePrefix}${c.filterName}`,
      config_discovery: { config_source: source, type_urls: [(c.idleFilter!().typed_config as Json)['@type']] },
    })),
  };
}

/** A bootstrap holding the pieces as pasted, with a listener of the team's own, so the pieces are checked as Envoy would load them. */
export function meshExampleBootstrap(pieces: MeshPieces, listenerPort: number): Json {
  return {
    node: { id: 'example', cluster: 'example' },
    dynamic_resources: { cds_config: pieces.cdsConfig },
    static_resources: {
      clusters: [pieces.cluster],
      listeners: [
        {
          name: 'team-listener',
          address: { socket_address: { address: '0.0.0.0', port_value: listenerPort } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type':
                      'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                    stat_prefix: 'team',
                    rds: pieces.rds,
                    http_filters: [
                      ...pieces.httpFilters,
                      {
                        name: 'envoy.filters.http.router',
                        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    },
  };
}
