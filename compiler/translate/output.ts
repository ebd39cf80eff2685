/**
 * What translation produces: the xDS resource set, Envoy resources and
 * sidecar resources as proto3 JSON objects (snake_case field names, `@type`
 * on Any, durations as "5s"), keyed by resource name. The verifier checks it,
 * `serve` encodes and serves it as it is, emit inlines it into a static bootstrap.
 */
import { TYPE_URL } from '../../contract/names.js';

export type Json = { [key: string]: unknown };

export interface CompileOptions {
  /** Address and port of the one HTTP listener. */
  listenerAddress: string;
  listenerPort: number;
  /** `<service>.<namespace>.svc.<clusterDomain>` for kube clusters. */
  clusterDomain: string;
  /** Namespace that discovered Upstreams live in. */
  controlPlaneNamespace: string;
  /** host:port of the ext_authz sidecar. */
  extauthAddress: { host: string; port: number };
  /** host:port of the GraphQL sidecar. */
  graphqlAddress: { host: string; port: number };
  /** host:port of the rate limit sidecar (sluice-ratelimit). */
  ratelimitAddress: { host: string; port: number };
  /** Admin interface of the static bootstrap. */
  adminPort: number;
  /** The proxy of a fleet whose set `xds` is (Gateway proxyNames); absent: the only one. */
  proxy?: string;
  /** Mesh mode (mesh.ts): routes, clusters and HTTP filters for an Envoy whose listeners its team owns. */
  mesh?: MeshOptions;
  /** VHDS (vhds.ts): route configurations without their virtual hosts, which are served on their own (delta xDS only). */
  vhds?: boolean;
}

export interface MeshOptions {
  /** The one RouteConfiguration's name, which the team's connection manager asks RDS for. */
  routeConfigName: string;
  /** Put before every cluster, Secret and HTTP filter name, so none clashes with the team's own. */
  namePrefix: string;
}

export const DEFAULT_OPTIONS: CompileOptions = {
  listenerAddress: '0.0.0.0',
  listenerPort: 8080,
  clusterDomain: 'cluster.local',
  controlPlaneNamespace: 'sluice-system',
  extauthAddress: { host: 'extauth', port: 8083 },
  graphqlAddress: { host: 'graphql', port: 8084 },
  ratelimitAddress: { host: 'ratelimit', port: 8085 },
  adminPort: 19000,
};

/** The xDS resource set; each map is by resource name, in name order. */
export interface XdsSet {
  clusters: Map<string, Json>;
  /** ClusterLoadAssignments of the EDS clusters, by cluster name. */
  endpoints: Map<string, Json>;
  /** SDS Secrets (certificates with their private keys, CAs), by name; key material: never logged. */
  secrets: Map<string, Json>;
  /** Mesh mode's HTTP filters (ECDS TypedExtensionConfigs), by name; none otherwise. */
  extensionConfigs: Map<string, Json>;
  listeners: Map<string, Json>;
  routes: Map<string, Json>;
  /** With VHDS only: the route configurations' virtual hosts, by `<route configuration>/<virtual host>`, in the order of the route configurations and of each one's hosts. */
  virtualHosts: Map<string, Json>;
  /** Compiled AuthConfigs (`sluice.extauth.v1.AuthConfig`), secrets resolved. */
  authConfigs: Map<string, Json>;
  /** Compiled GraphQL APIs (`sluice.graphql.v1.GraphQLApi`). */
  graphqlApis: Map<string, Json>;
  /** The rate limit service's rules (`sluice.ratelimit.v1.RateLimitDomain`), by domain. */
  rateLimitDomains: Map<string, Json>;
}

export type XdsKind = keyof XdsSet;

/** Each kind of the set: its type URL and message type, in ADS order (make before break: clusters, endpoints, secrets, HTTP filters, listeners, routes, virtual hosts, then the sidecars' types). */
export const XDS_KINDS: ReadonlyArray<{ kind: XdsKind; typeUrl: string; messageType: string; label: string }> = [
  { kind: 'clusters', typeUrl: TYPE_URL.cluster, label: 'Cluster' },
  { kind: 'endpoints', typeUrl: TYPE_URL.endpoint, label: 'ClusterLoadAssignment' },
  { kind: 'secrets', typeUrl: TYPE_URL.secret, label: 'Secret' },
  { kind: 'extensionConfigs', typeUrl: TYPE_URL.extensionConfig, label: 'TypedExtensionConfig' },
  { kind: 'listeners', typeUrl: TYPE_URL.listener, label: 'Listener' },
  { kind: 'routes', typeUrl: TYPE_URL.route, label: 'RouteConfiguration' },
  { kind: 'virtualHosts', typeUrl: TYPE_URL.virtualHost, label: 'VirtualHost' },
  { kind: 'authConfigs', typeUrl: TYPE_URL.authConfig, label: 'AuthConfig' },
  { kind: 'graphqlApis', typeUrl: TYPE_URL.graphqlApi, label: 'GraphQLApi' },
  { kind: 'rateLimitDomains', typeUrl: TYPE_URL.rateLimitDomain, label: 'RateLimitDomain' },
].map((k) => ({ ...k, kind: k.kind as XdsKind, messageType: k.typeUrl.slice('type.googleapis.com/'.length) }));

/** Where Envoy gets RDS and EDS resources: the ADS stream it already has. */
export const ADS_CONFIG_SOURCE: Json = { ads: {}, resource_api_version: 'V3' };

export function emptyXdsSet(): XdsSet {
  return {
    clusters: new Map(),
    endpoints: new Map(),
    secrets: new Map(),
    extensionConfigs: new Map(),
    listeners: new Map(),
    routes: new Map(),
    virtualHosts: new Map(),
    authConfigs: new Map(),
    graphqlApis: new Map(),
    rateLimitDomains: new Map(),
  };
}
