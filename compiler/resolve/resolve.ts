/**
 * Resolve: validated resources -> the typed Model. Every reference is looked
 * up here; a dangling or conflicting one is an error on the resource that holds it.
 */
import { DEFAULT_MEMBERSHIP_ATTRIBUTE, DEFAULT_POOL_SIZE, DEFAULT_SEARCH_FILTER, ldapAddressProblem, quotableAddress, searchFilterProblem } from '../../protos/extauth-contract.js';
import { normalizeDn } from '../../protos/ldap-dn.js';
import { fieldError, quote, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { Resource } from '../validate/validate.js';
import { resolveGraphQLApis } from './graphql.js';
import { ResourceIndex, refOf, showRef, type FindUpstream, type Ref } from './index.js';
import type { AuthConfigIR, JwtProviderIR, LdapIR, Model, NamespacedName, RbacPolicyIR, RouteIR, UpstreamIR, VirtualHostIR } from './model.js';
import { buildUpstreamCatalog, type UpstreamCatalog } from './upstreams.js';
import { selectorProblems } from './upstream-selector.js';

export interface ResolveOptions {
  clusterDomain: string;
  controlPlaneNamespace: string;
}


interface VirtualServiceSpec {
  displayName?: string;
  virtualHost: {
    domains: string[];
    routes?: {
      matchers?: { prefix: string }[];
      routeAction?: { single: { kube?: { ref: Ref; port: number }; upstream?: Ref } };
      graphqlApiRef?: Ref;
    }[];
    options?: {
      jwt?: { providers: Record<string, { issuer: string; jwks: { local?: { key: string }; remote?: { url: string; upstreamRef: Ref } } }> };
      rbac?: { policies: Record<string, { permissions: { methods?: string[]; pathPrefix?: string }; principals?: { jwtPrincipal: { claims: Record<string, string> } }[] }> };
      extauth?: { configRef: Ref };
    };
  };
}

interface LdapSpec {
  address: string;
  userDnTemplate: string;
  allowedGroups: string[];
  searchFilter?: string;
  membershipAttributeName?: string;
  groupLookupSettings?: { checkGroupsWithServiceAccount?: boolean; credentialsSecretRef?: Ref };
  pool?: { initialSize?: number; maxSize?: number };
}

export const LDAP_DEFAULTS = { searchFilter: DEFAULT_SEARCH_FILTER, membershipAttributeName: DEFAULT_MEMBERSHIP_ATTRIBUTE, pool: DEFAULT_POOL_SIZE } as const;

export function resolve(resources: Resource[], options: ResolveOptions): { model: Model; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const index = new ResourceIndex(resources, diagnostics);
  // No silent widening: an Upstream's kube.selector must be its Service's own.
  diagnostics.push(...selectorProblems(index));
  const catalog = buildUpstreamCatalog(index, options.clusterDomain, options.controlPlaneNamespace);
  const used = new Map<string, UpstreamIR>();

  const useUpstream = (from: Resource, path: FieldPath, upstream: UpstreamIR): string => {
    const clash = used.get(upstream.name);
    if (clash && clash !== upstream) {
      diagnostics.push(fieldError('resolve', from.origin, path, `upstream ${upstream.namespace}/${upstream.name} and ${clash.namespace}/${clash.name} would both become cluster "${upstream.name}"`, 'give one of the Upstreams another name'));
    }
    used.set(upstream.name, upstream);
    return upstream.name;
  };

  /** The upstream a reference names; a dangling or ambiguous one is an error on `path`. */
  const findUpstream: FindUpstream = (from, path, raw) => {
    const ref = refOf(raw, from);
    const upstream = catalog.lookup(ref);
    if (Array.isArray(upstream)) {
      const services = upstream.map((u) => u.target.kind === 'dns' ? u.target.host : u.name).join(' and ');
      diagnostics.push(fieldError('resolve', from.origin, path, `Upstream name "${ref.name}" is discovered from more than one Service (${services})`, `route to the Service with routeAction.single.kube, or define an Upstream named "${ref.name}" in namespace "${options.controlPlaneNamespace}"`));
      return undefined;
    }
    if (!upstream) {
      diagnostics.push(fieldError('resolve', from.origin, path, `Upstream ${showRef(ref)} not found`, `define an Upstream (gloo.gateway.example/v1) named "${ref.name}" in namespace "${ref.namespace}", or a v1 Service whose port gives that discovered name (<namespace>-<service>-<port>)`));
      return undefined;
    }
    return upstream;
  };

  /** An upstream Envoy itself sends to: it becomes a cluster. */
  const upstreamRef = (from: Resource, path: FieldPath, raw: Ref): string | undefined => {
    const upstream = findUpstream(from, path, raw);
    return upstream && useUpstream(from, path, upstream);
  };

  const requireRef = (from: Resource, path: FieldPath, kind: string, raw: Ref, hint: string): NamespacedName | undefined => {
    const ref = refOf(raw, from);
    if (index.get(kind, ref)) return ref;
    diagnostics.push(fieldError('resolve', from.origin, path, `${kind} ${showRef(ref)} not found`, hint));
    return undefined;
  };

  const virtualHosts: VirtualHostIR[] = [];
  const domainOwners = new Map<string, Resource>();
  // Envoy's jwt_authn holds the providers of all virtual hosts in one map.
  const providerOwners = new Map<string, Resource>();
  for (const vs of index.all('VirtualService')) {
    const spec = vs.spec as unknown as VirtualServiceSpec;
    const host = spec.virtualHost;
    const base = ['spec', 'virtualHost'];
    const name = `${vs.namespace}.${vs.name}`;

    host.domains.forEach((domain, i) => {
      const owner = domainOwners.get(domain.toLowerCase());
      if (owner) {
        const where = owner === vs ? 'this VirtualService already lists it' : `VirtualService ${owner.namespace}/${owner.name} (${owner.origin.file}:${owner.origin.lineOf(['spec', 'virtualHost', 'domains'])}) already claims it`;
        diagnostics.push(fieldError('resolve', vs.origin, [...base, 'domains', i], `domain ${quote(domain)} is claimed twice: ${where}`, 'a domain may belong to one virtual host only; Envoy rejects duplicates'));
      } else {
        domainOwners.set(domain.toLowerCase(), vs);
      }
    });

    const routes: RouteIR[] = [];
    (host.routes ?? []).forEach((route, i) => {
      const path = [...base, 'routes', i];
      let action: RouteIR['action'] | undefined;
      if (route.graphqlApiRef) {
        const ref = requireRef(vs, [...path, 'graphqlApiRef'], 'GraphQLApi', route.graphqlApiRef, 'define the GraphQLApi (graphql.gateway.example/v1beta1) or fix the reference');
        if (ref) action = { kind: 'graphql', api: `${ref.namespace}.${ref.name}` };
      } else {
        const single = route.routeAction!.single;
        if (single.upstream) {
          const cluster = upstreamRef(vs, [...path, 'routeAction', 'single', 'upstream'], single.upstream);
          if (cluster) action = { kind: 'cluster', cluster };
        } else {
          const kube = single.kube!;
          const ref = refOf(kube.ref, vs);
          const found = catalog.servicePort(ref, kube.port);
          if (found.upstream) {
            action = { kind: 'cluster', cluster: useUpstream(vs, [...path, 'routeAction', 'single', 'kube'], found.upstream) };
          } else if (found.knownPorts) {
            diagnostics.push(fieldError('resolve', vs.origin, [...path, 'routeAction', 'single', 'kube', 'port'], `Service ${showRef(ref)} has no port ${kube.port}`, `its ports are ${found.knownPorts.join(', ') || 'none'}`));
          } else {
            diagnostics.push(fieldError('resolve', vs.origin, [...path, 'routeAction', 'single', 'kube', 'ref'], `Service ${showRef(ref)} not found`, 'define the v1 Service among the inputs, or route to an Upstream with routeAction.single.upstream'));
          }
        }
      }
      const matchers = route.matchers && route.matchers.length > 0 ? route.matchers : [{ prefix: '/' }];
      if (action) {
        for (const m of matchers) routes.push({ name: `${name}/${routes.length}`, prefix: m.prefix, action });
      }
    });

    const vh: VirtualHostIR = { name, namespace: vs.namespace, origin: vs.origin, domains: host.domains, routes };
    if (spec.displayName !== undefined) vh.displayName = spec.displayName;
    const opts = host.options ?? {};
    if (opts.jwt) {
      const providers: JwtProviderIR[] = [];
      for (const [pname, p] of Object.entries(opts.jwt.providers)) {
        const path = [...base, 'options', 'jwt', 'providers', pname];
        const common = { name: `${name}.${pname}`, issuer: p.issuer, origin: vs.origin, path };
        // Names may contain dots: VirtualService `a` with provider `b.c` and VirtualService `a.b` with
        // provider `c` would share one entry, and one host would verify tokens with the other's keys.
        const owner = providerOwners.get(common.name);
        if (owner) {
          diagnostics.push(fieldError('resolve', vs.origin, path, `JWT provider name "${common.name}" is also produced by VirtualService ${owner.namespace}/${owner.name}`, 'rename this provider (or the VirtualService) so that <namespace>.<virtualservice>.<provider> is unique'));
          continue;
        }
        providerOwners.set(common.name, vs);
        if (p.jwks.local) {
          providers.push({ ...common, jwks: { kind: 'local', pem: p.jwks.local.key } });
        } else {
          const remote = p.jwks.remote!;
          const cluster = upstreamRef(vs, [...path, 'jwks', 'remote', 'upstreamRef'], remote.upstreamRef);
          if (cluster) providers.push({ ...common, jwks: { kind: 'remote', url: remote.url, cluster } });
        }
      }
      vh.jwt = { providers };
    }
    if (opts.rbac) {
      const policies: RbacPolicyIR[] = Object.entries(opts.rbac.policies).map(([pname, p]) => ({
        name: pname,
        methods: p.permissions.methods ?? [],
        ...(p.permissions.pathPrefix !== undefined ? { pathPrefix: p.permissions.pathPrefix } : {}),
        principals: (p.principals ?? []).map((pr) => ({ claims: pr.jwtPrincipal.claims })),
        origin: vs.origin,
        path: [...base, 'options', 'rbac', 'policies', pname],
      }));
      vh.rbac = { policies };
    }
    if (opts.extauth) {
      const ref = requireRef(vs, [...base, 'options', 'extauth', 'configRef'], 'AuthConfig', opts.extauth.configRef, 'define the AuthConfig (enterprise.gateway.example/v1) or fix the reference');
      if (ref) vh.extauth = { configRef: `${ref.namespace}.${ref.name}` };
    }
    virtualHosts.push(vh);
  }

  const authConfigs: AuthConfigIR[] = index.all('AuthConfig').map((ac) => ({
    name: `${ac.namespace}.${ac.name}`,
    origin: ac.origin,
    ldap: ((ac.spec as { configs: { ldap: LdapSpec }[] }).configs ?? []).flatMap((c, i) => {
      const ldap = resolveLdap(ac, ['spec', 'configs', i, 'ldap'], c.ldap, index, diagnostics);
      return ldap ? [ldap] : [];
    }),
  }));

  // sluice-graphql dials its upstreams itself: they are looked up, but are no Envoy clusters.
  const graphqlApis = resolveGraphQLApis(index, findUpstream, diagnostics);

  const upstreams = [...used.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { model: { virtualHosts, upstreams, authConfigs, graphqlApis }, diagnostics };
}

function resolveLdap(ac: Resource, path: FieldPath, spec: LdapSpec, index: ResourceIndex, diagnostics: Diagnostic[]): LdapIR | undefined {
  let ok = true;
  const fail = (field: string, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, [...path, field], message, hint));
    ok = false;
  };
  const addressProblem = ldapAddressProblem(spec.address);
  if (addressProblem) fail('address', `${quote(quotableAddress(spec.address))} ${addressProblem}`, 'e.g. ldap://openldap:389 or ldaps://openldap:636');
  const filterProblem = spec.searchFilter === undefined ? undefined : searchFilterProblem(spec.searchFilter);
  if (filterProblem) fail('searchFilter', `${quote(spec.searchFilter!)} ${filterProblem}`, 'e.g. (uid=*) or (&(objectClass=person)(uid=%s)); %s is the escaped username');
  if (!spec.userDnTemplate.includes('%s')) fail('userDnTemplate', 'has no "%s" placeholder for the username', 'e.g. uid=%s,ou=people,dc=example,dc=org');
  spec.allowedGroups.forEach((group, i) => {
    // sluice-extauth compares memberOf values by this parse; an entry that fails it would match nobody.
    const canonical = normalizeDn(group);
    if (canonical === undefined) {
      diagnostics.push(fieldError('resolve', ac.origin, [...path, 'allowedGroups', i], `${quote(group)} is not a DN`, 'write the DN of a group entry, e.g. cn=developers,ou=groups,dc=example,dc=org; escape a literal , + " \\ < > ; = with a backslash'));
      ok = false;
    } else if (!canonical.includes(',')) {
      // `[cn=a,ou=groups,dc=x]` in YAML flow style is four one-RDN items, not one DN.
      diagnostics.push(fieldError('resolve', ac.origin, [...path, 'allowedGroups', i], `${quote(group)} is a single RDN, not the DN of a group entry`, "quote each DN in a YAML flow list ['cn=a,ou=groups,dc=example,dc=org'], or use one '- ' line per DN"));
      ok = false;
    }
  });
  const pool = { ...LDAP_DEFAULTS.pool, ...spec.pool };
  if (pool.initialSize > pool.maxSize) fail('pool', `initialSize ${pool.initialSize} is larger than maxSize ${pool.maxSize}`, 'lower initialSize or raise maxSize');

  const ldap: LdapIR = {
    address: spec.address,
    userDnTemplate: spec.userDnTemplate,
    allowedGroups: spec.allowedGroups,
    searchFilter: spec.searchFilter ?? LDAP_DEFAULTS.searchFilter,
    membershipAttributeName: spec.membershipAttributeName ?? LDAP_DEFAULTS.membershipAttributeName,
    pool,
  };
  const lookup = spec.groupLookupSettings;
  if (lookup?.checkGroupsWithServiceAccount) {
    const secretPath = [...path, 'groupLookupSettings', 'credentialsSecretRef'];
    if (!lookup.credentialsSecretRef) {
      diagnostics.push(fieldError('resolve', ac.origin, [...path, 'groupLookupSettings'], 'checkGroupsWithServiceAccount is true but credentialsSecretRef is missing', 'reference a Secret made with `sluice create secret authcredentials`'));
      return undefined;
    }
    const ref = refOf(lookup.credentialsSecretRef, ac);
    const secret = index.get('Secret', ref);
    if (!secret) {
      diagnostics.push(fieldError('resolve', ac.origin, secretPath, `Secret ${showRef(ref)} not found`, `create it with \`sluice create secret authcredentials --name ${ref.name} --namespace ${ref.namespace} --username <service account DN> --password <password>\` and add its output to the resources`));
      return undefined;
    }
    const username = secretValue(secret, 'username');
    const password = secretValue(secret, 'password');
    const missing = [username === undefined ? 'username' : '', password === undefined ? 'password' : ''].filter(Boolean);
    if (missing.length > 0) {
      diagnostics.push(fieldError('resolve', ac.origin, secretPath, `Secret ${showRef(ref)} has no ${missing.join(' or ')} key`, 'an authcredentials Secret holds "username" (a DN) and "password"'));
      return undefined;
    }
    // An empty password would be an unauthenticated bind, which LDAP servers accept as anonymous.
    const empty = [username === '' ? 'username' : '', password === '' ? 'password' : ''].filter(Boolean);
    if (empty.length > 0) {
      diagnostics.push(fieldError('resolve', ac.origin, secretPath, `Secret ${showRef(ref)} has an empty ${empty.join(' and ')}`, 'set the service account DN and its password in the Secret'));
      return undefined;
    }
    ldap.serviceAccount = { username: username!, password: password! };
  }
  return ok ? ldap : undefined;
}

/** A key of a Secret: `stringData` wins over base64 `data`, as the API server merges them. */
function secretValue(secret: Resource, key: string): string | undefined {
  const { data, stringData } = secret.value as { data?: Record<string, string>; stringData?: Record<string, string> };
  if (stringData && typeof stringData[key] === 'string') return stringData[key];
  if (data && typeof data[key] === 'string') return Buffer.from(data[key], 'base64').toString('utf8');
  return undefined;
}
