/**
 * Translate: IR -> the xDS resource set. Pure: no I/O, and no diagnostics,
 * since every check a user can fail was done in resolve.
 * The core builds listener, routes and upstream clusters; each concern adds
 * its filter, per-virtual-host config and sidecar cluster.
 *
 * A TranslateMemo kept between runs makes an edit cost what it touches: the
 * output of a virtual host, upstream or sidecar resource is kept while its IR
 * object is the same (resolve keeps unchanged ones) and the same concerns are
 * in use, and the listener is kept while its filters' inputs are. Kept
 * messages are the same objects, which later stages (verify, encoding) key
 * their own caches on.
 */
import { compareText, sortedLike } from '../order.js';
import type {
  AuthConfigIR,
  EndpointSetIR,
  GraphQLApiIR,
  Model,
  RouteIR,
  UpstreamIR,
  VirtualHostIR,
} from '../ir/model.js';
import { loadAssignment, type ClusterPair } from './clusters.js';
import type { HttpFilterConcern } from './concern.js';
import { concernsFor } from './concerns.js';
import { compileAuthConfig } from './extauth/auth-config.js';
import { compileApi } from './filters/graphql.js';
import { rateLimitDomain } from './ratelimit-domains.js';
import type { RateLimitDomainIR } from '../ir/ratelimit.js';
import type { DestinationOptionsIR } from '../ir/destination-options.js';
import { JWT_FILTER_NAME, jwtFilter, jwtProvider, jwtRequirement } from './filters/jwt.js';
import { gatewayListeners } from './gateways.js';
import { collectorClusters } from './access-logs.js';
import { httpListener, listenerName } from './listener.js';
import { emptyXdsSet, type CompileOptions, type Json, type XdsSet } from './output.js';
import { routeConfiguration, virtualHost } from './routes.js';
import { secretResources } from './tls.js';
import { tunnelListeners, upstreamClusters } from './tunnel.js';

/** The concerns any virtual host uses; each host is asked once while its IR object is kept. */
function concernsInUse(model: Model, concerns: readonly HttpFilterConcern[], memo: TranslateMemo): HttpFilterConcern[] {
  let any = 0;
  for (const vh of model.virtualHosts) {
    let bits = memo.used.get(vh);
    if (bits === undefined) {
      bits = concerns.reduce((b, c, i) => (c.usedBy(vh) ? b | (1 << i) : b), 0);
      memo.used.set(vh, bits);
    }
    any |= bits;
  }
  return concerns.filter((_, i) => any & (1 << i));
}

/** A virtual host's output, for the concerns in use when it was made. */
interface VirtualHostEntry {
  usage: string;
  json: Json;
  /** Its jwt_authn providers and requirement, and their JSON text to compare with the last listener's. */
  jwt?: { providers: (readonly [string, Json])[]; requirement: Json; text: string };
}

export class TranslateMemo {
  readonly virtualHosts = new WeakMap<VirtualHostIR, VirtualHostEntry>();
  /** Which concerns each virtual host uses, one bit per concern (in the order of the concerns it was asked for). */
  used = new WeakMap<VirtualHostIR, number>();
  /** The concerns `used` was worked out for (their usage keys): a customAuth server added or changed shifts the bits. */
  concernKeys = '';
  readonly clusters = new WeakMap<UpstreamIR, ClusterPair[]>();
  readonly endpoints = new WeakMap<EndpointSetIR, Json>();
  readonly authConfigs = new WeakMap<AuthConfigIR, Json>();
  readonly graphqlApis = new WeakMap<GraphQLApiIR, Json>();
  readonly rateLimitDomains = new WeakMap<RateLimitDomainIR, Json>();
  /** Options are fixed for a memo, so a sidecar cluster never changes. */
  readonly sidecars = new Map<string, ClusterPair>();
  listener: { usage: string; jwt: string[]; filters: Json[]; json: Json } | undefined;
  /** The last run's clusters in name order, which this run's are sorted from. */
  clusterOrder: ClusterPair[] | undefined;
}

export function translate(
  model: Model,
  options: CompileOptions,
  memo = new TranslateMemo(),
  concerns: readonly HttpFilterConcern[] = concernsFor(model.virtualHosts, model.rateLimit?.server),
): XdsSet {
  const keys = concerns.map((c) => c.usageKey ?? c.filterName).join(',');
  if (memo.concernKeys !== keys) {
    memo.used = new WeakMap();
    memo.concernKeys = keys;
  }
  const inUse = concernsInUse(model, concerns, memo);
  const usage = inUse.map((c) => c.usageKey ?? c.filterName).join(',');
  const jwtInUse = inUse.some((c) => c.filterName === JWT_FILTER_NAME);

  const entries = model.virtualHosts.map((vh) => {
    let entry = memo.virtualHosts.get(vh);
    if (entry?.usage !== usage)
      memo.virtualHosts.set(vh, (entry = virtualHostEntry(vh, usage, inUse, concerns, jwtInUse)));
    return entry;
  });

  const set = emptyXdsSet();
  const jwtTexts = entries.flatMap((e) => (e.jwt ? [e.jwt.text] : []));
  let listener = memo.listener;
  if (
    !listener ||
    listener.usage !== usage ||
    listener.jwt.length !== jwtTexts.length ||
    listener.jwt.some((t, i) => t !== jwtTexts[i])
  ) {
    const filters = inUse.flatMap((c) => {
      if (c.filterName === JWT_FILTER_NAME)
        return [
          jwtFilter(
            model.virtualHosts.map((vh, i) => ({
              name: vh.name,
              providers: entries[i]!.jwt?.providers ?? [],
              requirement: entries[i]!.jwt?.requirement,
            })),
          ),
        ];
      return c.httpFilter ? [c.httpFilter()] : [];
    });
    listener = memo.listener = {
      usage,
      jwt: jwtTexts,
      filters,
      json: httpListener(options.listenerAddress, options.listenerPort, filters, listenerName(options.listenerPort)),
    };
  }
  if (model.gateways.length > 0) {
    gatewayListeners(
      set,
      model,
      entries.map((e) => e.json),
      listener.filters,
    );
  } else {
    set.listeners.set(listenerName(options.listenerPort), listener.json);
    set.routes.set(
      listenerName(options.listenerPort),
      routeConfiguration(
        listenerName(options.listenerPort),
        entries.map((e) => e.json),
      ),
    );
  }

  const secrets = new Map((model.secrets ?? []).map((s) => [s.name, s]));
  for (const secret of secrets.values())
    for (const json of secretResources(secret)) set.secrets.set(json.name as string, json);
  const clusters: ClusterPair[] = model.upstreams.flatMap((u) => {
    let pairs = memo.clusters.get(u);
    // A TLS cluster names what its Secret holds, which can change while the Upstream does not.
    if (!pairs || u.tls)
      memo.clusters.set(u, (pairs = upstreamClusters(u, u.tls?.secret ? secrets.get(u.tls.secret) : undefined)));
    return pairs;
  });
  clusters.push(...collectorClusters(model, secrets));
  tunnelListeners(set, model.upstreams);
  for (const c of inUse) {
    if (!c.sidecarCluster) continue;
    let pair = memo.sidecars.get(c.filterName);
    if (!pair) memo.sidecars.set(c.filterName, (pair = c.sidecarCluster(options)));
    clusters.push(pair);
  }
  memo.clusterOrder = sortedLike(clusters, memo.clusterOrder, (a, b) =>
    compareText(a.cluster.name as string, b.cluster.name as string),
  );
  for (const pair of memo.clusterOrder) {
    const name = pair.cluster.name as string;
    set.clusters.set(name, pair.cluster);
    if (pair.endpoints) set.endpoints.set(name, pair.endpoints);
  }
  // A Service's endpoints: their own assignment, made anew only when its endpoint set is new (an endpoint changed).
  for (const endpoints of model.endpoints ?? [])
    set.endpoints.set(endpoints.cluster, endpointAssignment(endpoints, memo));
  if (model.endpoints?.length) set.endpoints = new Map([...set.endpoints].sort(([a], [b]) => compareText(a, b)));
  for (const ac of [...model.authConfigs].sort(byName))
    set.authConfigs.set(ac.name, kept(memo.authConfigs, ac, compileAuthConfig));
  for (const api of [...model.graphqlApis].sort(byName))
    set.graphqlApis.set(api.name, kept(memo.graphqlApis, api, compileApi));
  for (const domain of model.rateLimit?.domains ?? [])
    set.rateLimitDomains.set(domain.domain, kept(memo.rateLimitDomains, domain, rateLimitDomain));
  return set;
}

/** A Service's ClusterLoadAssignment, kept while its endpoint set is the same object. */
export function endpointAssignment(set: EndpointSetIR, memo: TranslateMemo): Json {
  return kept(memo.endpoints, set, loadAssignment);
}

function byName(a: { name: string }, b: { name: string }): number {
  return compareText(a.name, b.name);
}

function kept<K extends object>(map: WeakMap<K, Json>, key: K, make: (k: K) => Json): Json {
  let json = map.get(key);
  if (!json) map.set(key, (json = make(key)));
  return json;
}

function virtualHostEntry(
  vh: VirtualHostIR,
  usage: string,
  inUse: readonly HttpFilterConcern[],
  concerns: readonly HttpFilterConcern[],
  jwtInUse: boolean,
): VirtualHostEntry {
  const perFilter = new Map<string, Json>();
  for (const c of inUse) {
    const config = c.perVirtualHost?.(vh);
    if (config) perFilter.set(c.filterName, config);
  }
  const headersToRemove = concerns.flatMap((c) => c.requestHeadersToRemove?.(vh) ?? []);
  const perRoute = (route: RouteIR) => {
    const configs: Json = {};
    for (const c of inUse) {
      const config = c.perRoute?.(route);
      if (config) configs[c.filterName] = config;
    }
    return configs;
  };
  const perDestination = (options: DestinationOptionsIR) => {
    const configs: Json = {};
    for (const c of inUse) {
      const config = c.perDestination?.(options);
      if (config) configs[c.filterName] = config;
    }
    return configs;
  };
  const entry: VirtualHostEntry = {
    usage,
    json: virtualHost(vh, perFilter, headersToRemove, perRoute, perDestination),
  };
  const requirement = jwtInUse ? jwtRequirement(vh) : undefined;
  if (requirement) {
    const providers = vh.jwt!.providers.map((p) => [p.name, jwtProvider(p)] as const);
    entry.jwt = { providers, requirement, text: JSON.stringify([vh.name, providers, requirement]) };
  }
  return entry;
}
