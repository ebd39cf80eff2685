/**
 * The typed intermediate model between resolve and translate. Every reference
 * is already resolved: translators never look anything up by name except in
 * these structures, and never do I/O.
 */
import type { Origin } from '../diagnostics.js';

export interface NamespacedName {
  name: string;
  namespace: string;
}

/** An upstream as Envoy will see it: one cluster. */
export interface UpstreamIR {
  /** Cluster name: the Upstream's name (`<namespace>-<service>-<port>` for discovered ones). */
  name: string;
  namespace: string;
  origin: Origin;
  target:
    | { kind: 'dns'; host: string; port: number }
    | { kind: 'static'; hosts: { address: string; port: number }[] };
  /** Speak HTTP/2 to the upstream (gRPC services). */
  http2?: boolean;
}

export type RouteActionIR =
  | { kind: 'cluster'; cluster: string }
  /** Routed to the graphql sidecar with `x-sluice-graphql-api: <namespace>.<name>`. */
  | { kind: 'graphql'; api: string };

export interface RouteIR {
  /** `<vhost>/<index>`, stable for goldens. */
  name: string;
  prefix: string;
  action: RouteActionIR;
}

export type JwksIR =
  | { kind: 'local'; pem: string }
  | { kind: 'remote'; url: string; cluster: string };

export interface JwtProviderIR {
  /** `<namespace>.<vs>.<provider>` */
  name: string;
  issuer: string;
  jwks: JwksIR;
  origin: Origin;
  /** Field path of this provider inside its VirtualService, for diagnostics. */
  path: ReadonlyArray<string | number>;
}

export interface RbacPolicyIR {
  name: string;
  /** Empty means any method. */
  methods: string[];
  pathPrefix?: string;
  principals: { claims: Record<string, string> }[];
  origin: Origin;
  path: ReadonlyArray<string | number>;
}

export interface VirtualHostIR {
  /** `<namespace>.<name>` of the VirtualService. */
  name: string;
  namespace: string;
  origin: Origin;
  displayName?: string;
  domains: string[];
  routes: RouteIR[];
  jwt?: { providers: JwtProviderIR[] };
  rbac?: { policies: RbacPolicyIR[] };
  /** `<namespace>.<name>` of the AuthConfig. */
  extauth?: { configRef: string };
}

export interface LdapIR {
  address: string;
  userDnTemplate: string;
  allowedGroups: string[];
  searchFilter: string;
  membershipAttributeName: string;
  /** Present when checkGroupsWithServiceAccount is true: credentials resolved from the Secret. */
  serviceAccount?: { username: string; password: string };
  pool: { initialSize: number; maxSize: number };
}

export interface AuthConfigIR {
  /** `<namespace>.<name>` */
  name: string;
  origin: Origin;
  ldap: LdapIR[];
}

export interface GrpcResolutionIR {
  name: string;
  serviceName: string;
  methodName: string;
  outgoingMessageJson: Record<string, string>;
  cluster: string;
}

export interface TypeMergeIR {
  typeName: string;
  selectionSet: string;
  queryName: string;
  args: Record<string, string>;
}

export interface GraphQLApiIR {
  /** `<namespace>.<name>` */
  name: string;
  origin: Origin;
  executable?: {
    schemaDefinition: string;
    enableIntrospection: boolean;
    resolutions: GrpcResolutionIR[];
  };
  stitched?: {
    subschemas: { api: string; typeMerge: TypeMergeIR[] }[];
  };
}

export interface Model {
  /** In a stable order: by namespace, then name. */
  virtualHosts: VirtualHostIR[];
  /** Only upstreams something refers to, sorted by name. */
  upstreams: UpstreamIR[];
  authConfigs: AuthConfigIR[];
  graphqlApis: GraphQLApiIR[];
}
