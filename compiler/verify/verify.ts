/**
 * The last stage: every emitted message against Envoy's own API protos
 * (proto3 JSON shape, every nested Any, protoc-gen-validate rules) and against
 * the checks Envoy makes when it loads configuration. Input errors were all
 * reported by earlier stages, so anything found here is a compiler bug.
 */
import { isIP } from 'node:net';
import type { Diagnostic } from '../diagnostics.js';
import type { CompiledOutput, Json } from '../translate/output.js';
import { checkMessage, type MessageHook, type ProtoIssue } from './proto-json.js';

const T = {
  bootstrap: 'envoy.config.bootstrap.v3.Bootstrap',
  listener: 'envoy.config.listener.v3.Listener',
  route: 'envoy.config.route.v3.RouteConfiguration',
  cluster: 'envoy.config.cluster.v3.Cluster',
  routeAction: 'envoy.config.route.v3.RouteAction',
  hcm: 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
  grpcService: 'envoy.config.core.v3.GrpcService',
  httpUri: 'envoy.config.core.v3.HttpUri',
  jwtAuthn: 'envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication',
  jwtPerRoute: 'envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig',
  authConfig: 'sluice.extauth.v1.AuthConfig',
  graphqlApi: 'sluice.graphql.v1.GraphQLApi',
} as const;

const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

function bug(resource: string, field: string, message: string, rule: string): Diagnostic {
  return {
    stage: 'verify',
    resource,
    field: field || undefined,
    message: `internal compiler error: ${message} (${rule}); the generated Envoy configuration is invalid, this is a bug in sluice, please report it`,
  };
}

/** `base.rest`, or `rest` at the top of a resource. */
function join(base: string, rest: string): string {
  return base ? `${base}.${rest}` : rest;
}

function nameOf(v: unknown): string {
  const n = v && typeof v === 'object' ? (v as Json).name : undefined;
  return typeof n === 'string' ? n : '?';
}

/** A name used in one resource and defined in another, checked once everything is walked. */
interface Reference {
  kind: 'route_config' | 'jwt_requirement';
  name: string;
  path: string;
  resource?: string;
}

/**
 * Envoy's load-time checks, gathered while the proto checker walks (hooks on
 * the message types concerned, wherever they sit, Anys included) so large
 * route configurations are walked once. Paths are formatted only for failures.
 */
class LoadChecks {
  readonly found: ProtoIssue[] = [];
  readonly references: Reference[] = [];
  /** Keys of every jwt_authn requirement_map, which per-route requirement_name must name. */
  readonly jwtRequirements = new Set<string>();
  readonly hooks: ReadonlyMap<string, MessageHook>;

  constructor(private readonly clusters: ReadonlySet<string>) {
    this.hooks = new Map<string, MessageHook>([
      [T.listener, (v, p) => this.ipAddress(v.address, p, 'address.socket_address.address', 'a listener')],
      [T.cluster, (v, p) => this.cluster(v, p)],
      [T.route, (v, p) => this.routeConfiguration(v, p)],
      [T.routeAction, (v, p) => this.routeAction(v, p)],
      [T.hcm, (v, p) => this.hcm(v, p)],
      [T.grpcService, (v, p) => this.clusterRef((v.envoy_grpc as Json | undefined)?.cluster_name, p, 'envoy_grpc.cluster_name')],
      [T.httpUri, (v, p) => this.clusterRef(v.cluster, p, 'cluster')],
      [T.jwtAuthn, (v) => Object.keys((v.requirement_map as Json | undefined) ?? {}).forEach((k) => this.jwtRequirements.add(k))],
      [
        T.jwtPerRoute,
        (v, p) => {
          // An empty name is reported by its min_len rule.
          if (typeof v.requirement_name === 'string' && v.requirement_name !== '') this.references.push({ kind: 'jwt_requirement', name: v.requirement_name, path: join(p(), 'requirement_name') });
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
        this.ipAddress(((lb as Json)?.endpoint as Json | undefined)?.address, path, `load_assignment.endpoints[${i}].lb_endpoints[${j}].endpoint.address.socket_address.address`, 'a STATIC cluster'),
      ),
    );
  }

  private add(path: string, rule: string, message: string): void {
    this.found.push({ path, rule, message });
  }

  private clusterRef(name: unknown, path: () => string, field: string): void {
    if (typeof name === 'string' && name !== '' && !this.clusters.has(name)) {
      this.add(join(path(), field), 'envoy.unknown_cluster', `cluster "${name}" is not defined`);
    }
  }

  private routeConfiguration(rc: Json, path: () => string): void {
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
        if (names.has(name)) this.add(join(path(), `virtual_hosts[${i}].name`), 'envoy.duplicate_virtual_host', `virtual host name "${name}" is used twice in route configuration "${nameOf(rc)}"`);
        names.add(name);
      }
      const list = vh.domains;
      if (!Array.isArray(list)) continue;
      for (let j = 0; j < list.length; j++) {
        if (typeof list[j] !== 'string') continue;
        const d = (list[j] as string).toLowerCase();
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
    if (Array.isArray(weighted)) weighted.forEach((c, i) => this.clusterRef((c as Json)?.name, path, `weighted_clusters.clusters[${i}].name`));
    const mirrors = ra.request_mirror_policies;
    if (Array.isArray(mirrors)) mirrors.forEach((m, i) => this.clusterRef((m as Json)?.cluster, path, `request_mirror_policies[${i}].cluster`));
  }

  private hcm(hcm: Json, path: () => string): void {
    const rds = hcm.rds as Json | undefined;
    if (rds && typeof rds.route_config_name === 'string') this.references.push({ kind: 'route_config', name: rds.route_config_name, path: join(path(), 'rds.route_config_name') });
    const filters = Array.isArray(hcm.http_filters) ? (hcm.http_filters as Json[]) : [];
    if (filters.length === 0) {
      this.add(join(path(), 'http_filters'), 'envoy.http_filters', 'the HTTP filter chain is empty; it must end with the router filter');
      return;
    }
    filters.forEach((f, i) => {
      const isRouter = (f?.typed_config as Json | undefined)?.['@type'] === ROUTER_TYPE;
      const last = i === filters.length - 1;
      if (isRouter && !last) this.add(join(path(), `http_filters[${i}]`), 'envoy.http_filters', `the router filter (a terminal filter) must be the last HTTP filter, but ${filters.length - 1 - i} follow it`);
      if (!isRouter && last) this.add(join(path(), `http_filters[${i}]`), 'envoy.http_filters', `the HTTP filter chain ends with "${nameOf(f)}"; it must end with the router filter`);
    });
  }
}

interface Clash {
  index: number;
  rule: string;
  message: string;
}

/** Names used more than once among `items` (listeners, clusters, route configurations). */
function duplicateNames(items: unknown[], kind: string): Clash[] {
  const seen = new Set<string>();
  const out: Clash[] = [];
  items.forEach((item, index) => {
    const name = nameOf(item);
    if (seen.has(name)) out.push({ index, rule: 'envoy.duplicate_name', message: `${kind} name "${name}" is used twice` });
    seen.add(name);
  });
  return out;
}

/** Two listeners on one address and port: Envoy fails to bind the second. */
function duplicateAddresses(listeners: unknown[]): Clash[] {
  const seen = new Map<string, string>();
  const out: Clash[] = [];
  listeners.forEach((l, index) => {
    const sa = ((l as Json)?.address as Json | undefined)?.socket_address as Json | undefined;
    if (!sa) return;
    const key = `${String(sa.protocol ?? 'TCP')} ${String(sa.address)}:${String(sa.port_value)}`;
    const other = seen.get(key);
    if (other !== undefined) out.push({ index, rule: 'envoy.duplicate_address', message: `listener address ${key} is also used by listener "${other}"` });
    else seen.set(key, nameOf(l));
  });
  return out;
}

/** Per-route jwt_authn configurations must name a requirement of the filter's requirement_map. */
function jwtReferences(checks: LoadChecks): Array<ProtoIssue & { resource?: string }> {
  return checks.references
    .filter((r) => r.kind === 'jwt_requirement' && !checks.jwtRequirements.has(r.name))
    .map((r) => ({
      path: r.path,
      resource: r.resource,
      rule: 'envoy.unknown_jwt_requirement',
      message: `requirement_name "${r.name}" is not in the requirement_map of any jwt_authn filter`,
    }));
}

function clusterNames(clusters: unknown[]): Set<string> {
  return new Set(clusters.map(nameOf));
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * A static bootstrap (`envoy -c`). Each diagnostic's field is the full path in
 * the bootstrap; its resource is the listener or cluster it sits in.
 */
export function verifyBootstrap(bootstrap: Json): Diagnostic[] {
  const sr = (bootstrap.static_resources ?? {}) as Json;
  const listeners = asArray(sr.listeners);
  const clusters = asArray(sr.clusters);
  const checks = new LoadChecks(clusterNames(clusters));
  const protoIssues = checkMessage(T.bootstrap, bootstrap, { hooks: checks.hooks });
  checks.ipAddress((bootstrap.admin as Json | undefined)?.address, () => 'admin', 'address.socket_address.address', 'the admin interface');
  const issues = [
    ...protoIssues,
    ...checks.found,
    ...jwtReferences(checks),
    ...duplicateNames(listeners, 'listener').map((c) => ({ ...c, path: `static_resources.listeners[${c.index}].name` })),
    ...duplicateAddresses(listeners).map((c) => ({ ...c, path: `static_resources.listeners[${c.index}].address` })),
    ...duplicateNames(clusters, 'cluster').map((c) => ({ ...c, path: `static_resources.clusters[${c.index}].name` })),
  ];
  const owner = /^static_resources\.(listeners|clusters)\[(\d+)\]/;
  return issues.map((iss) => {
    const m = owner.exec(iss.path);
    const resource = !m ? 'Bootstrap' : m[1] === 'listeners' ? `Listener ${nameOf(listeners[Number(m[2])])}` : `Cluster ${nameOf(clusters[Number(m[2])])}`;
    return bug(resource, iss.path, iss.message, iss.rule);
  });
}

/**
 * The translation result as served over xDS: each resource by its own type,
 * plus the cross-resource checks (names, cluster and RDS references). Each
 * diagnostic's field is the path inside its resource.
 */
export function verifyOutput(out: CompiledOutput): Diagnostic[] {
  const checks = new LoadChecks(clusterNames(out.clusters));
  const diags: Diagnostic[] = [];
  const each = (items: Json[], typeName: string, kind: string) => {
    for (const item of items) {
      const resource = `${kind} ${nameOf(item)}`;
      const refsBefore = checks.references.length;
      for (const iss of checkMessage(typeName, item, { hooks: checks.hooks })) diags.push(bug(resource, iss.path, iss.message, iss.rule));
      for (const iss of checks.found.splice(0)) diags.push(bug(resource, iss.path, iss.message, iss.rule));
      for (const r of checks.references.slice(refsBefore)) r.resource = resource;
    }
    for (const c of duplicateNames(items, kind)) diags.push(bug(`${kind} ${nameOf(items[c.index])}`, 'name', c.message, c.rule));
  };
  each(out.listeners, T.listener, 'Listener');
  each(out.routes, T.route, 'RouteConfiguration');
  each(out.clusters, T.cluster, 'Cluster');
  each(out.authConfigs, T.authConfig, 'AuthConfig');
  each(out.graphqlApis, T.graphqlApi, 'GraphQLApi');
  for (const c of duplicateAddresses(out.listeners)) diags.push(bug(`Listener ${nameOf(out.listeners[c.index])}`, 'address', c.message, c.rule));
  const routeNames = new Set(out.routes.map(nameOf));
  for (const r of checks.references) {
    if (r.kind === 'route_config' && !routeNames.has(r.name)) {
      diags.push(bug(r.resource!, r.path, `RDS route_config_name "${r.name}" names no RouteConfiguration of the output`, 'envoy.unknown_route_config'));
    }
  }
  for (const iss of jwtReferences(checks)) diags.push(bug(iss.resource!, iss.path, iss.message, iss.rule));
  return diags;
}
