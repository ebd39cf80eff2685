/** Virtual hosts and routes -> one Envoy RouteConfiguration. */
import { SIDECAR_CLUSTERS, type RouteIR, type VirtualHostIR } from '../ir/model.js';
import { GRAPHQL_API_HEADER } from '../../protos/contract.js';
import type { Json } from './output.js';

export const GRAPHQL_CLUSTER = SIDECAR_CLUSTERS.graphql;

function routeAction(route: RouteIR): Json {
  if (route.action.kind === 'cluster') return { route: { cluster: route.action.cluster } };
  return {
    route: { cluster: GRAPHQL_CLUSTER },
    // A client-sent copy must never pick the API: Envoy removes before it adds at one level.
    request_headers_to_remove: [GRAPHQL_API_HEADER],
    request_headers_to_add: [{ header: { key: GRAPHQL_API_HEADER, value: route.action.api }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }],
  };
}

export function virtualHost(vh: VirtualHostIR, perFilter: Map<string, Json>, headersToRemove: string[]): Json {
  return {
    name: vh.name,
    domains: vh.domains,
    routes: vh.routes.map((r) => ({ name: r.name, match: { prefix: r.prefix }, ...routeAction(r) })),
    ...(headersToRemove.length > 0 ? { request_headers_to_remove: headersToRemove } : {}),
    ...(perFilter.size > 0 ? { typed_per_filter_config: Object.fromEntries(perFilter) } : {}),
  };
}

export function routeConfiguration(name: string, virtualHosts: Json[]): Json {
  return { name, virtual_hosts: virtualHosts };
}
