/**
 * One VirtualService -> its virtual host: routes (with delegation expanded),
 * options, JWT providers and RBAC policies, the AuthConfig and GraphQLApi it
 * references, and the Upstreams its routes send to.
 */
import { fieldError, notFound, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { Resource } from '../validate/validate.js';
import type {
  ClusterRefIR,
  ExtauthRefIR,
  JwtProviderIR,
  NamespacedName,
  RbacPolicyIR,
  RouteIR,
  UpstreamIR,
  VirtualHostIR,
} from '../ir/model.js';
import { refOf, showRef, type Ref } from './index.js';
import { Lookups } from './lookups.js';
import type { AuthConfigSpec } from '../kinds/auth-config.js';
import type { DestinationSpec } from '../kinds/destinations.js';
import type { RouteOptionsSpec } from '../kinds/route-options.js';
import type { VirtualHostOptionsSpec } from '../kinds/virtual-host-options.js';
import type { VirtualServiceSpec } from '../kinds/virtual-service.js';
import { byOwner, delegatedOptions, ownOptions, type SourcedOption } from './option-refs.js';
import { withUnionExposeHeaders } from './route-extras.js';
import { directResponse, redirectAction } from './actions.js';
import { shadowWarnings } from './matchers.js';
import { pemToJwks } from './pem.js';
import { destinationCluster as clusterOf, weightedClusters } from './destinations.js';
import { claimHeaders } from './jwt-claims.js';
import { allowMissing, failedStatusKey } from './jwt-policy.js';
import { rbacPolicies } from './rbac-policies.js';
import type { RbacPoliciesSpec } from '../kinds/rbac.js';
import { expandDelegation, withInherited } from './route-tables.js';
import { resolveRateLimits, type RateLimitOptionsSpec } from './rate-limits.js';
import { customAuthResolver, type CustomAuthSpec } from './custom-auth.js';
import { routeOptions, virtualHostOptions } from './route-options.js';
import { headerSecretLookup } from './header-secrets.js';
import { http2Problem, routeExtProc } from './ext-proc.js';
import { bufferPerRoute } from './gateway-http-options.js';
import { downstreamTls } from './tls.js';
import type { ResolveOptions } from './options.js';

/** One VirtualService on its own; what depends on the others is checked in `resolve`. */
export interface VirtualServiceResult {
  vh: VirtualHostIR;
  /** Upstreams its routes and remote JWKS send to, each once. Where each is used is found again (by resolving the VirtualService once more) only when one clashes with another of the same name: kept for every route of 10,000 VirtualServices, the fields were 15 MiB. */
  upstreams: UpstreamIR[];
  /** The RouteTables its routes delegate to, directly or not. */
  reached: Resource[];
  /** JWT provider names it produces, with their fields. */
  providers: { name: string; path: FieldPath }[];
}

/** An upstream a VirtualService sends to, with the field that names it (in the VirtualService, or in a RouteTable it delegates to). */
export interface UpstreamUse {
  path: FieldPath;
  origin: Origin;
  upstream: UpstreamIR;
}

export function resolveVirtualService(
  vs: Resource,
  lookups: Lookups,
  options: ResolveOptions,
  diagnostics: Diagnostic[],
): Omit<VirtualServiceResult, 'upstreams'> & { uses: UpstreamUse[] } {
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
  /** A gRPC server's Upstream (HTTP/2), which Envoy streams to: it becomes a cluster. */
  const grpcUpstream = (path: FieldPath, raw: Ref, from: Resource = vs): string | undefined => {
    const upstream = findUpstream(from, path, raw);
    if (!upstream) return undefined;
    const problem = http2Problem(upstream);
    if (problem) {
      diagnostics.push(fieldError('resolve', from.origin, path, problem.message, problem.hint));
      return undefined;
    }
    uses.push({ path, origin: from.origin, upstream });
    return upstream.name;
  };
  const requireRef = (
    path: FieldPath,
    kind: string,
    raw: Ref,
    hint: string,
    from: Resource = vs,
  ): NamespacedName | undefined => {
    const ref = refOf(raw, from);
    if (lookups.resource(kind, ref)) return ref;
    diagnostics.push(
      notFound(
        fieldError('resolve', from.origin, path, `${kind} ${showRef(ref)} not found`, hint),
        `${kind} ${showRef(ref)}`,
      ),
    );
    return undefined;
  };

  /** The AuthConfig a reference names, and whether it needs the request body; undefined after reporting why not. */
  const authConfigRef = (path: FieldPath, raw: Ref, from: Resource): ExtauthRefIR | undefined => {
    const ref = requireRef(
      path,
      'AuthConfig',
      raw,
      'define the AuthConfig (enterprise.gateway.example/v1) or fix the reference',
      from,
    );
    if (!ref) return undefined;
    const spec = lookups.resource('AuthConfig', ref)!.spec as unknown as AuthConfigSpec;
    const withBody = (spec.configs ?? []).some((c) => c.passThroughAuth?.http?.request?.passThroughBody);
    return { configRef: `${ref.namespace}.${ref.name}`, ...(withBody ? { withRequestBody: true } : {}) };
  };

  const customAuthOf = customAuthResolver(
    lookups,
    findUpstream,
    (path, owner, upstream) => uses.push({ path, origin: owner.origin, upstream }),
    diagnostics,
  );

  /** The cluster of a Gloo Destination (kube or upstream), or undefined after reporting why not. */
  const destinationCluster = (at: FieldPath, dest: DestinationSpec, from: Resource = vs): ClusterRefIR | undefined =>
    clusterOf(
      at,
      dest,
      from,
      lookups,
      findUpstream,
      (path, owner, upstream) => uses.push({ path, origin: owner.origin, upstream }),
      diagnostics,
    );

  // The virtual host's options, inline and from its VirtualHostOptions, each with where it is written.
  const hostSources = hostOptionSources(vs, host, [...base, 'options'], lookups, diagnostics);
  const hostOpts = Object.fromEntries(hostSources.map((o) => [o.key, o.value])) as VirtualHostOptionsSpec;
  const sourceOf = (key: keyof VirtualHostOptionsSpec) => hostSources.find((o) => o.key === key)!;
  // RBAC principals match the claims the virtual host's JWT providers verify.
  const hostProviders = Object.keys(hostOpts.jwt?.providers ?? {}).sort();

  const routes: RouteIR[] = [];
  const placed: Parameters<typeof shadowWarnings>[0] = [];
  // Delegated routes (RouteTables) are inlined in place; each is resolved in the resource that wrote it.
  const expanded = expandDelegation(vs, host.routes ?? [], [...base, 'routes'], lookups, diagnostics);
  expanded.routes.forEach(({ route, owner: from, path, matches, inherited, delegated, names }) => {
    let action: RouteIR['action'] | undefined;
    if (route.graphqlApiRef) {
      const ref = requireRef(
        [...path, 'graphqlApiRef'],
        'GraphQLApi',
        route.graphqlApiRef,
        'define the GraphQLApi (graphql.gateway.example/v1beta1) or fix the reference',
        from,
      );
      if (ref) action = { kind: 'graphql', api: `${ref.namespace}.${ref.name}` };
    } else if (route.redirectAction) {
      action = redirectAction(route.redirectAction, [...path, 'redirectAction'], from.origin, diagnostics);
    } else if (route.directResponseAction) {
      action = directResponse(route.directResponseAction, [...path, 'directResponseAction'], from.origin);
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
        const ref = requireRef(
          groupPath,
          'UpstreamGroup',
          route.routeAction!.upstreamGroup,
          'define the UpstreamGroup (gloo.gateway.example/v1) or fix the reference',
          from,
        );
        const group = ref && lookups.resource('UpstreamGroup', ref);
        if (!group) return;
        [owner, at, destinations] = [
          group,
          ['spec', 'destinations'],
          (group.spec as { destinations: typeof destinations }).destinations,
        ];
      }
      const clusters = weightedClusters(owner, at, destinations, destinationCluster, diagnostics, lookups);
      if (clusters) action = { kind: 'weighted', clusters };
    }
    if (matches)
      placed.push({
        path,
        origin: from.origin,
        matches: matches.map((match, j) => ({ match, path: route.matchers?.length ? [...path, 'matchers', j] : path })),
      });
    // Several matchers: any of them, as one Envoy route each with the same action, in the order written.
    const actionField = route.routeAction
      ? 'routeAction'
      : route.graphqlApiRef
        ? 'graphqlApiRef'
        : route.redirectAction
          ? 'redirectAction'
          : 'directResponseAction';
    /** Options written in `owner` (this route's resource, or one that delegates to it). */
    const optionsIn = (spec: RouteOptionsSpec | undefined, at: FieldPath, owner: Resource) =>
      routeOptions(
        spec,
        actionField,
        at,
        owner.origin,
        diagnostics,
        {
          upstream: (p: FieldPath, raw: Ref) => upstreamRef(p, raw, owner),
          authConfig: (p: FieldPath, raw: Ref) => authConfigRef(p, raw, owner),
          customAuth: (p: FieldPath, c: CustomAuthSpec) => customAuthOf(p, c, owner),
          grpcUpstream: (p: FieldPath, raw: Ref) => grpcUpstream(p, raw, owner),
          rbacPolicies: (p: FieldPath, spec: RbacPoliciesSpec) =>
            rbacPolicies(spec, owner.origin, p, hostProviders, diagnostics),
          headerSecret: headerSecretLookup(lookups, owner, diagnostics),
          rateLimits: (p: FieldPath, s: RateLimitOptionsSpec) =>
            resolveRateLimits(s, p, {
              lookups,
              diagnostics,
              owner,
              basicName: route.name === undefined ? undefined : `${name}/${route.name}`,
            }),
        },
        hostOpts.extauth?.configRef !== undefined,
      );
    const opts = withInherited(
      optionsIn(route.options, [...path, 'options'], from),
      inherited,
      actionField,
      optionsIn,
      delegated,
    );
    // Envoy's route name: the position keeps it unique; Gloo's route `name`s on the branch (outermost first) and a
    // delegated route's RouteTable let explain, access logs (%ROUTE_NAME%) and Envoy's admin say which route it is.
    const label = names.length > 0 ? `:${names.join('/')}` : '';
    const source = from === vs ? '' : ` (RouteTable ${from.namespace}/${from.name})`;
    if (action && matches && opts.ok)
      for (const match of matches)
        routes.push({
          name: `${name}/${routes.length}${label}${source}`,
          match,
          action,
          ...(opts.options ? { options: opts.options } : {}),
        });
  });
  diagnostics.push(...shadowWarnings(placed, vs.origin));

  const vh: VirtualHostIR = { name, namespace: vs.namespace, origin: vs.origin, domains: host.domains, routes };
  if (spec.displayName !== undefined) vh.displayName = spec.displayName;
  if (spec.sslConfig) vh.tls = downstreamTls(spec.sslConfig, vs, ['spec', 'sslConfig']);
  const providerNames: VirtualServiceResult['providers'] = [];
  const opts = hostOpts;
  for (const group of byOwner(hostSources)) {
    const hostOptions = virtualHostOptions(
      group.spec,
      group.path,
      group.owner.origin,
      diagnostics,
      headerSecretLookup(lookups, group.owner, diagnostics),
    );
    if (hostOptions.retries) vh.retries = hostOptions.retries;
    if (hostOptions.headers) vh.headers = hostOptions.headers;
    if (hostOptions.cors) vh.cors = hostOptions.cors;
    if (hostOptions.csrf) vh.csrf = hostOptions.csrf;
    if (hostOptions.localRateLimit) vh.localRateLimit = hostOptions.localRateLimit;
    const { extProc } = routeExtProc(
      group.spec,
      group.path,
      group.owner.origin,
      (p, raw) => grpcUpstream(p, raw, group.owner),
      diagnostics,
    );
    if (extProc) vh.extProc = { ...vh.extProc, ...extProc };
    if (group.spec.bufferPerRoute) vh.buffer = bufferPerRoute(group.spec.bufferPerRoute);
    for (const key of ['includeRequestAttemptCount', 'includeAttemptCountInResponse', 'virtualClusters'] as const)
      if (hostOptions[key] !== undefined) Object.assign(vh, { [key]: hostOptions[key] });
    // Each rate limit option comes from one resource (the shallow merge), so the groups' entries add up.
    const { limits } = resolveRateLimits(group.spec as RateLimitOptionsSpec, group.path, {
      lookups,
      diagnostics,
      owner: group.owner,
      basicName: name,
    });
    if (limits)
      vh.rateLimits = vh.rateLimits
        ? { ...vh.rateLimits, ...limits, entries: [...vh.rateLimits.entries, ...limits.entries] }
        : limits;
  }
  if (vh.cors && opts.corsPolicyMergeSettings?.exposeHeaders === 'UNION')
    vh.routes = withUnionExposeHeaders(vh.routes, vh.cors);
  if (opts.jwt) {
    const { owner: jwtOwner, path: jwtAt } = sourceOf('jwt');
    const providers: JwtProviderIR[] = [];
    const claims = claimHeaders(opts.jwt.providers, [...jwtAt, 'jwt', 'providers'], jwtOwner.origin, diagnostics);
    for (const [pname, p] of Object.entries(opts.jwt.providers)) {
      const path = [...jwtAt, 'jwt', 'providers', pname];
      const common = {
        name: `${name}.${pname}`,
        payloadKey: pname,
        issuer: p.issuer,
        origin: jwtOwner.origin,
        path,
        ...(p.tokenSource
          ? {
              tokenSource: {
                headers: (p.tokenSource.headers ?? []).map((h) => ({
                  name: h.header,
                  ...(h.prefix !== undefined ? { prefix: h.prefix } : {}),
                })),
                queryParams: p.tokenSource.queryParams ?? [],
              },
            }
          : {}),
        ...(p.keepToken ? { keepToken: true } : {}),
        ...(p.audiences ? { audiences: p.audiences } : {}),
        ...(p.clockSkewSeconds ? { clockSkewSeconds: p.clockSkewSeconds } : {}),
        ...(p.jwks.remote?.cacheDuration !== undefined ? { cacheDuration: p.jwks.remote.cacheDuration } : {}),
        ...(p.jwks.remote?.asyncFetch?.fastListener ? { fastListener: true } : {}),
        ...(claims.get(pname)?.length ? { claimsToHeaders: claims.get(pname)! } : {}),
        ...failedStatusKey(p.attachFailedStatusToMetadata, hostProviders, jwtOwner.origin, path, diagnostics),
      };
      providerNames.push({ name: common.name, path });
      if (p.jwks.local) {
        const converted = pemToJwks(p.jwks.local.key);
        if (converted.ok)
          providers.push({ ...common, jwks: { kind: 'local', keys: JSON.stringify({ keys: converted.keys }) } });
        else
          diagnostics.push(
            fieldError(
              'resolve',
              jwtOwner.origin,
              [...path, 'jwks', 'local', 'key'],
              `key ${converted.message}`,
              converted.hint,
            ),
          );
      } else {
        const remote = p.jwks.remote!;
        if (!isHttpUrl(remote.url)) {
          diagnostics.push(
            fieldError(
              'resolve',
              jwtOwner.origin,
              [...path, 'jwks', 'remote', 'url'],
              `"${remote.url}" is not an http or https URL`,
              'give the URL of the key set document, e.g. http://jwks.example/keys.json',
            ),
          );
        }
        const cluster = upstreamRef([...path, 'jwks', 'remote', 'upstreamRef'], remote.upstreamRef, jwtOwner);
        if (cluster) providers.push({ ...common, jwks: { kind: 'remote', url: remote.url, cluster } });
      }
    }
    const allow = allowMissing(opts.jwt);
    vh.jwt = { providers, ...(allow ? { allowMissing: allow } : {}) };
  }
  if (opts.rbac) {
    const { owner: rbacOwner, path: rbacAt } = sourceOf('rbac');
    vh.rbac = {
      policies: rbacPolicies(opts.rbac.policies, rbacOwner.origin, [...rbacAt, 'rbac'], hostProviders, diagnostics),
    };
  }
  const { owner: extauthOwner, path: extauthAt } = opts.extauth ? sourceOf('extauth') : { owner: vs, path: [] };
  if (opts.extauth?.configRef) {
    const extauth = authConfigRef([...extauthAt, 'extauth', 'configRef'], opts.extauth.configRef, extauthOwner);
    if (extauth) vh.extauth = extauth;
  } else if (opts.extauth?.customAuth) {
    const custom = customAuthOf([...extauthAt, 'extauth', 'customAuth'], opts.extauth.customAuth, extauthOwner);
    if (custom) vh.customAuth = custom;
  }
  return { vh, uses, reached: expanded.reached, providers: providerNames };
}

/** The virtual host's top-level options: its own, then those of the VirtualHostOptions it names. */
function hostOptionSources(
  vs: Resource,
  host: VirtualServiceSpec['virtualHost'],
  at: FieldPath,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): SourcedOption<keyof VirtualHostOptionsSpec>[] {
  const written = ownOptions(host.options, vs, at);
  const refsAt = [...at.slice(0, -1), 'optionsConfigRefs'];
  const delegated = delegatedOptions(
    'VirtualHostOption',
    host.optionsConfigRefs,
    refsAt,
    vs,
    written,
    lookups,
    diagnostics,
  );
  return [...written, ...delegated] as SourcedOption<keyof VirtualHostOptionsSpec>[];
}

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
