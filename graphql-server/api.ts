/**
 * The seams inside sluice-graphql. The server (server.ts, http.ts) parses,
 * validates and limits an operation, then hands it to an ExecutableApi; how
 * an API executes (local resolvers, a remote GraphQL upstream, a stitched
 * plan) is hidden behind that one interface. Resolver factories for gRPC and
 * REST build field resolvers from compiled resolutions.
 */
import type {
  DocumentNode,
  ExecutionResult,
  GraphQLArgument,
  GraphQLOutputType,
  GraphQLResolveInfo,
  GraphQLSchema,
} from 'graphql';
import type { Logger } from 'pino';
import type { ExecutableSchema, StitchedSubschema } from '../contract/graphql-api.js';
import type { Tracer } from '../runtime/tracing.js';

/** Compiled configuration (contract/proto/sluice/graphql/v1/graphql_api.proto), as parsed by config.ts: the contract's shapes. */
export type {
  HostPort,
  Target,
  GrpcResolution as GrpcResolverConfig,
  RestResolution as RestResolverConfig,
  Resolution as ResolutionConfig,
  RemoteExecutor as RemoteExecutorConfig,
  TypeMerge as TypeMergeConfig,
} from '../contract/graphql-api.js';

/** The descriptor set as bytes. */
export type ExecutableSchemaConfig = ExecutableSchema<Uint8Array>;

export interface StitchedSchemaConfig {
  subschemas: StitchedSubschema[];
  enableIntrospection: boolean;
}

export interface GraphQLApiConfig {
  /** `<namespace>.<name>` */
  name: string;
  logSensitiveInfo: boolean;
  /** Serve GraphiQL to a browser's GET on the API's path (./explorer.ts); absent: off. */
  explorer?: boolean;
  executable?: ExecutableSchemaConfig;
  stitched?: StitchedSchemaConfig;
}

/** Per request: what resolvers and executors may read. */
export interface RequestContext {
  /** Client request headers, lower-case names (for `{$headers.x}` templates). */
  headers: Record<string, string | string[] | undefined>;
  /**
   * Calls made within this operation, by a key naming the call and its
   * request: identical calls (same method, same message) are made once.
   */
  calls: Map<string, Promise<unknown>>;
  logger: Logger;
  /** Aborted when the client goes away. */
  signal?: ClientSignal;
}

/**
 * The part of an AbortSignal that executors use: an AbortSignal is one; the
 * HTTP server passes a lighter object of its own (one per request, with
 * listeners added and removed per upstream call).
 */
export interface ClientSignal {
  readonly aborted: boolean;
  /** Why it was aborted (an AbortError), once it is. */
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface ExecuteArgs {
  document: DocumentNode;
  /** The document's text as the client sent it (a remote executor forwards it as is). */
  query: string;
  variableValues?: Record<string, unknown> | null;
  operationName?: string | null;
  context: RequestContext;
}

/** A result as the HTTP server sends it: its JSON, and what the status code and metrics depend on. */
export interface WrittenResult {
  /** JSON.stringify of the ExecutionResult, byte for byte. */
  json: string;
  /** absent: the operation never ran (e.g. variables that do not coerce). */
  data: 'absent' | 'null' | 'present';
  hasErrors: boolean;
}

/** An ExecutionResult written by JSON.stringify. */
export function writeResult(result: ExecutionResult): WrittenResult {
  return {
    json: JSON.stringify(result),
    data: result.data === undefined ? 'absent' : result.data === null ? 'null' : 'present',
    hasErrors: !!result.errors?.length,
  };
}

/** One served API. */
export interface ExecutableApi {
  name: string;
  /** The client-facing schema: documents are validated against it. */
  schema: GraphQLSchema;
  enableIntrospection: boolean;
  execute(args: ExecuteArgs): Promise<ExecutionResult>;
  /** execute, the result written as JSON: an API that can write it cheaper than writeResult(execute()) gives it (the same bytes). */
  executeAndWrite?(args: ExecuteArgs): Promise<WrittenResult>;
  /** Releases channels and pools that no other API shares. */
  close?(): Promise<void>;
}

export type FieldResolver = (
  parent: unknown,
  args: Record<string, unknown>,
  context: RequestContext,
  info: GraphQLResolveInfo,
) => unknown;

/** The schema field a resolver factory builds a resolver for (local.ts passes it). */
export interface ResolverField {
  typeName: string;
  fieldName: string;
  returnType: GraphQLOutputType;
  args: readonly GraphQLArgument[];
}

/**
 * The field that names, in a line of `logger`, the API whose resolver or
 * executor speaks. A request's logger already names the API the request is
 * for (`api`, http.ts); when that is the API speaking, nothing is added; a
 * stitched API's subschema is named as `subschema` (a second `api` key would
 * leave readers one of the two).
 */
export function apiLogField(logger: Logger, api: string): { api?: string; subschema?: string } {
  const bound = (logger.bindings() as { api?: unknown }).api;
  return bound === undefined ? { api } : bound === api ? {} : { subschema: api };
}

/** A service shared by every API of one server; closed when the server stops. */
export interface SharedService {
  close?(): unknown;
}

/**
 * What resolver factories (createGrpcResolver, createRestResolver) and API
 * builders (buildRemoteApi, buildStitchedApi) get besides their config. One
 * object per API being built (registry.ts); `shared` spans the whole server.
 */
export interface ResolverDeps {
  /** `<namespace>.<name>` of the API being built (for logs and metrics). */
  api: string;
  /** Child logger with the API's name. */
  logger: Logger;
  /** The API's logSensitiveInfo: variables and upstream bodies may be logged at debug level. */
  logSensitiveInfo: boolean;
  /** Deadline of an upstream call whose config says 0 (`--upstream-timeout-ms`). */
  defaultTimeoutMs: number;
  /** The server's tracer (--otlp-endpoint): upstream calls are spans of the request's trace. Absent: off. */
  tracer?: Tracer;
  /** The API's executable.protoDescriptorBin: gRPC resolvers read message types from it instead of server reflection. */
  protoDescriptorBin?: Uint8Array;
  /**
   * Server-wide services (gRPC channel pool, descriptor sources, HTTP pools),
   * created by the first caller of a key and reused by every API and every
   * reconfiguration after; the server closes them on shutdown. Use a key per
   * kind of service, e.g. 'grpc.channels', 'rest.pools'.
   */
  shared<T extends SharedService>(key: string, create: () => T): T;
}
