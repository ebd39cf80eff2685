/**
 * Resolve: validated resources -> the typed Model. Every reference is looked
 * up here; a dangling or conflicting one is an error on the resource that holds it.
 */
import { asWarning, fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import { compareText, sameHostKeys, sortedLike } from '../order.js';
import type { Resource } from '../validate/validate.js';
import {
  SIDECAR_CLUSTERS,
  type AuthConfigIR,
  type GraphQLApiIR,
  type Model,
  type UpstreamIR,
  type VirtualHostIR,
} from '../ir/model.js';
import type { RateLimitServiceIR } from '../ir/ratelimit.js';
import { claimDomains } from './gateway-tls.js';
import { tcpDestinations } from './tcp-destinations.js';
import { resolveGateways } from './gateways.js';
import { directBodyProblems } from './route-configuration.js';
import { extProcWithoutFilter, http2Problem } from './ext-proc.js';
import { resolveGraphQLApis } from './graphql.js';
import { ResourceIndex } from './index.js';
import { Lookups, stillValid, type Changes, type Dependency } from './lookups.js';
import { resolveAuthConfig } from './auth-configs.js';
import { checkUpstreamGroups } from './destinations.js';
import { claimHeaderRouteProblems } from './jwt-claims.js';
import { buildUpstreamCatalog, reachesPods, UpstreamMemo, type UpstreamCatalog } from './upstreams.js';
import { EndpointMemo, resolveEndpoints, slicesByService } from './endpoints.js';
import { selectorProblems } from './upstream-selector.js';
import { hashPolicyWarnings, ringSizeProblems } from './upstream-checks.js';
import { upstreamClusterProblems } from './upstream-cluster-checks.js';
import { awsUpstreamProblems, lambdaOnlyProblem } from './aws-lambda.js';
import { tunnelProblems, upstreamProtocolProblems } from './upstream-protocol-checks.js';
import { upstreamTranscoderProblems } from './upstream-transcoder.js';
import { failoverProblems } from './upstream-failover.js';
import { resolveTlsSecrets } from './tls.js';
import { resolveRateLimitService } from './rate-limit-service.js';
import { resolveVirtualService, type VirtualServiceResult } from './virtual-services.js';
import type { ResolveOptions } from './options.js';

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

/** What the endpoint sets were made from, and their warnings (also among the diagnostics): an EndpointSlice or Pod change recomputes the sets alone from them (compiler/endpoint-update.ts). */
export interface EndpointBasis {
  index: ResourceIndex;
  slices: ReadonlyMap<string, readonly Resource[]>;
  warnings: readonly Diagnostic[];
}

interface Memo<T> {
  value: T;
  diagnostics: Diagnostic[];
  deps: Dependency[];
}

export function resolve(
  resources: Resource[],
  options: ResolveOptions,
  memo = new ResolveMemo(),
): { model: Model; diagnostics: Diagnostic[]; endpointBasis: EndpointBasis } {
  const diagnostics: Diagnostic[] = [];
  const index = new ResourceIndex(resources, diagnostics, memo.sorted);
  const slices = slicesByService(index, memo.endpoints);
  const sliced = new Set(slices.keys());
  const targets = { clusterDomain: options.clusterDomain, sliced };
  // No silent widening: where Envoy reaches a Service by its DNS name, an Upstream's kube.selector must be its Service's own.
  diagnostics.push(...selectorProblems(index, (service, spec) => reachesPods(targets, service, spec)));
  diagnostics.push(...ringSizeProblems(index), ...awsUpstreamProblems(index));
  diagnostics.push(
    ...upstreamProtocolProblems(index),
    ...tunnelProblems(index),
    ...failoverProblems(index),
    ...upstreamTranscoderProblems(index),
  );
  // Kinds whose resources are all the same objects as last run: lookups into them answer as before.
  const kinds = [
    'Upstream',
    'UpstreamGroup',
    'Service',
    'VirtualService',
    'RouteTable',
    'VirtualHostOption',
    'RouteOption',
    'AuthConfig',
    'Secret',
    'GraphQLApi',
    'EndpointSlice',
    'Pod',
    'Settings',
    'RateLimitConfig',
  ];
  const sameSliced =
    memo.sliced !== undefined && memo.sliced.size === sliced.size && [...sliced].every((s) => memo.sliced!.has(s));
  const changes: Changes = {
    catalog: !(memo.catalog && index.unchanged('Upstream') && index.unchanged('Service') && sameSliced),
    kinds: new Set(kinds.filter((k) => !index.unchanged(k))),
  };
  const catalog = changes.catalog
    ? buildUpstreamCatalog(index, targets, options.controlPlaneNamespace, memo.upstreams)
    : memo.catalog!;
  memo.catalog = catalog;
  memo.sliced = sliced;
  diagnostics.push(...upstreamClusterProblems(catalog.explicit));
  checkUpstreamGroups(index, new Lookups(index, catalog), options, diagnostics);

  /** The memoized result of `compute` for `resource`, computed again only when a lookup it made answers differently. */
  const cached = <T>(
    map: WeakMap<Resource, Memo<T>>,
    resource: Resource,
    compute: (lookups: Lookups, diagnostics: Diagnostic[]) => T,
  ): T => {
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
    if (clash)
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          path,
          `upstream ${upstream.namespace}/${upstream.name} and ${clash.namespace}/${clash.name} would both become cluster "${upstream.name}"`,
          'give one of the Upstreams another name',
        ),
      );
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
    else
      for (const { path, origin, upstream } of resolveVirtualService(vs, new Lookups(index, catalog), options, []).uses)
        use(upstream, origin, path);
    for (const table of result.reached) reached.add(table);
    for (const { name, path } of result.providers) {
      // Names may contain dots: VirtualService `a` with provider `b.c` and VirtualService `a.b` with
      // provider `c` would share one entry, and one host would verify tokens with the other's keys.
      const owner = providerOwners.get(name);
      if (owner)
        diagnostics.push(
          fieldError(
            'resolve',
            vs.origin,
            path,
            `JWT provider name "${name}" is also produced by VirtualService ${owner.namespace}/${owner.name}`,
            'rename this provider (or the VirtualService) so that <namespace>.<virtualservice>.<provider> is unique',
          ),
        );
      else providerOwners.set(name, vs);
    }
    virtualHosts.push(result.vh);
  }
  for (const table of index.all('RouteTable')) {
    if (!reached.has(table))
      diagnostics.push(
        asWarning(
          fieldError(
            'resolve',
            table.origin,
            ['metadata', 'name'],
            'no VirtualService delegates to this RouteTable, so its routes are served nowhere',
            'delegate to it from a route (delegateAction.ref or delegateAction.selector), or remove it',
          ),
        ),
      );
  }

  const authConfigs: AuthConfigIR[] = index
    .all('AuthConfig')
    .map((ac) => cached(memo.authConfigs, ac, (lookups, own) => resolveAuthConfig(ac, lookups, own)));

  // sluice-graphql dials its upstreams itself: they are looked up, but are no Envoy clusters. Stitched
  // APIs read the others' schemas, so the APIs are resolved together, again when any of them changes.
  const apis = index.all('GraphQLApi');
  let gql = memo.graphqlApis;
  if (
    !gql ||
    gql.apis.length !== apis.length ||
    gql.apis.some((a, i) => a !== apis[i]) ||
    !stillValid(gql.deps, index, catalog, changes)
  ) {
    const lookups = new Lookups(index, catalog);
    const own: Diagnostic[] = [];
    gql = memo.graphqlApis = {
      apis,
      value: resolveGraphQLApis(index, lookups.findUpstream(options, own), own),
      diagnostics: own,
      deps: lookups.deps,
    };
  }
  diagnostics.push(...gql.diagnostics);

  // A TCP host's Upstream is a cluster too (Gateways are few: resolved every run).
  const gatewayLookups = new Lookups(index, catalog);
  const findUpstream = gatewayLookups.findUpstream(options, diagnostics);
  const gateways = resolveGateways(
    index,
    virtualHosts,
    (from, path, ref, grpc) => {
      const upstream = findUpstream(from, path, ref);
      if (!upstream) return undefined;
      const problem = lambdaOnlyProblem(upstream) ?? (grpc ? http2Problem(upstream) : undefined);
      if (problem) {
        diagnostics.push(fieldError('resolve', from.origin, path, problem.message, problem.hint));
        return undefined;
      }
      use(upstream, from.origin, path);
      return upstream.name;
    },
    tcpDestinations(
      gatewayLookups,
      findUpstream,
      (path, from, upstream) => use(upstream, from.origin, path),
      diagnostics,
    ),
    diagnostics,
  );
  extProcWithoutFilter(virtualHosts, gateways, diagnostics);
  directBodyProblems(virtualHosts, gateways, diagnostics);
  const rateLimit = resolveRateLimitService(
    index,
    virtualHosts,
    findUpstream,
    (upstream, from, path) => use(upstream, from.origin, path),
    diagnostics,
  );
  // The default gateway serves every virtual host on one listener; a Gateway checks its own (resolveGateways).
  if (index.all('Gateway').length === 0) {
    // Hosts whose names and domains are those last found unique claim nothing twice: no need to index them all again.
    if (!memo.uniqueDomains || !sameHostKeys(memo.uniqueDomains, virtualHosts)) {
      const before = diagnostics.length;
      claimDomains(virtualHosts, diagnostics);
      memo.uniqueDomains = memo.retain && diagnostics.length === before ? virtualHosts : undefined;
    }
  }

  const upstreams = (memo.usedUpstreams = sortedLike([...used.values()], memo.usedUpstreams, (a, b) =>
    compareText(a.name, b.name),
  ));
  diagnostics.push(...hashPolicyWarnings(virtualHosts, upstreams));
  diagnostics.push(...claimHeaderRouteProblems(virtualHosts));
  memo.sorted = index.sortedKinds();
  sidecarNameClashes(virtualHosts, upstreams, rateLimit, diagnostics);
  const secrets = resolveTlsSecrets(index, virtualHosts, upstreams, gateways, diagnostics);
  const { sets: endpoints, warnings: endpointWarnings } = resolveEndpoints(
    { slices, pod: (ref) => index.get('Pod', ref) },
    upstreams,
    memo.endpoints,
  );
  diagnostics.push(...endpointWarnings);
  // A RouteTable several VirtualServices reach reports its problems once.
  const seen = new Set<string>();
  const unique = diagnostics.filter((d) => {
    const key = JSON.stringify(d);
    return !seen.has(key) && !!seen.add(key);
  });
  return {
    model: {
      virtualHosts,
      gateways,
      upstreams,
      authConfigs,
      graphqlApis: gql.value,
      ...(secrets.length > 0 ? { secrets } : {}),
      ...(endpoints.length > 0 ? { endpoints } : {}),
      ...(rateLimit ? { rateLimit } : {}),
    },
    diagnostics: unique,
    endpointBasis: { index, slices, warnings: endpointWarnings },
  };
}

/** A user's Upstream may take a sidecar cluster's name (`extauth`, `graphql`); Envoy would reject the pair. */
function sidecarNameClashes(
  virtualHosts: VirtualHostIR[],
  upstreams: UpstreamIR[],
  rateLimit: RateLimitServiceIR | undefined,
  diagnostics: Diagnostic[],
): void {
  const sidecars = [
    { name: SIDECAR_CLUSTERS.extauth, used: virtualHosts.some((vh) => vh.extauth) },
    {
      name: SIDECAR_CLUSTERS.graphql,
      used: virtualHosts.some((vh) => vh.routes.some((r) => r.action.kind === 'graphql')),
    },
    { name: SIDECAR_CLUSTERS.ratelimit, used: rateLimit?.server.sidecar === true },
  ];
  for (const sidecar of sidecars) {
    const taken = sidecar.used && upstreams.find((u) => u.name === sidecar.name);
    if (taken)
      diagnostics.push(
        fieldError(
          'resolve',
          taken.origin,
          ['metadata', 'name'],
          `"${taken.name}" is the name of a sidecar cluster in this output`,
          'rename the Upstream (and the references to it)',
        ),
      );
  }
}
