/**
 * GraphQL: routes with `graphqlApiRef` go to the graphql sidecar (see
 * ../routes.ts); this concern adds its cluster and the compiled APIs. It needs
 * no HTTP filter of its own.
 */
import type { GraphQLApiIR, Model, UpstreamIR } from '../../resolve/model.js';
import { sidecarCluster } from '../clusters.js';
import { emptyResult, type HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';
import { GRAPHQL_CLUSTER } from '../routes.js';

function target(upstream: UpstreamIR): Json {
  const hosts = upstream.target.kind === 'dns' ? [{ address: upstream.target.host, port: upstream.target.port }] : upstream.target.hosts;
  return { cluster: upstream.name, hosts };
}

function compileApi(api: GraphQLApiIR, upstreams: Map<string, UpstreamIR>): Json {
  if (api.executable) {
    const resolutions = Object.fromEntries(
      api.executable.resolutions.map((r) => [
        r.name,
        { service_name: r.serviceName, method_name: r.methodName, outgoing_message_json: r.outgoingMessageJson, target: target(upstreams.get(r.cluster)!) },
      ]),
    );
    return { name: api.name, executable: { schema_definition: api.executable.schemaDefinition, enable_introspection: api.executable.enableIntrospection, resolutions } };
  }
  const subschemas = api.stitched!.subschemas.map((s) => ({
    api: s.api,
    type_merge: Object.fromEntries(s.typeMerge.map((m) => [m.typeName, { selection_set: m.selectionSet, query_name: m.queryName, args: m.args }])),
  }));
  return { name: api.name, stitched: { subschemas } };
}

export const graphqlConcern: HttpFilterConcern = {
  filterName: 'sluice.graphql',
  translate(model: Model, options) {
    const result = emptyResult();
    const upstreams = new Map(model.upstreams.map((u) => [u.name, u]));
    result.graphqlApis = model.graphqlApis.map((api) => compileApi(api, upstreams));
    const routed = model.virtualHosts.some((vh) => vh.routes.some((r) => r.action.kind === 'graphql'));
    if (routed) result.clusters.push(sidecarCluster(GRAPHQL_CLUSTER, options.graphqlAddress, false));
    return result;
  },
};
