/**
 * Mesh mode: Sluice's part of an Envoy whose listeners and bootstrap its team
 * owns. From the default gateway's set: its route configuration, renamed to
 * the one the team's connection manager asks RDS for; its clusters (and
 * their endpoints and Secrets); and every Sluice HTTP filter as an ECDS
 * resource, in use or idle, so the filter list the team pasted never changes.
 * Every cluster, Secret and filter name gets the prefix, so nothing clashes
 * with the team's own. No listener. Pure.
 */
import type { ClusterPair } from './clusters.js';
import type { Model, VirtualHostIR } from '../ir/model.js';
import { concernsFor, MESH_CONCERNS } from './concerns.js';
import { listenerName } from './listener.js';
import { emptyXdsSet, type CompileOptions, type Json, type MeshOptions, type XdsSet } from './output.js';

const HCM = 'envoy.filters.network.http_connection_manager';

/** `serve --mesh` without --route-config-name and --name-prefix. */
export const MESH_DEFAULTS: MeshOptions = { routeConfigName: 'sluice-routes', namePrefix: 'sluice-' };

/** The cluster of the team's Envoy that reaches `sluice serve` (sluice bootstrap --mesh prints it). */
export function meshXdsCluster(mesh: MeshOptions): string {
  return `${mesh.namePrefix}xds`;
}

/**
 * Where the team's Envoy gets Sluice's resources: `sluice serve` through its
 * own cluster, one stream per type (not ADS, which the Envoy may already use
 * for its own control plane).
 */
export function meshConfigSource(mesh: MeshOptions): Json {
  return {
    api_config_source: {
      api_type: 'GRPC',
      transport_api_version: 'V3',
      grpc_services: [{ envoy_grpc: { cluster_name: meshXdsCluster(mesh) } }],
    },
    resource_api_version: 'V3',
  };
}

/** Every filter mesh mode serves, in chain order: the concerns that have an idle form, and the rate limit filters. */
export const MESH_FILTERS: readonly string[] = MESH_CONCERNS.map((c) => c.filterName);

/**
 * The virtual hosts that use a filter mesh mode cannot serve, with its name:
 * a filter with no idle form (buffer, GraphQL, a customAuth server's
 * ext_authz, ext_proc) would have to enter the team's filter list when the
 * first host used it, and the per-route settings of a filter missing from
 * the chain do nothing in Envoy.
 */
export function filtersMeshLacks(model: Model): { vh: VirtualHostIR; filterName: string }[] {
  const served = new Set(MESH_FILTERS);
  const lacking = concernsFor(model.virtualHosts, model.rateLimit?.server).filter((c) => !served.has(c.filterName));
  return model.virtualHosts.flatMap((vh) =>
    lacking.filter((c) => c.usedBy(vh)).map((c) => ({ vh, filterName: c.filterName })),
  );
}

/** Renamed messages by the message they came from, so an unchanged one stays the same object from run to run (verify and the snapshot encoder key on it). */
export class MeshMemo {
  readonly renamed = new WeakMap<Json, Json>();
  readonly sidecars = new Map<string, ClusterPair>();
}

export function meshSet(set: XdsSet, options: CompileOptions, mesh: MeshOptions, memo = new MeshMemo()): XdsSet {
  const prefix = mesh.namePrefix;
  const renamer = new Renamer(prefix, new Set(MESH_FILTERS), meshConfigSource(mesh));
  const renamed = (json: Json) => {
    let out = memo.renamed.get(json);
    if (!out) memo.renamed.set(json, (out = renamer.json(json) as Json));
    return out;
  };
  const out = emptyXdsSet();
  const name = listenerName(options.listenerPort);
  const listener = set.listeners.get(name);
  const hcm = ((listener?.filter_chains as Json[] | undefined)?.[0]?.filters as Json[] | undefined)?.find(
    (f) => f.name === HCM,
  )?.typed_config as Json | undefined;
  const inUse = new Map(((hcm?.http_filters as Json[] | undefined) ?? []).map((f) => [f.name as string, f]));

  const clusters = new Map(set.clusters);
  const endpoints = new Map(set.endpoints);
  for (const concern of MESH_CONCERNS) {
    const filter = inUse.get(concern.filterName) ?? concern.idleFilter!();
    // An idle filter may still name its sidecar (ext_authz): the cluster must exist for Envoy to accept it.
    if (!inUse.has(concern.filterName) && concern.sidecarCluster) {
      let pair = memo.sidecars.get(concern.filterName);
      if (!pair) memo.sidecars.set(concern.filterName, (pair = concern.sidecarCluster(options)));
      clusters.set(pair.cluster.name as string, pair.cluster);
      if (pair.endpoints) endpoints.set(pair.cluster.name as string, pair.endpoints);
    }
    const ecdsName = `${prefix}${concern.filterName}`;
    out.extensionConfigs.set(ecdsName, { name: ecdsName, typed_config: renamed(filter.typed_config as Json) });
  }
  const routes = set.routes.get(name);
  if (routes) {
    const virtualHosts = ((routes.virtual_hosts as Json[] | undefined) ?? []).map(renamed);
    out.routes.set(mesh.routeConfigName, {
      ...(renamer.json({ ...routes, virtual_hosts: [] }) as Json),
      name: mesh.routeConfigName,
      virtual_hosts: virtualHosts,
    });
  }
  for (const [key, json] of [...clusters].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    out.clusters.set(`${prefix}${key}`, renamed(json));
  for (const [key, json] of [...endpoints].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    out.endpoints.set(`${prefix}${key}`, renamed(json));
  for (const [key, json] of set.secrets) out.secrets.set(`${prefix}${key}`, renamed(json));
  out.authConfigs = set.authConfigs;
  out.graphqlApis = set.graphqlApis;
  out.rateLimitDomains = set.rateLimitDomains;
  return out;
}

/**
 * Prefixes the names one Envoy resource gives another: clusters (`cluster`,
 * `cluster_name`, weighted clusters, a cluster's own `name`), SDS Secrets
 * (an SdsSecretConfig's `name`, a Secret's own), and the HTTP filter names
 * that key `typed_per_filter_config`; and points the EDS and SDS config
 * sources at `sluice serve` instead of ADS.
 */
class Renamer {
  constructor(
    private readonly prefix: string,
    private readonly filters: ReadonlySet<string>,
    private readonly source: Json,
  ) {}

  json(node: unknown, parentKey = ''): unknown {
    if (Array.isArray(node)) return node.map((item) => this.json(item, parentKey));
    if (!node || typeof node !== 'object') return node;
    const o = node as Json;
    const out: Json = {};
    // A message that is a cluster, a Secret, a weighted cluster or an SdsSecretConfig: its `name` is one of those names.
    const named =
      'connect_timeout' in o ||
      'tls_certificate' in o ||
      'validation_context' in o ||
      'sds_config' in o ||
      parentKey === 'clusters';
    for (const [key, value] of Object.entries(o)) {
      // Labels (subsets' endpoint metadata and metadata_match) are data: a label named `cluster` is no cluster.
      if (key === 'filter_metadata') out[key] = value;
      else if ((key === 'cluster' || key === 'cluster_name') && typeof value === 'string' && value)
        out[key] = this.prefix + value;
      else if ((key === 'eds_config' || key === 'sds_config') && value && typeof value === 'object' && 'ads' in value)
        out[key] = this.source;
      else if (key === 'name' && named && typeof value === 'string') out[key] = this.prefix + value;
      else if (key === 'typed_per_filter_config' && value && typeof value === 'object')
        out[key] = Object.fromEntries(
          Object.entries(value as Json).map(([filter, config]) => [
            this.filters.has(filter) ? this.prefix + filter : filter,
            this.json(config, filter),
          ]),
        );
      else out[key] = this.json(value, key);
    }
    return out;
  }
}
