/** Small compiled outputs (the shape the translator emits) and a server on an ephemeral loopback port. */
import { once } from 'node:events';
import { SnapshotCache } from '../../compiler/xds/cache.js';
import { toXdsResources } from '../../compiler/xds/resources.js';
import { XdsServer } from '../../compiler/xds/server.js';
import { buildSnapshot, type Snapshot } from '../../compiler/xds/snapshot.js';
import { httpListener } from '../../compiler/translate/listener.js';
import type { CompiledOutput, Json } from '../../compiler/translate/output.js';

export { TYPE_URL } from '../../protos/contract.js';

export interface Shape {
  /** virtual host name -> [prefix, cluster] */
  vhosts: Record<string, [string, string]>;
  /** cluster -> IP:port (STATIC) or host:port (STRICT_DNS) */
  clusters: Record<string, string>;
  authConfigs?: string[];
  /** listener port, default 8080 */
  port?: number;
}

export function compiled(shape: Shape): CompiledOutput {
  const routeConfig: Json = {
    name: 'http-8080',
    virtual_hosts: Object.entries(shape.vhosts).map(([name, [prefix, cluster]]) => ({
      name,
      domains: [`${name}.example`],
      routes: [{ match: { prefix }, route: { cluster } }],
    })),
  };
  const listener = httpListener('0.0.0.0', shape.port ?? 8080, [], routeConfig);
  const clusters = Object.entries(shape.clusters)
    .sort()
    .map(([name, target]) => {
      const [host, port] = target.split(':');
      const isIp = /^\d+\.\d+\.\d+\.\d+$/.test(host);
      return {
        name,
        type: isIp ? 'STATIC' : 'STRICT_DNS',
        load_assignment: {
          cluster_name: name,
          endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: host, port_value: Number(port) } } } }] }],
        },
      };
    });
  const authConfigs = (shape.authConfigs ?? []).map((name) => ({
    name,
    configs: [{ ldap: { address: 'ldap://ldap:389', user_dn_template: 'uid=%s,ou=people,dc=example,dc=org' } }],
  }));
  return { listeners: [listener], routes: [routeConfig], clusters, authConfigs, graphqlApis: [] };
}

export function snapshotOf(shape: Shape): Snapshot {
  return buildSnapshot(toXdsResources(compiled(shape)));
}

export const BASE: Shape = {
  vhosts: { 'default.web': ['/', 'web'] },
  clusters: { web: '10.0.0.1:80', dns: 'svc.default.svc.cluster.local:80' },
  authConfigs: ['default.ldap'],
};

export async function startServer(cache = new SnapshotCache()): Promise<{ server: XdsServer; cache: SnapshotCache; port: number }> {
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
