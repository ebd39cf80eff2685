/** Small xDS sets (the shape the translator emits) and a server on an ephemeral loopback port. */
import { once } from 'node:events';
import { SnapshotCache } from '../../control-plane/cache/cache.js';
import { XdsServer } from '../../control-plane/server/server.js';
import { SnapshotEncoder, type Snapshot } from '../../control-plane/cache/snapshot.js';
import { httpListener } from '../../compiler/translate/listener.js';
import { ADS_CONFIG_SOURCE, emptyXdsSet, type Json, type XdsSet } from '../../compiler/translate/output.js';

export { TYPE_URL } from '../../contract/names.js';

export interface Shape {
  /** virtual host name -> [prefix, cluster] */
  vhosts: Record<string, [string, string]>;
  /** cluster -> IP:port (EDS) or host:port (STRICT_DNS) */
  clusters: Record<string, string>;
  authConfigs?: string[];
  /** listener port, default 8080 */
  port?: number;
}

export function compiled(shape: Shape): XdsSet {
  const set = emptyXdsSet();
  set.routes.set('http-8080', {
    name: 'http-8080',
    virtual_hosts: Object.entries(shape.vhosts).map(([name, [prefix, cluster]]) => ({
      name,
      domains: [`${name}.example`],
      routes: [{ match: { prefix }, route: { cluster } }],
    })),
  });
  const listener = httpListener('0.0.0.0', shape.port ?? 8080, [], 'http-8080');
  set.listeners.set(listener.name as string, listener);
  for (const [name, target] of Object.entries(shape.clusters).sort()) {
    const [host, port] = target.split(':');
    const assignment = {
      cluster_name: name,
      endpoints: [
        { lb_endpoints: [{ endpoint: { address: { socket_address: { address: host, port_value: Number(port) } } } }] },
      ],
    };
    if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
      set.clusters.set(name, { name, type: 'EDS', eds_cluster_config: { eds_config: ADS_CONFIG_SOURCE } });
      set.endpoints.set(name, assignment);
    } else {
      set.clusters.set(name, { name, type: 'STRICT_DNS', load_assignment: assignment });
    }
  }
  for (const name of shape.authConfigs ?? [])
    set.authConfigs.set(name, {
      name,
      configs: [{ ldap: { address: 'ldap://ldap:389', user_dn_template: 'uid=%s,ou=people,dc=example,dc=org' } }],
    });
  return set;
}

export function snapshotOf(shape: Shape): Snapshot {
  return new SnapshotEncoder().build(compiled(shape));
}

export const BASE: Shape = {
  vhosts: { 'default.web': ['/', 'web'] },
  clusters: { web: '10.0.0.1:80', dns: 'svc.default.svc.cluster.local:80' },
  authConfigs: ['default.ldap'],
};

export async function startServer(
  cache = new SnapshotCache(),
): Promise<{ server: XdsServer; cache: SnapshotCache; port: number }> {
  const server = new XdsServer(cache);
  const port = await server.listen('127.0.0.1', 0);
  return { server, cache, port };
}

/** Resolves when the server has handled the next request (and sent whatever it caused) on any stream. */
export function handled(server: XdsServer): Promise<unknown> {
  return once(server, 'request');
}

export function names(resources: Json[]): string[] {
  return resources.map((r) => (r.cluster_name ?? r.name) as string);
}
