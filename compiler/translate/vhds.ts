/**
 * VHDS (`serve --vhds`): each route configuration is served without its
 * virtual hosts, which go out as resources of their own, so an edit to one
 * host sends that host (a kilobyte) to every Envoy instead of the whole
 * route table (megabytes at 10,000 hosts). Envoy asks for them over delta
 * xDS only.
 *
 * Names follow Envoy's VHDS: a virtual host is `<route configuration>/<its
 * name>`, both as the resource name and as the VirtualHost's own `name`
 * (Envoy subscribes to the route configuration's name as a namespace, and
 * removes a virtual host by the name it was added under). Pure: a mechanical
 * reshaping of a set that verify has passed.
 */
import { ADS_CONFIG_SOURCE, type Json, type XdsSet } from './output.js';

/** The reshaped messages by the message they came from, so an unchanged one stays the same object (the snapshot encoder keys on it). */
export class VhdsMemo {
  readonly routeConfigs = new WeakMap<Json, Json>();
  readonly virtualHosts = new WeakMap<Json, { routeConfig: string; out: Json }>();
}

/** The VirtualHost resource name of virtual host `name` of route configuration `routeConfig`. */
function vhdsName(routeConfig: string, name: string): string {
  return `${routeConfig}/${name}`;
}

export function vhdsSet(set: XdsSet, memo = new VhdsMemo()): XdsSet {
  const routes = new Map<string, Json>();
  const virtualHosts = new Map<string, Json>();
  for (const [name, rc] of set.routes) {
    let split = memo.routeConfigs.get(rc);
    if (!split) {
      const { virtual_hosts: _, ...rest } = rc;
      memo.routeConfigs.set(rc, (split = { ...rest, vhds: { config_source: ADS_CONFIG_SOURCE } }));
    }
    routes.set(name, split);
    for (const vh of (rc.virtual_hosts as Json[] | undefined) ?? []) {
      let renamed = memo.virtualHosts.get(vh);
      if (renamed?.routeConfig !== name)
        memo.virtualHosts.set(
          vh,
          (renamed = { routeConfig: name, out: { ...vh, name: vhdsName(name, vh.name as string) } }),
        );
      virtualHosts.set(renamed.out.name as string, renamed.out);
    }
  }
  return { ...set, routes, virtualHosts };
}
