/**
 * The checks Envoy makes when it loads configuration (references, filter
 * order, names), as hooks the proto checker calls on the message types
 * concerned while it walks, so a large route configuration is walked once.
 */
import { isIP } from 'node:net';
import type { Json } from '../translate/output.js';
import type { MessageHook, ProtoIssue } from './proto-json.js';

/** A virtual host's domains lowercased, as Envoy compares them; a non-string entry is undefined (the proto check reports it). */
export function lowercased(vh: Json | undefined): (string | undefined)[] {
  const list = vh && typeof vh === 'object' ? vh.domains : undefined;
  return Array.isArray(list) ? list.map((d) => (typeof d === 'string' ? d.toLowerCase() : undefined)) : [];
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export const T = {
  bootstrap: 'envoy.config.bootstrap.v3.Bootstrap',
  listener: 'envoy.config.listener.v3.Listener',
  route: 'envoy.config.route.v3.RouteConfiguration',
  virtualHost: 'envoy.config.route.v3.VirtualHost',
  cluster: 'envoy.config.cluster.v3.Cluster',
  routeAction: 'envoy.config.route.v3.RouteAction',
  hcm: 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
  grpcService: 'envoy.config.core.v3.GrpcService',
  httpUri: 'envoy.config.core.v3.HttpUri',
  jwtAuthn: 'envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication',
  jwtPerRoute: 'envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig',
  authConfig: 'sluice.extauth.v1.AuthConfig',
  graphqlApi: 'sluice.graphql.v1.GraphQLApi',
  sdsSecretConfig: 'envoy.extensions.transport_sockets.tls.v3.SdsSecretConfig',
} as const;

const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

/** `base.rest`, or `rest` at the top of a resource. */
export function join(base: string, rest: string): string {
  return base ? `${base}.${rest}` : rest;
}

export function nameOf(v: unknown): string {
  const n = v && typeof v === 'object' ? (v as Json).name : undefined;
  return typeof n === 'string' ? n : '?';
}

/** A name used in one resource and defined in another, checked once everything is walked. */
export interface Reference {
  kind: 'cluster' | 'route_config' | 'jwt_requirement' | 'secret';
  name: string;
  path: string;
}

/**
 * Envoy's load-time checks, gathered while the proto checker walks (hooks on
 * the message types concerned, wherever they sit, Anys included) so large
 * route configurations are walked once. Paths are formatted only for failures.
 */
export class LoadChecks {
  readonly found: ProtoIssue[] = [];
  readonly references: Reference[] = [];
  /** Keys of every jwt_authn requirement_map, which per-route requirement_name must name. */
  readonly jwtRequirements = new Set<string>();
  readonly hooks: ReadonlyMap<string, MessageHook>;

  constructor() {
    this.hooks = new Map<string, MessageHook>([
      [T.listener, (v, p) => this.ipAddress(v.address, p, 'address.socket_address.address', 'a listener')],
      [T.cluster, (v, p) => this.cluster(v, p)],
      [T.route, (v, p) => this.routeConfiguration(v, p)],
      [T.routeAction, (v, p) => this.routeAction(v, p)],
      [T.hcm, (v, p) => this.hcm(v, p)],
      [
        T.grpcService,
        (v, p) => this.clusterRef((v.envoy_grpc as Json | undefined)?.cluster_name, p, 'envoy_grpc.cluster_name'),
      ],
      [T.httpUri, (v, p) => this.clusterRef(v.cluster, p, 'cluster')],
      // A listener or cluster waits for an SDS secret it names until it comes: it must be in the output.
      [
        T.sdsSecretConfig,
        (v, p) =>
          typeof v.name === 'string' &&
          v.name !== '' &&
          this.references.push({ kind: 'secret', name: v.name, path: join(p(), 'name') }),
      ],
      [
        T.jwtAuthn,
        (v) => Object.keys((v.requirement_map as Json | undefined) ?? {}).forEach((k) => this.jwtRequirements.add(k)),
      ],
      [
        T.jwtPerRoute,
        (v, p) => {
          // An empty name is reported by its min_len rule.
          if (typeof v.requirement_name === 'string' && v.requirement_name !== '')
            this.references.push({
              kind: 'jwt_requirement',
              name: v.requirement_name,
              path: join(p(), 'requirement_name'),
            });
        },
      ],
    ]);
  }

  /** Envoy binds listeners and admin, and places STATIC endpoints, on IP addresses only (no DNS). */
  ipAddress(address: unknown, path: () => string, field: string, what: string): void {
    const sa = (address as Json | undefined)?.socket_address as Json | undefined;
    if (sa && typeof sa.address === 'string' && !isIP(sa.address)) {
      this.add(join(path(), field), 'envoy.ip_address', `"${sa.address}" is not an IP address; ${what} needs one`);
    }
  }

  private cluster(c: Json, path: () => string): void {
    if (c.type !== undefined && c.type !== 'STATIC' && c.type !== 0) return;
    const endpoints = asArray((c.load_assignment as Json | undefined)?.endpoints);
    endpoints.forEach((e, i) =>
      asArray((e as Json)?.lb_endpoints).forEach((lb, j) =>
        this.ipAddress(
          ((lb as Json)?.endpoint as Json | undefined)?.address,
          path,
          `load_assignment.endpoints[${i}].lb_endpoints[${j}].endpoint.address.socket_address.address`,
          'a STATIC cluster',
        ),
      ),
    );
  }

  private add(path: string, rule: string, message: string): void {
    this.found.push({ path, rule, message });
  }

  private clusterRef(name: unknown, path: () => string, field: string): void {
    if (typeof name === 'string' && name !== '')
      this.references.push({ kind: 'cluster', name, path: join(path(), field) });
  }

  /** Virtual host names and domains across a route configuration; `domainsOf(i)` gives host i's domains lowercased (a caller may keep them). */
  routeConfiguration(
    rc: Json,
    path: () => string,
    domainsOf: (i: number) => readonly (string | undefined)[] = (i) => lowercased((rc.virtual_hosts as Json[])[i]),
  ): void {
    const vhosts = rc.virtual_hosts;
    if (!Array.isArray(vhosts)) return;
    const names = new Set<string>();
    // Envoy lowercases domains and rejects any repeat in one route configuration (`*` included).
    const domains = new Map<string, number>();
    for (let i = 0; i < vhosts.length; i++) {
      const vh = vhosts[i] as Json;
      if (!vh || typeof vh !== 'object') continue;
      const name = vh.name;
      if (typeof name === 'string') {
        if (names.has(name))
          this.add(
            join(path(), `virtual_hosts[${i}].name`),
            'envoy.duplicate_virtual_host',
            `virtual host name "${name}" is used twice in route configuration "${nameOf(rc)}"`,
          );
        names.add(name);
      }
      const list = domainsOf(i);
      for (let j = 0; j < list.length; j++) {
        const d = list[j];
        if (d === undefined) continue;
        const first = domains.get(d);
        if (first !== undefined) {
          this.add(
            join(path(), `virtual_hosts[${i}].domains[${j}]`),
            'envoy.duplicate_domain',
            `domain "${d}" is already served by virtual host "${nameOf(vhosts[first])}" of route configuration "${nameOf(rc)}" (Envoy rejects duplicate domains)`,
          );
        } else {
          domains.set(d, i);
        }
      }
    }
  }

  private routeAction(ra: Json, path: () => string): void {
    this.clusterRef(ra.cluster, path, 'cluster');
    const weighted = (ra.weighted_clusters as Json | undefined)?.clusters;
    if (Array.isArray(weighted))
      weighted.forEach((c, i) => this.clusterRef((c as Json)?.name, path, `weighted_clusters.clusters[${i}].name`));
    const mirrors = ra.request_mirror_policies;
    if (Array.isArray(mirrors))
      mirrors.forEach((m, i) => this.clusterRef((m as Json)?.cluster, path, `request_mirror_policies[${i}].cluster`));
  }

  private hcm(hcm: Json, path: () => string): void {
    const rds = hcm.rds as Json | undefined;
    if (rds && typeof rds.route_config_name === 'string')
      this.references.push({
        kind: 'route_config',
        name: rds.route_config_name,
        path: join(path(), 'rds.route_config_name'),
      });
    const filters = Array.isArray(hcm.http_filters) ? (hcm.http_filters as Json[]) : [];
    if (filters.length === 0) {
      this.add(
        join(path(), 'http_filters'),
        'envoy.http_filters',
        'the HTTP filter chain is empty; it must end with the router filter',
      );
      return;
    }
    filters.forEach((f, i) => {
      const isRouter = (f?.typed_config as Json | undefined)?.['@type'] === ROUTER_TYPE;
      const last = i === filters.length - 1;
      if (isRouter && !last)
        this.add(
          join(path(), `http_filters[${i}]`),
          'envoy.http_filters',
          `the router filter (a terminal filter) must be the last HTTP filter, but ${filters.length - 1 - i} follow it`,
        );
      if (!isRouter && last)
        this.add(
          join(path(), `http_filters[${i}]`),
          'envoy.http_filters',
          `the HTTP filter chain ends with "${nameOf(f)}"; it must end with the router filter`,
        );
    });
  }
}
