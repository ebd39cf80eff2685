/**
 * Proxy fleets: each Envoy is one proxy of a fleet (a Gateway's
 * `proxyNames`), served only the Gateways that name it, the virtual hosts
 * they serve, and the clusters, endpoints and Secrets those use. Pure.
 */
import type { Model } from '../ir/model.js';
import type { XdsSet } from './output.js';
import { namedClusters, namedSecrets } from './references.js';

/** Every proxy a Gateway names, sorted; none without Gateways (the default gateway serves every Envoy). */
export function proxyNames(model: Model): string[] {
  return [...new Set(model.gateways.flatMap((g) => g.proxyNames))].sort();
}

/** The model one proxy is served: its Gateways and their virtual hosts. */
export function proxyModel(model: Model, proxy: string): Model {
  const gateways = model.gateways.filter((g) => g.proxyNames.includes(proxy));
  const served = new Set(gateways.flatMap((g) => g.virtualHosts));
  return { ...model, gateways, virtualHosts: model.virtualHosts.filter((vh) => served.has(vh.name)) };
}

/** `set` without the clusters, endpoints and Secrets no listener, route configuration or kept cluster names. */
export function withoutUnused(set: XdsSet): XdsSet {
  const clusters = new Set<string>();
  for (const json of [...set.listeners.values(), ...set.routes.values()]) namedClusters(json, clusters);
  const secrets = new Set<string>();
  for (const json of set.listeners.values()) namedSecrets(json, secrets);
  for (const name of clusters) namedSecrets(set.clusters.get(name), secrets);
  const keep = <T>(map: Map<string, T>, names: ReadonlySet<string>) =>
    new Map([...map].filter(([name]) => names.has(name)));
  return {
    ...set,
    clusters: keep(set.clusters, clusters),
    endpoints: keep(set.endpoints, clusters),
    secrets: keep(set.secrets, secrets),
  };
}
