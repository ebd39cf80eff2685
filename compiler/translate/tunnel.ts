/**
 * Gloo's httpProxyHostname, built as Gloo builds it from upstream Envoy's
 * parts: the Upstream's hosts are HTTP CONNECT proxies. Its cluster keeps
 * the Upstream's name (routes name it) and sends each connection, with the
 * Upstream's TLS, to a listener on an abstract Unix socket; that listener's
 * tcp_proxy asks the proxies (the cluster `<name>_original`, plain TCP) for
 * a tunnel to the hostname and relays the bytes through it.
 */
import { compareText } from '../order.js';
import type { TlsSecretIR, UpstreamIR } from '../ir/model.js';
import { CONNECT_TIMEOUT, upstreamCluster, upstreamSocket, type ClusterPair } from './clusters.js';
import type { Json, XdsSet } from './output.js';
import { namedClusters } from './references.js';

/** Gloo's names, so a Gloo user finds the same clusters, listener and stats. */
export const tunnelProxyCluster = (upstream: string) => `${upstream}_original`;
export const tunnelListenerName = (upstream: string) => `solo_io_generated_self_listener_${upstream}`;
const pipe = (upstream: string) => ({ pipe: { path: `@/${upstream}` } });

/**
 * An Upstream's clusters: without httpProxyHostname its one cluster; with it
 * the cluster routes send to (one endpoint, the tunnel listener's socket,
 * with the Upstream's transport socket) and the proxies' cluster, which keeps
 * the Upstream's other settings and speaks plain TCP.
 */
export function upstreamClusters(upstream: UpstreamIR, secret: TlsSecretIR | undefined): ClusterPair[] {
  if (!upstream.tunnel) return [upstreamCluster(upstream, secret)];
  const socket = upstreamSocket(upstream, secret);
  const { proxyProtocolVersion: _wrapsTheEntry, ...policy } = upstream.policy ?? {};
  const proxies = upstreamCluster({
    ...upstream,
    name: tunnelProxyCluster(upstream.name),
    tls: undefined,
    tunnel: undefined,
    policy: Object.keys(policy).length > 0 ? policy : undefined,
  });
  const entry = {
    cluster: {
      name: upstream.name,
      type: 'STATIC',
      connect_timeout: CONNECT_TIMEOUT,
      load_assignment: {
        cluster_name: upstream.name,
        endpoints: [{ lb_endpoints: [{ endpoint: { address: pipe(upstream.name) } }] }],
      },
      ...(socket ? { transport_socket: socket } : {}),
    },
  };
  return [entry, proxies];
}

/** The listener that opens the tunnel through the proxies. */
export function tunnelListener(upstream: UpstreamIR): Json {
  const tunnel = upstream.tunnel!;
  return {
    name: tunnelListenerName(upstream.name),
    address: pipe(upstream.name),
    filter_chains: [
      {
        filters: [
          {
            name: 'tcp',
            typed_config: {
              '@type': 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
              stat_prefix: `soloioTcpStats${upstream.name}`,
              cluster: tunnelProxyCluster(upstream.name),
              tunneling_config: {
                hostname: tunnel.hostname,
                ...(tunnel.headers.length > 0
                  ? {
                      headers_to_add: tunnel.headers.map((h) => ({
                        header: { key: h.key, value: h.value },
                        append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
                      })),
                    }
                  : {}),
              },
            },
          },
        ],
      },
    ],
  };
}

/** The tunnel listeners of the Upstreams with httpProxyHostname that the set's routes or listeners send to (a fleet's proxy gets only its own). */
export function tunnelListeners(set: XdsSet, upstreams: readonly UpstreamIR[]): void {
  const tunnels = upstreams.filter((u) => u.tunnel);
  if (tunnels.length === 0) return;
  const used = new Set<string>();
  for (const json of [...set.listeners.values(), ...set.routes.values()]) namedClusters(json, used);
  const added = tunnels.filter((u) => used.has(u.name));
  if (added.length === 0) return;
  for (const u of added) set.listeners.set(tunnelListenerName(u.name), tunnelListener(u));
  set.listeners = new Map([...set.listeners].sort(([a], [b]) => compareText(a, b)));
}
