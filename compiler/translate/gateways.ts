/**
 * Gateways -> one listener each: an httpGateway's with a route configuration
 * per filter chain of the virtual hosts it serves, a tcpGateway's with a
 * tcp_proxy chain per TCP host.
 */
import type { CidrIR, GatewayIR, Model, TcpHostIR, TlsSecretIR } from '../ir/model.js';
import { chainHttpFilters, connectionLimitFilter, listenerFieldsJson, routerFilter } from './gateway-filters.js';
import { accessLog } from './access-logs.js';
import {
  networkLocalRateLimitFilter,
  withGatewayLocalRateLimit,
  withListenerLocalRateLimitSettings,
} from './gateway-local-ratelimit.js';
import { connectionManager, listenerAddress } from './listener.js';
import type { Json, XdsSet } from './output.js';
import { metadataMatch, routeConfiguration } from './routes.js';
import { TLS_INSPECTOR, downstreamTransportSocket, handshakeTimeout } from './tls.js';
import { proxyProtocolFilter, tcpProxyFields, withTcpStats } from './listener-extras.js';

/**
 * `virtualHosts`: the output of each of the model's virtual hosts, in its order.
 * Every listener has the default gateway's HTTP filters, and each virtual host
 * its output there (its per-filter config travels with it), so a host behaves
 * the same on any Gateway as on the default one.
 */
export function gatewayListeners(set: XdsSet, model: Model, virtualHosts: Json[], httpFilters: Json[]): void {
  const byName = new Map(model.virtualHosts.map((vh, i) => [vh.name, virtualHosts[i]!]));
  const secrets = new Map((model.secrets ?? []).map((s) => [s.name, s]));
  for (const gw of model.gateways) {
    set.listeners.set(gw.listener, gatewayListener(gw, httpFilters, secrets));
    for (const chain of gw.chains)
      set.routes.set(
        chain.routes,
        routeConfiguration(
          chain.routes,
          chain.virtualHosts.map((name) =>
            withListenerLocalRateLimitSettings(byName.get(name)!, chain.options?.httpLocalRateLimit),
          ),
          gw.routeConfig,
        ),
      );
  }
}

function gatewayListener(gw: GatewayIR, httpFilters: Json[], secrets: ReadonlyMap<string, TlsSecretIR>): Json {
  const sni = gw.chains.some((c) => c.tls) || gw.tcpHosts.some((h) => h.serverNames.length > 0);
  // PROXY protocol first: the TLS handshake follows its header.
  const proxyProtocol = gw.listenerFields?.proxyProtocol;
  const listenerFilters = [
    ...(gw.proxyProtocol || proxyProtocol ? [proxyProtocolFilter(proxyProtocol)] : []),
    ...(sni ? [TLS_INSPECTOR] : []),
  ];
  const socket = gw.listenerFields?.tcpStats ? withTcpStats : (s: Json | undefined) => s;
  const httpChains = gw.chains.map((chain) => ({
    ...chainMatch(chain.tls?.sniDomains ?? [], chain.sourcePrefixRanges ?? []),
    filters: [
      ...(chain.options?.connectionLimit ? [connectionLimitFilter(chain.options.connectionLimit)] : []),
      ...(chain.options?.networkLocalRateLimit
        ? [networkLocalRateLimitFilter(chain.options.networkLocalRateLimit)]
        : []),
      connectionManager(
        gw.listener,
        chainHttpFilters(withGatewayLocalRateLimit(httpFilters, chain.options?.httpLocalRateLimit), chain.options),
        chain.routes,
        chain.http,
        gw.accessLogs,
        routerFilter(chain.options),
      ),
    ],
    ...optionalSocket(
      socket(
        chain.tls
          ? downstreamTransportSocket(chain.tls, chain.tls.secret ? secrets.get(chain.tls.secret) : undefined)
          : undefined,
      ),
    ),
    ...handshakeTimeout(chain.tls),
  }));
  return {
    name: gw.listener,
    address: listenerAddress(gw.address, gw.port),
    ...(listenerFilters.length > 0 ? { listener_filters: listenerFilters } : {}),
    ...listenerFieldsJson(gw.listenerFields),
    // A server-first protocol (the client sends nothing until the server speaks) would otherwise be closed when tls_inspector gives up.
    ...(sni && gw.tcpHosts.some((h) => h.serverNames.length === 0)
      ? { continue_on_listener_filters_timeout: true }
      : {}),
    filter_chains: [...httpChains, ...gw.tcpHosts.map((h) => tcpChain(gw, h, secrets, socket))],
  };
}

const optionalSocket = (socket: Json | undefined) => (socket ? { transport_socket: socket } : {});

/** A filter chain's match: SNI and client address prefixes; nothing to match: none (the chain takes every other connection). */
function chainMatch(serverNames: string[], sources: CidrIR[]): Json {
  const match = {
    ...(serverNames.length > 0 ? { server_names: serverNames } : {}),
    ...(sources.length > 0
      ? { source_prefix_ranges: sources.map((r) => ({ address_prefix: r.address, prefix_len: r.prefixLen })) }
      : {}),
  };
  return Object.keys(match).length > 0 ? { filter_chain_match: match } : {};
}

function tcpChain(
  gw: GatewayIR,
  host: TcpHostIR,
  secrets: ReadonlyMap<string, TlsSecretIR>,
  socket: (s: Json | undefined) => Json | undefined,
): Json {
  return {
    name: host.name,
    ...chainMatch(host.serverNames, host.sourcePrefixRanges ?? []),
    filters: [
      ...(host.options?.connectionLimit ? [connectionLimitFilter(host.options.connectionLimit)] : []),
      ...(host.options?.localRateLimit ? [networkLocalRateLimitFilter(host.options.localRateLimit)] : []),
      {
        name: 'envoy.filters.network.tcp_proxy',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
          stat_prefix: `${gw.listener}-${host.name}`,
          ...('weighted' in host
            ? {
                weighted_clusters: {
                  clusters: host.weighted.map((c) => ({
                    name: c.cluster,
                    weight: c.weight,
                    ...metadataMatch(c.subset),
                  })),
                },
              }
            : { cluster: host.cluster, ...metadataMatch(host.subset) }),
          ...tcpProxyFields(host.options),
          ...(gw.accessLogs.length > 0 ? { access_log: gw.accessLogs.map((log) => accessLog(log, 'tcp')) } : {}),
        },
      },
    ],
    ...optionalSocket(
      socket(
        host.tls
          ? downstreamTransportSocket(host.tls, host.tls.secret ? secrets.get(host.tls.secret) : undefined)
          : undefined,
      ),
    ),
    ...handshakeTimeout(host.tls),
  };
}
