/**
 * GraphQL: routes with `graphqlApiRef` go to the graphql sidecar (see
 * ../routes.ts); this concern adds its cluster, and compileApi the compiled
 * APIs. It needs no HTTP filter of its own.
 */
import type { ExecutableSchemaIR, GraphQLApiIR, ResolutionIR, TargetIR } from '../../ir/model.js';
import { sidecarCluster } from '../clusters.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';
import { GRAPHQL_CLUSTER } from '../routes.js';

/** JSON of sluice.graphql.v1.Target. */
function target(t: TargetIR): Json {
  return { cluster: t.cluster, hosts: t.hosts };
}

/** JSON of sluice.graphql.v1.Resolution; google.protobuf.Value fields stay plain JSON. */
function resolution(r: ResolutionIR): Json {
  if (r.kind === 'grpc') {
    const message = r.outgoingMessageJson === undefined ? {} : { outgoing_message_json: r.outgoingMessageJson };
    return {
      grpc: {
        service_name: r.serviceName,
        method_name: r.methodName,
        ...message,
        request_metadata: r.requestMetadata,
        target: target(r.target),
        timeout_ms: r.timeoutMs,
      },
    };
  }
  const body = r.body === undefined ? {} : { body: r.body };
  return {
    rest: {
      target: target(r.target),
      headers: r.headers,
      query_params: r.queryParams,
      ...body,
      result_root: r.resultRoot,
      setters: r.setters,
      timeout_ms: r.timeoutMs,
    },
  };
}

function executable(e: ExecutableSchemaIR): Json {
  const out: Json = {
    schema_definition: e.schemaDefinition,
    enable_introspection: e.enableIntrospection,
    resolutions: Object.fromEntries(Object.entries(e.resolutions).map(([name, r]) => [name, resolution(r)])),
    max_depth: e.maxDepth,
  };
  if (e.remote)
    out.remote = {
      target: target(e.remote.target),
      headers: e.remote.headers,
      query_params: e.remote.queryParams,
      span_name: e.remote.spanName,
    };
  if (e.protoDescriptorBin !== undefined) out.proto_descriptor_bin = e.protoDescriptorBin;
  return out;
}

/** JSON of sluice.graphql.v1.GraphQLApi (contract/proto/sluice/graphql/v1/graphql_api.proto). */
export function compileApi(api: GraphQLApiIR): Json {
  const out: Json = { name: api.name, log_sensitive_info: api.logSensitiveInfo };
  // Written only when on: proto3 JSON leaves false out, and so every API without it compiles as before.
  if (api.explorer) out.explorer = true;
  if (api.executable) out.executable = executable(api.executable);
  else {
    const subschemas = api.stitched!.subschemas.map((s) => ({
      api: s.api,
      type_merge: Object.fromEntries(
        Object.entries(s.typeMerge).map(([type, m]) => [
          type,
          { selection_set: m.selectionSet, query_name: m.queryName, args: m.args },
        ]),
      ),
    }));
    // Stitched APIs answer introspection, as Gloo's do.
    out.stitched = { subschemas, enable_introspection: true };
  }
  return out;
}

export const graphqlConcern: HttpFilterConcern = {
  filterName: 'sluice.graphql',
  usedBy: (vh) => vh.routes.some((r) => r.action.kind === 'graphql'),
  sidecarCluster: (options) => sidecarCluster(GRAPHQL_CLUSTER, options.graphqlAddress, false),
};
