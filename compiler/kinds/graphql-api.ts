/**
 * Gloo's GraphQLApi (graphql.proto): an executable schema whose resolvers
 * call REST or gRPC upstreams (or a remote GraphQL server), or a stitched
 * schema of other GraphQLApis. Resolve checks what the schema cannot say:
 * the SDL, templates, durations, exactly one resolver per resolution.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { kind, resourceRef } from './resource.js';
import {
  anyValue,
  boolean,
  duration,
  exactlyOne,
  mapOf,
  nonEmptyString,
  object,
  resourceName,
  string,
  stringMap,
  uint32,
} from './schema.js';

const spanName = () =>
  refused(
    "sluice-graphql's trace spans of resolver calls are named by their upstream (HTTP <method> <upstream>, gRPC <method>, docs/tracing.md); a name per resolver is not implemented",
  );
const statPrefix = () => refused('sluice-graphql labels its metrics with the API and resolution names');

const grpcResolver = object(
  {
    upstreamRef: resourceRef,
    requestTransform: object(
      {
        serviceName: nonEmptyString,
        methodName: nonEmptyString,
        // A map of template strings, or any JSON value (Gloo's google.protobuf.Value).
        outgoingMessageJson: anyValue,
        requestMetadata: stringMap,
      },
      ['serviceName', 'methodName'],
    ),
    timeout: duration,
    spanName: spanName(),
  },
  ['upstreamRef', 'requestTransform'],
);

const restResolver = object(
  {
    upstreamRef: resourceRef,
    request: object({ headers: stringMap, queryParams: stringMap, body: anyValue }),
    response: object({ resultRoot: string, setters: stringMap }),
    timeout: duration,
    spanName: spanName(),
  },
  ['upstreamRef'],
);

// Exactly one resolver per resolution is checked by resolve.
const resolution = object({
  grpcResolver,
  restResolver,
  mockResolver: refused(
    'sluice-graphql only calls real upstreams',
    'point a restResolver or grpcResolver at a test upstream',
  ),
  statPrefix: statPrefix(),
});
const resolutions = mapOf(resolution);

const descriptorInline =
  'inline the descriptor set as protoDescriptorBin: `protoc --include_imports --descriptor_set_out=/dev/stdout x.proto | base64 -w0`';

// Both executors, or resolutions in both places, are reported by resolve with the reason.
const executableSchema = object(
  {
    schemaDefinition: nonEmptyString,
    executor: object({
      local: object({ resolutions, enableIntrospection: boolean, options: object({ maxDepth: uint32 }) }),
      remote: object({ upstreamRef: resourceRef, headers: stringMap, queryParams: stringMap, spanName: string }, [
        'upstreamRef',
      ]),
    }),
    resolutions: note(resolutions, 'also accepted beside executor.local'),
    grpcDescriptorRegistry: object({
      protoDescriptorBin: string,
      protoDescriptor: refused(
        'it names a file on the gateway, and sluice-graphql reads no files named by resources',
        descriptorInline,
      ),
      protoRefsList: refused('the compiler reads no ConfigMaps', descriptorInline),
    }),
  },
  ['schemaDefinition'],
);

const typeMerge = object({ selectionSet: nonEmptyString, queryName: nonEmptyString, args: stringMap }, [
  'selectionSet',
  'queryName',
]);

const stitchedSchema = object(
  {
    subschemas: Type.Array(
      object({ name: resourceName, namespace: resourceName, typeMerge: mapOf(typeMerge) }, ['name']),
      { minItems: 1 },
    ),
  },
  ['subschemas'],
);

const graphqlApiSpec = object(
  {
    executableSchema,
    stitchedSchema,
    options: object({
      logSensitiveInfo: boolean,
      explorer: note(
        object({ enabled: boolean }),
        "Sluice's own field (Gloo's explorer is in its enterprise UI): sluice-graphql serves GraphiQL to a browser's GET on the API's path; off unless enabled",
      ),
    }),
    statPrefix: statPrefix(),
    persistedQueryCacheConfig: refused(
      'sluice-graphql executes the query text each request carries (no persisted queries)',
    ),
    allowedQueryHashes: refused(
      'sluice-graphql does not check query hashes',
      'limit what clients may do with RBAC on the route',
    ),
  },
  [],
  exactlyOne('executableSchema', 'stitchedSchema'),
);

export const GRAPHQL_API = kind(
  'graphql.gateway.example/v1beta1',
  'GraphQLApi',
  graphqlApiSpec,
  'graphql.gloo.solo.io/v1beta1',
);

export type GraphQLApiSpec = Static<typeof graphqlApiSpec>;
export type ExecutableSchemaSpec = Static<typeof executableSchema>;
export type StitchedSchemaSpec = Static<typeof stitchedSchema>;
export type ResolutionSpec = Static<typeof resolution>;
export type GrpcResolverSpec = Static<typeof grpcResolver>;
export type RestResolverSpec = Static<typeof restResolver>;
