/**
 * What translation produces: Envoy resources and sidecar resources as proto3
 * JSON objects (snake_case field names, `@type` on Any, durations as "5s").
 * The verifier checks every one against the protos; xDS encodes them.
 */
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
  /** Admin interface of the static bootstrap. */
  adminPort: number;
}

export const DEFAULT_OPTIONS: CompileOptions = {
  listenerAddress: '0.0.0.0',
  listenerPort: 8080,
  clusterDomain: 'cluster.local',
  controlPlaneNamespace: 'sluice-system',
  extauthAddress: { host: 'extauth', port: 8083 },
  graphqlAddress: { host: 'graphql', port: 8084 },
  adminPort: 19000,
};

/** The whole translation result; every list is sorted by name. */
export interface CompiledOutput {
  listeners: Json[];
  routes: Json[];
  clusters: Json[];
  /** Compiled AuthConfigs (`sluice.extauth.v1.AuthConfig`), secrets resolved. */
  authConfigs: Json[];
  /** Compiled GraphQL APIs (`sluice.graphql.v1.GraphQLApi`). */
  graphqlApis: Json[];
}
