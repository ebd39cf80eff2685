/** Gateways -> one listener each, with a route configuration of the virtual hosts it serves. */
import type { Model } from '../ir/model.js';
import { httpListener } from './listener.js';
import type { Json, XdsSet } from './output.js';
import { routeConfiguration } from './routes.js';

/**
 * `virtualHosts`: the output of each of the model's virtual hosts, in its order.
 * Every listener has the default gateway's HTTP filters, and each virtual host
 * its output there (its per-filter config travels with it), so a host behaves
 * the same on any Gateway as on the default one.
 */
export function gatewayListeners(set: XdsSet, model: Model, virtualHosts: Json[], httpFilters: Json[]): void {
  const byName = new Map(model.virtualHosts.map((vh, i) => [vh.name, virtualHosts[i]!]));
  for (const gw of model.gateways) {
    const routes = `${gw.listener}-routes`;
    set.listeners.set(gw.listener, httpListener(gw.address, gw.port, httpFilters, routes, gw.listener));
    set.routes.set(routes, routeConfiguration(routes, gw.virtualHosts.map((name) => byName.get(name)!)));
  }
}
