/**
 * The compiled GraphQL API contract (sluice/graphql/v1/graphql_api.proto) as
 * TypeScript: what the compiler's IR holds and what sluice-graphql reads back
 * from its configuration. One definition for both sides; they differ only in
 * how the descriptor set travels (`Descriptor`: base64 text in the compiler,
 * bytes in the sidecar).
 */

export interface HostPort {
  address: string;
  port: number;
}

/** Where sluice-graphql dials an upstream itself (it never goes through Envoy). */
export interface Target {
  /** The upstream's cluster name, for the sidecar's logs and metrics. */
  cluster: string;
  hosts: HostPort[];
}

export interface GrpcResolution {
  kind: 'grpc';
  serviceName: string;
  methodName: string;
  /** JSON with templates in its strings; undefined: an empty request message. */
  outgoingMessageJson?: unknown;
  requestMetadata: Record<string, string>;
  target: Target;
  /** 0: the sidecar's default deadline. */
  timeoutMs: number;
}

export interface RestResolution {
  kind: 'rest';
  target: Target;
  headers: Record<string, string>;
  queryParams: Record<string, string>;
  /** undefined: no body. */
  body?: unknown;
  resultRoot: string;
  setters: Record<string, string>;
  timeoutMs: number;
}

export type Resolution = GrpcResolution | RestResolution;

export interface RemoteExecutor {
  target: Target;
  headers: Record<string, string>;
  queryParams: Record<string, string>;
  spanName: string;
}

export interface ExecutableSchema<Descriptor> {
  schemaDefinition: string;
  enableIntrospection: boolean;
  /** Empty for a remote executor. */
  resolutions: Record<string, Resolution>;
  remote?: RemoteExecutor;
  /** A FileDescriptorSet; undefined: gRPC server reflection. */
  protoDescriptorBin?: Descriptor;
  /** 0: the sidecar's limit. */
  maxDepth: number;
}

export interface TypeMerge {
  selectionSet: string;
  queryName: string;
  args: Record<string, string>;
}

/** `<namespace>.<name>` of each merged GraphQLApi, with its type merging by type name. */
export interface StitchedSubschema {
  api: string;
  typeMerge: Record<string, TypeMerge>;
}
