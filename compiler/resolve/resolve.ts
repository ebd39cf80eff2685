/**
 * Resolve: validated resources -> the typed Model. Every reference is looked
 * up here; a dangling or conflicting one is an error on the resource that holds it.
 */
import { asWarning, fieldError, notFound, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import { compareText, sameHostKeys, sortedLike } from '../order.js';
import type { Resource } from '../validate/validate.js';
import { SIDECAR_CLUSTERS, type AuthConfigIR, type ClusterRefIR, type ExtauthRefIR, type GraphQLApiIR, type JwtProviderIR, type Model, type NamespacedName, type RbacPolicyIR, type RouteIR, type UpstreamIR, type VirtualHostIR } from '../ir/model.js';
import { claimDomains } from './gateway-tls.js';
import { resolveGateways } from './gateways.js';
import { resolveGraphQLApis } from './graphql.js';
import { ResourceIndex, refOf, showRef, type Ref } from './index.js';
import { Lookups, stillValid, type Changes, type Dependency } from './lookups.js';
import { resolveAuthConfig } from './auth-configs.js';
import type { AuthConfigSpec } from '../kinds/auth-config.js';
import type { DestinationSpec } from '../kinds/destinations.js';
import type { RouteOptionsSpec } from '../kinds/route-options.js';
import type { VirtualServiceSpec } from '../kinds/virtual-service.js';
import { directResponse, redirectAction } from './actions.js';
import { shadowWarnings } from './matchers.js';
import { pemToJwks } from './pem.js';
import { checkUpstreamGroups, destinationCluster as clusterOf, weightedClusters } from './destinations.js';
import { checkNestedClaims, claimHeaderRouteProblems, claimHeaders } from './jwt-claims.js';
import { expandDelegation, withInherited } from './route-tables.js';
import { routeOptions, virtualHostOptions } from './route-options.js';
import { buildUpstreamCatalog, reachesPods, UpstreamMemo, type UpstreamCatalog } from './upstreams.js';
import { EndpointMemo, resolveEndpoints, slicesByService } from './endpoints.js';
import { selectorProblems } from './upstream-selector.js';
import { hashPolicyWarnings, ringSizeProblems } from './upstream-checks.js';
import { downstreamTls, resolveTlsSecrets } from './tls.js';

export interface ResolveOptions {
  clusterDomain: string;
  controlPlaneNamespace: string;
}

/**
 * What resolve keeps between runs of one compiler, so an edit re-resolves only
 * the resources whose inputs changed. A resource's result is reused when the
 * resource is the same object (its file was not re-parsed) and every lookup it
 * made answers the same as last time (see ./lookups.ts).
 */
export class ResolveMemo {
  readonly virtualServices = new WeakMap<Resource, Memo<VirtualServiceResult>>();
  readonly authConfigs = new WeakMap<Resource, Memo<AuthConfigIR>>();
  graphqlApis: (Memo<GraphQLApiIR[]> & { apis: Resource[] }) | undefined;
  readonly upstreams = new UpstreamMemo();
  readonly endpoints = new EndpointMemo();
  /** The last run's catalog, kept while no Upstream or Service changes, nor which Services have EndpointSlices. */
  catalog: UpstreamCatalog | undefined;
  sliced: ReadonlySet<string> | undefined;
  /** The last run's resources of each kind, sorted, and upstreams in use, sorted: this run sorts from them. */
  sorted: ReadonlyMap<string, Resource[]> | undefined;
  usedUpstreams: UpstreamIR[] | undefined;
  /** The last run's virtual hosts (default gateway), when no domain was claimed twice. */
  uniqueDomains: VirtualHostIR[] | undefined;
  /** `retain: false` (a one-shot compile, which has no next run): no per-resource result is kept. */
  constructor(readonly retain = true) {}
}

interface Memo<T> {
  value: T;
  diagnostics: Diagnostic[];
  deps: Dependency[];
}

/** One VirtualService on its own; what depends on the others is checked in `resolve`. */
interface VirtualServiceResult {
  vh: VirtualHostIR;
  /** Upstreams its routes and remote JWKS send to, each once. Where each is used is found again (by resolving the VirtualService once more) only when one clashes with another of the same name: kept for every route of 10,000 VirtualServices, the fields were 15 MiB. */
  upstreams: UpstreamIR[];
  /** The RouteTables its routes delegate to, directly or not. */
  reached: Resource[];
  /** JWT provider names it produces, with their fields. */
  providers: { name: string; path: FieldPath }[];
}

/** An upstream a VirtualService sends to, with the field that names it (in the VirtualService, or in a RouteTable it delegates to). */
interface UpstreamUse {
  path: FieldPath;
  origin: Origin;
  upstream: UpstreamIR;
}

export function resolve(resources: Resource[], options: ResolveOptions, memo = new ResolveMemo()): { model: Model; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const index = new ResourceIndex(resources, diagnostics, memo.sorted);
  const sliced = new Set(slicesByService(index, memo.endpoints).keys());
  const targets = { clusterDomain: options.clusterDomain, sliced };
  // No silent widening: where Envoy reaches a Service by its DNS name, an Upstream's kube.selector must be its Service's own.
  diagnostics.push(...selectorProblems(index, (service, spec) => reachesPods(targets, service, spec)));
  diagnostics.push(...ringSizeProblems(index));
  // Kinds whose resources are all the same objects as last run: lookups into them answer as before.
  const kinds = ['Upstream', 'UpstreamGroup', 'Service', 'VirtualService', 'RouteTable', 'AuthConfig', 'Secret', 'GraphQLApi', 'EndpointSlice', 'Pod'];
  const sameSliced = memo.sliced !== undefined && memo.sliced.size === sliced.size && [...sliced].every((s) => memo.sliced!.has(s));
  const changes: Changes = { catalog: !(memo.catalog && index.unchanged('Upstream') && index.unchanged('Service') && sameSliced), kinds: new Set(kinds.filter((k) => !index.unchanged(k))) };
  const catalog = changes.catalog ? buildUpstreamCatalog(index, targets, options.controlPlaneNamespace, memo.upstreams) : memo.catalog!;
  memo.catalog = catalog;
  memo.sliced = sliced;
  checkUpstreamGroups(index, new Lookups(index, catalog), options, diagnostics);

  /** The memoized result of `compute` for `resource`, computed again only when a lookup it made answers differently. */
  const cached = <T>(map: WeakMap<Resource, Memo<T>>, resource: Resource, compute: (lookups: Lookups, diagnostics: Diagnostic[]) => T): T => {
    let entry = map.get(resource);
    if (!entry || !stillValid(entry.deps, index, catalog, changes)) {
      const lookups = new Lookups(index, catalog);
      const own: Diagnostic[] = [];
      entry = { value: compute(lookups, own), diagnostics: own, deps: lookups.deps };
      if (memo.retain) map.set(resource, entry);
    }
    diagnostics.push(...entry.diagnostics);
    return entry.value;
  };

  const used = new Map<string, UpstreamIR>();
  /** An upstream Envoy sends to (a cluster), used at `path` of a resource from `origin`. */
  const use = (upstream: UpstreamIR, origin: Origin, path: FieldPath) => {
    const clash = used.get(upstream.name);
    if (clash === upstream) return;
    if (clash) diagnostics.push(fieldError('resolve', origin, path, `upstream ${upstream.namespace}/${upstream.name} and ${clash.namespace}/${clash.name} would both become cluster "${upstream.name}"`, 'give one of the Upstreams another name'));
    used.set(upstream.name, upstream);
  };
  // Envoy's jwt_authn holds the providers of all virtual hosts in one map.
  const providerOwners = new Map<string, Resource>();
  const virtualHosts: VirtualHostIR[] = [];
  const reached = new Set<Resource>();
  /** Whether an upstream of `list` would become the same cluster as another upstream (of the list, or used before). */
  const clashes = (list: readonly UpstreamIR[]) => {
    const seen = new Map<string, UpstreamIR>();
    for (const upstream of list) {
      const other = seen.get(upstream.name) ?? used.get(upstream.name);
      if (other && other !== upstream) return true;
      seen.set(upstream.name, upstream);
    }
    return false;
  };
  for (const vs of index.all('VirtualService')) {
    const result = cached(memo.virtualServices, vs, (lookups, own) => {
      const { uses, ...rest } = resolveVirtualService(vs, lookups, options, own);
      return { ...rest, upstreams: [...new Set(uses.map((u) => u.upstream))] };
    });
    if (!clashes(result.upstreams)) for (const upstream of result.upstreams) used.set(upstream.name, upstream);
    // The fields of its uses, for the errors: resolved again (its own diagnostics were reported with the result).
    else for (const { path, origin, upstream } of resolveVirtualService(vs, new Lookups(index, catalog), options, []).uses) use(upstream, origin, path);
    for (const table of result.reached) reached.add(table);
    for (const { name, path } of result.providers) {
      // Names may contain dots: VirtualService `a` with provider `b.c` and VirtualService `a.b` with
      // provider `c` would share one entry, and one host would verify tokens with the other's keys.
      const owner = providerOwners.get(name);
      if (owner) diagnostics.push(fieldError('resolve', vs.origin, path, `JWT provider name "${name}" is also produced by VirtualService ${owner.namespace}/${owner.name}`, 'rename this provider (or the VirtualService) so that <namespace>.<virtualservice>.<provider> is unique'));
      else providerOwners.set(name, vs);
    }
    virtualHosts.push(result.vh);
  }
  for (const table of index.all('RouteTable')) {
    if (!reached.has(table)) diagnostics.push(asWarning(fieldError('resolve', table.origin, ['metadata', 'name'], 'no VirtualService delegates to this RouteTable, so its routes are served nowhere', 'delegate to it from a route (delegateAction.ref or delegateAction.selector), or remove it')));
  }

  const authConfigs: AuthConfigIR[] = index.all('AuthConfig').map((ac) => cached(memo.authConfigs, ac, (lookups, own) => resolveAuthConfig(ac, lookups, own)));

  // sluice-graphql dials its upstreams itself: they are looked up, but are no Envoy clusters. Stitched
  // APIs read the others' schemas, so the APIs are resolved together, again when any of them changes.
  const apis = index.all('GraphQLApi');
  let gql = memo.graphqlApis;
  if (!gql || gql.apis.length !== apis.length || gql.apis.some((a, i) => a !== apis[i]) || !stillValid(gql.deps, index, catalog, changes)) {
    const lookups = new Lookups(index, catalog);
    const own: Diagnostic[] = [];
    gql = memo.graphqlApis = { apis, value: resolveGraphQLApis(index, lookups.findUpstream(options, own), own), diagnostics: own, deps: lookups.deps };
  }
  diagnostics.push(...gql.diagnostics);

  // A TCP host's Upstream is a cluster too (Gateways are few: resolved every run).
  const findUpstream = new Lookups(index, catalog).findUpstream(options, diagnostics);
  const gateways = resolveGateways(index, virtualHosts, (from, path, ref) => {
    const upstream = findUpstream(from, path, ref);
    if (upstream) use(upstream, from.origin, path);
    return upstream?.name;
  }, diagnostics);
  // The default gateway serves every virtual host on one listener; a Gateway checks its own (resolveGateways).
  if (index.all('Gateway').length === 0) {
    // Hosts whose names and domains are those last found unique claim nothing twice: no need to index them all again.
    if (!memo.uniqueDomains || !sameHostKeys(memo.uniqueDomains, virtualHosts)) {
      const before = diagnostics.length;
      claimDomains(virtualHosts, diagnostics);
      memo.uniqueDomains = memo.retain && diagnostics.length === before ? virtualHosts : undefined;
    }
  }

  const upstreams = (memo.usedUpstreams = sortedLike([...used.values()], memo.usedUpstreams, (a, b) => compareText(a.name, b.name)));
  diagnostics.push(...hashPolicyWarnings(virtualHosts, upstreams));
  diagnostics.push(...claimHeaderRouteProblems(virtualHosts));
  memo.sorted = index.sortedKinds();
  sidecarNameClashes(virtualHosts, upstreams, diagnostics);
  const secrets = resolveTlsSecrets(index, virtualHosts, upstreams, gateways, diagnostics);
  const { sets: endpoints, warnings: endpointWarnings } = resolveEndpoints(index, upstreams, memo.endpoints);
  diagnostics.push(...endpointWarnings);
  // A RouteTable several VirtualServices reach reports its problems once.
  const seen = new Set<string>();
  const unique = diagnostics.filter((d) => {
    const key = JSON.stringify(d);
    return !seen.has(key) && !!seen.add(key);
  });
  return { model: { virtualHosts, gateways, upstreams, authConfigs, graphqlApis: gql.value, ...(secrets.length > 0 ? { secrets } : {}), ...(endpoints.length > 0 ? { endpoints } : {}) }, diagnostics: unique };
}

/** A user's Upstream may take a sidecar cluster's name (`extauth`, `graphql`); Envoy would reject the pair. */
function sidecarNameClashes(virtualHosts: VirtualHostIR[], upstreams: UpstreamIR[], diagnostics: Diagnostic[]): void {
  const sidecars = [
    { name: SIDECAR_CLUSTERS.extauth, used: virtualHosts.some((vh) => vh.extauth) },
    { name: SIDECAR_CLUSTERS.graphql, used: virtualHosts.some((vh) => vh.routes.some((r) => r.action.kind === 'graphql')) },
  ];
  for (const sidecar of sidecars) {
    const taken = sidecar.used && upstreams.find((u) => u.name === sidecar.name);
    if (taken) diagnostics.push(fieldError('resolve', taken.origin, ['metadata', 'name'], `"${taken.name}" is the name of a sidecar cluster in this output`, 'rename the Upstream (and the references to it)'));
  }
}

function resolveVirtualService(vs: Resource, lookups: Lookups, options: ResolveOptions, diagnostics: Diagnostic[]): Omit<VirtualServiceResult, 'upstreams'> & { uses: UpstreamUse[] } {
  const spec = vs.spec as unknown as VirtualServiceSpec;
  const host = spec.virtualHost;
  const base = ['spec', 'virtualHost'];
  const name = `${vs.namespace}.${vs.name}`;
  const uses: UpstreamUse[] = [];
  const findUpstream = lookups.findUpstream(options, diagnostics);
  /** An upstream Envoy itself sends to: it becomes a cluster. */
  const upstreamRef = (path: FieldPath, raw: Ref, from: Resource = vs): string | undefined => {
    const upstream = findUpstream(from, path, raw);
    if (!upstream) return undefined;
    uses.push({ path, origin: from.origin, upstream });
    return upstream.name;
  };
  const requireRef = (path: FieldPath, kind: string, raw: Ref, hint: string, from: Resource = vs): NamespacedName | undefined => {
    const ref = refOf(raw, from);
    if (lookups.resource(kind, ref)) return ref;
    diagnostics.push(notFound(fieldError('resolve', from.origin, path, `${kind} ${showRef(ref)} not found`, hint), `${kind} ${showRef(ref)}`));
    return undefined;
  };

  /** The AuthConfig a reference names, and whether it needs the request body; undefined after reporting why not. */
  const authConfigRef = (path: FieldPath, raw: Ref, from: Resource): ExtauthRefIR | undefined => {
    const ref = requireRef(path, 'AuthConfig', raw, 'define the AuthConfig (enterprise.gateway.example/v1) or fix the reference', from);
    if (!ref) return undefined;
    const spec = lookups.resource('AuthConfig', ref)!.spec as unknown as AuthConfigSpec;
    const withBody = (spec.configs ?? []).some((c) => c.passThroughAuth?.http?.request?.passThroughBody);
    return { configRef: `${ref.namespace}.${ref.name}`, ...(withBody ? { withRequestBody: true } : {}) };
  };

  /** The cluster of a Gloo Destination (kube or upstream), or undefined after reporting why not. */
  const destinationCluster = (at: FieldPath, dest: DestinationSpec, from: Resource = vs): ClusterRefIR | undefined =>
    clusterOf(at, dest, from, lookups, findUpstream, (path, owner, upstream) => uses.push({ path, origin: owner.origin, upstream }), diagnostics);

  const routes: RouteIR[] = [];
  const placed: Parameters<typeof shadowWarnings>[0] = [];
  // Delegated routes (RouteTables) are inlined in place; each is resolved in the resource that wrote it.
  const expanded = expandDelegation(vs, host.routes ?? [], [...base, 'routes'], lookups, diagnostics);
  expanded.routes.forEach(({ route, owner: from, path, matches, inherited, names }) => {
    let action: RouteIR['action'] | undefined;
    if (route.graphqlApiRef) {
      const ref = requireRef([...path, 'graphqlApiRef'], 'GraphQLApi', route.graphqlApiRef, 'define the GraphQLApi (graphql.gateway.example/v1beta1) or fix the reference', from);
      if (ref) action = { kind: 'graphql', api: `${ref.namespace}.${ref.name}` };
    } else if (route.redirectAction) {
      action = redirectAction(route.redirectAction, [...path, 'redirectAction'], from.origin, diagnostics);
    } else if (route.directResponseAction) {
      action = directResponse(route.directResponseAction, [...path, 'directResponseAction'], from.origin, diagnostics);
    } else if (route.routeAction!.single) {
      const cluster = destinationCluster([...path, 'routeAction', 'single'], route.routeAction!.single, from);
      if (cluster) action = { kind: 'cluster', ...cluster };
    } else {
      // routeAction.multi, or an UpstreamGroup's destinations (the same shape, in their own resource).
      let at = [...path, 'routeAction', 'multi', 'destinations'];
      let owner: Resource = from;
      let destinations = route.routeAction!.multi?.destinations ?? [];
      if (route.routeAction!.upstreamGroup) {
        const groupPath = [...path, 'routeAction', 'upstreamGroup'];
        const ref = requireRef(groupPath, 'UpstreamGroup', route.routeAction!.upstreamGroup, 'define the UpstreamGroup (gloo.gateway.example/v1) or fix the reference', from);
        const group = ref && lookups.resource('UpstreamGroup', ref);
        if (!group) return;
        [owner, at, destinations] = [group, ['spec', 'destinations'], (group.spec as { destinations: typeof destinations }).destinations];
      }
      const clusters = weightedClusters(owner, at, destinations, destinationCluster, diagnostics);
      if (clusters) action = { kind: 'weighted', clusters };
    }
    if (matches) placed.push({ path, origin: from.origin, matches: matches.map((match, j) => ({ match, path: route.matchers?.length ? [...path, 'matchers', j] : path })) });
    // Several matchers: any of them, as one Envoy route each with the same action, in the order written.
    const actionField = route.routeAction ? 'routeAction' : route.graphqlApiRef ? 'graphqlApiRef' : route.redirectAction ? 'redirectAction' : 'directResponseAction';
    /** Options written in `owner` (this route's resource, or one that delegates to it). */
    const optionsIn = (spec: RouteOptionsSpec | undefined, at: FieldPath, owner: Resource) =>
      routeOptions(spec, actionField, at, owner.origin, diagnostics, {
        upstream: (p: FieldPath, raw: Ref) => upstreamRef(p, raw, owner),
        authConfig: (p: FieldPath, raw: Ref) => authConfigRef(p, raw, owner),
      }, host.options?.extauth !== undefined);
    const opts = withInherited(optionsIn(route.options, [...path, 'options'], from), inherited, actionField, optionsIn);
    // Envoy's route name: the position keeps it unique; Gloo's route `name`s on the branch (outermost first) and a
    // delegated route's RouteTable let explain, access logs (%ROUTE_NAME%) and Envoy's admin say which route it is.
    const label = names.length > 0 ? `:${names.join('/')}` : '';
    const source = from === vs ? '' : ` (RouteTable ${from.namespace}/${from.name})`;
    if (action && matches && opts.ok) for (const match of matches) routes.push({ name: `${name}/${routes.length}${label}${source}`, match, action, ...(opts.options ? { options: opts.options } : {}) });
  });
  diagnostics.push(...shadowWarnings(placed, vs.origin));

  const vh: VirtualHostIR = { name, namespace: vs.namespace, origin: vs.origin, domains: host.domains, routes };
  if (spec.displayName !== undefined) vh.displayName = spec.displayName;
  if (spec.sslConfig) vh.tls = downstreamTls(spec.sslConfig, vs, ['spec', 'sslConfig']);
  const providerNames: VirtualServiceResult['providers'] = [];
  const opts = host.options ?? {};
  const hostOptions = virtualHostOptions(opts, [...base, 'options'], vs.origin, diagnostics);
  if (hostOptions.retries) vh.retries = hostOptions.retries;
  if (hostOptions.headers) vh.headers = hostOptions.headers;
  if (hostOptions.cors) vh.cors = hostOptions.cors;
  if (hostOptions.csrf) vh.csrf = hostOptions.csrf;
  if (opts.jwt) {
    const providers: JwtProviderIR[] = [];
    const claims = claimHeaders(opts.jwt.providers, [...base, 'options', 'jwt', 'providers'], vs.origin, diagnostics);
    for (const [pname, p] of Object.entries(opts.jwt.providers)) {
      const path = [...base, 'options', 'jwt', 'providers', pname];
      const common = {
        name: `${name}.${pname}`,
        issuer: p.issuer,
        origin: vs.origin,
        path,
        ...(p.tokenSource ? { tokenSource: { headers: (p.tokenSource.headers ?? []).map((h) => ({ name: h.header, ...(h.prefix !== undefined ? { prefix: h.prefix } : {}) })), queryParams: p.tokenSource.queryParams ?? [] } } : {}),
        ...(p.keepToken ? { keepToken: true } : {}),
        ...(claims.get(pname)?.length ? { claimsToHeaders: claims.get(pname)! } : {}),
      };
      providerNames.push({ name: common.name, path });
      if (p.jwks.local) {
        const converted = pemToJwks(p.jwks.local.key);
        if (converted.ok) providers.push({ ...common, jwks: { kind: 'local', keys: JSON.stringify({ keys: converted.keys }) } });
        else diagnostics.push(fieldError('resolve', vs.origin, [...path, 'jwks', 'local', 'key'], `key ${converted.message}`, converted.hint));
      } else {
        const remote = p.jwks.remote!;
        if (!isHttpUrl(remote.url)) {
          diagnostics.push(fieldError('resolve', vs.origin, [...path, 'jwks', 'remote', 'url'], `"${remote.url}" is not an http or https URL`, 'give the URL of the key set document, e.g. http://jwks.example/keys.json'));
        }
        const cluster = upstreamRef([...path, 'jwks', 'remote', 'upstreamRef'], remote.upstreamRef);
        if (cluster) providers.push({ ...common, jwks: { kind: 'remote', url: remote.url, cluster } });
      }
    }
    vh.jwt = { providers };
  }
  if (opts.rbac) {
    const policies: RbacPolicyIR[] = Object.entries(opts.rbac.policies).map(([pname, p]) => ({
      name: pname,
      // No permissions: any request of a matching principal (Gloo's meaning).
      methods: p.permissions?.methods ?? [],
      ...(p.permissions?.pathPrefix !== undefined ? { pathPrefix: p.permissions.pathPrefix } : {}),
      principals: (p.principals ?? []).map((pr) => ({ claims: pr.jwtPrincipal.claims })),
      ...(p.nestedClaimDelimiter ? { nestedClaimDelimiter: p.nestedClaimDelimiter } : {}),
      origin: vs.origin,
      path: [...base, 'options', 'rbac', 'policies', pname],
    }));
    checkRbac(vs, policies, opts.jwt !== undefined && Object.keys(opts.jwt.providers).length > 0, diagnostics);
    for (const [pname, p] of Object.entries(opts.rbac.policies)) if (p.nestedClaimDelimiter) checkNestedClaims(p.principals ?? [], p.nestedClaimDelimiter, [...base, 'options', 'rbac', 'policies', pname], vs.origin, diagnostics);
    vh.rbac = { policies };
  }
  if (opts.extauth) {
    const extauth = authConfigRef([...base, 'options', 'extauth', 'configRef'], opts.extauth.configRef, vs);
    if (extauth) vh.extauth = extauth;
  }
  return { vh, uses, reached: expanded.reached, providers: providerNames };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** RBAC policies that could never match a request are errors (claim names and values are checked by the schema). */
function checkRbac(vs: Resource, policies: RbacPolicyIR[], hasJwt: boolean, diagnostics: Diagnostic[]): void {
  if (policies.length === 0) return;
  for (const policy of policies) {
    if (policy.principals.length === 0) {
      // "carries every claim of one of the principals" can never hold with no principals.
      diagnostics.push(fieldError('resolve', vs.origin, [...policy.path, 'principals'], 'policy has no principals, so it would match no request', 'add a principal with the claims to require; to admit every token of a provider, require its issuer: `claims: {iss: <issuer>}`'));
    }
  }
  if (!hasJwt) {
    diagnostics.push(fieldError('resolve', vs.origin, ['spec', 'virtualHost', 'options', 'rbac'], 'RBAC matches JWT claims, but this virtual host has no options.jwt, so no request could ever pass', 'add options.jwt with the provider whose tokens carry these claims'));
  }
}
