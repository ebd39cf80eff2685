/** Gateways -> one listener each, with a route configuration per filter chain of the virtual hosts it serves. */
import type { GatewayIR, Model, TlsSecretIR } from '../ir/model.js';
import { connectionManager, listenerAddress } from './listener.js';
import type { Json, XdsSet } from './output.js';
import { routeConfiguration } from './routes.js';
import { TLS_INSPECTOR, downstreamTransportSocket } from './tls.js';

/** Reads the PROXY protocol header a load balancer puts first (useProxyProto); Envoy then sees the client's address. */
const PROXY_PROTOCOL: Json = {
  name: 'envoy.filters.listener.proxy_protocol',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol' },
};

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
    for (const chain of gw.chains) set.routes.set(chain.routes, routeConfiguration(chain.routes, chain.virtualHosts.map((name) => byName.get(name)!)));
  }
}

function gatewayListener(gw: GatewayIR, httpFilters: Json[], secrets: ReadonlyMap<string, TlsSecretIR>): Json {
  // PROXY protocol first: the TLS handshake follows its header.
  const listenerFilters = [...(gw.proxyProtocol ? [PROXY_PROTOCOL] : []), ...(gw.chains.some((c) => c.tls) ? [TLS_INSPECTOR] : [])];
  return {
    name: gw.listener,
    address: listenerAddress(gw.address, gw.port),
    ...(listenerFilters.length > 0 ? { listener_filters: listenerFilters } : {}),
    filter_chains: gw.chains.map((chain) => ({
      ...(chain.tls && chain.tls.sniDomains.length > 0 ? { filter_chain_match: { server_names: chain.tls.sniDomains } } : {}),
      filters: [connectionManager(gw.listener, httpFilters, chain.routes, gw.http, gw.accessLogs)],
      ...(chain.tls ? { transport_socket: downstreamTransportSocket(chain.tls, secrets.get(chain.tls.secret)!) } : {}),
    })),
  };
}
