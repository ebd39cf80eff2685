/**
 * The router's part: the route's action (forward to a cluster, redirect, or
 * answer directly), rewrites, timeouts, header changes, and the cluster and
 * endpoints the request goes to. For routes to sluice-graphql, the API the
 * header names.
 */
import { GRAPHQL_API_HEADER } from '../../contract/names.js';
import type { Json } from '../translate/output.js';
import type { GatewayConfig } from './config.js';
import type { Outcome, Step } from './model.js';
import { pathOnly } from '../envoy/request.js';
import { routeActionDetails } from './route-action.js';
import { shownHeader, type SecretHeaderValues } from './secret-headers.js';
import { lbEndpoints, metadataMatch, pickSubset } from './subsets.js';

const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: router';

export interface DestinationResult {
  step: Step;
  outcome: Outcome;
  cluster?: string;
}

function headerChanges(
  holders: (Json | undefined)[],
  secrets: SecretHeaderValues,
): { add: string[]; remove: string[] } {
  const add: string[] = [];
  const remove: string[] = [];
  // In the order Envoy applies them: by default the weighted cluster's, then the route's, then the virtual host's, then the route configuration's.
  for (const h of holders) {
    for (const name of (h?.request_headers_to_remove as string[] | undefined) ?? []) remove.push(name);
    for (const a of (h?.request_headers_to_add as Json[] | undefined) ?? []) {
      const header = a.header as Json;
      add.push(shownHeader(header.key as string, header.value as string, secrets));
    }
  }
  return { add, remove };
}

/** The weighted cluster explain follows (the first) when `route` splits its requests; Envoy picks it before the HTTP filters run, and its per-filter configs and headers come first. */
export function shownCluster(route: Json): Json | undefined {
  return (
    ((route.route as Json | undefined)?.weighted_clusters as Json | undefined)?.clusters as Json[] | undefined
  )?.[0];
}

/** The endpoints (`host:port`) of cluster `name`, whose definition is `cluster`: its own load_assignment, else its EDS assignment. */
export function endpointsOf(cluster: Json, config: GatewayConfig, name: string): string[] {
  return lbEndpoints(cluster, config.endpoints.get(name)).map((e) => e.address);
}

/** The GraphQL API a route to sluice-graphql names (the header it sets), if it is one. */
export function graphqlApiOf(route: Json): string | undefined {
  const api = ((route.request_headers_to_add as Json[] | undefined) ?? [])
    .map((a) => a.header as Json)
    .find((h) => (h.key as string).toLowerCase() === GRAPHQL_API_HEADER);
  return api?.value as string | undefined;
}

export function destination(
  route: Json,
  vh: Json,
  routeConfig: Json,
  config: GatewayConfig,
  path: string,
  removedByFilters: string[],
  addedByFilters: Record<string, string>,
): DestinationResult {
  const step: Step = { stage: 'destination', summary: '', details: [], cite: CITE };
  if (route.direct_response) {
    const d = route.direct_response as Json;
    const body = ((d.body as Json | undefined)?.inline_string as string | undefined) ?? '';
    step.summary = `direct response ${String(d.status)}`;
    return { step, outcome: { status: Number(d.status), body, by: 'envoy' } };
  }
  if (route.redirect) {
    const r = route.redirect as Json;
    const code =
      { MOVED_PERMANENTLY: 301, FOUND: 302, SEE_OTHER: 303, TEMPORARY_REDIRECT: 307, PERMANENT_REDIRECT: 308 }[
        (r.response_code as string | undefined) ?? 'MOVED_PERMANENTLY'
      ] ?? 301;
    const scheme =
      r.https_redirect === true
        ? 'https://'
        : r.scheme_redirect !== undefined
          ? `${r.scheme_redirect as string}://`
          : '';
    const target = `${scheme}${(r.host_redirect as string | undefined) ?? ''}${(r.path_redirect as string | undefined) ?? ''}`;
    step.summary = `redirect ${code}${target ? ` to ${target}` : ''}`;
    if (r.prefix_rewrite !== undefined)
      step.details.push(`the matched prefix is replaced with ${JSON.stringify(r.prefix_rewrite)}`);
    if (r.strip_query === true) step.details.push('the query string is dropped');
    return { step, outcome: { status: code, body: '', by: 'envoy' } };
  }
  const action = route.route as Json;
  let cluster = action.cluster as string | undefined;
  let match = metadataMatch(action);
  if (!cluster && action.weighted_clusters) {
    const clusters = (action.weighted_clusters as Json).clusters as Json[];
    const weighted = clusters.map(
      (c) =>
        `${c.name as string}${metadataMatch(c) ? ` subset ${JSON.stringify(metadataMatch(c))}` : ''} (weight ${String(c.weight ?? 0)})`,
    );
    step.details.push(`weighted clusters: ${weighted.join(', ')}; the first is shown`);
    cluster = clusters[0]?.name as string;
    match = clusters[0] ? metadataMatch(clusters[0]) : undefined;
  }
  if (!cluster)
    throw new Error(
      `route ${String(route.name)}: explain does not know this route action (${Object.keys(action).join(', ')})`,
    );
  const c = config.clusters.get(cluster);
  if (!c) {
    step.summary = `cluster ${cluster} does not exist: 503`;
    return { step, cluster, outcome: { status: 503, body: '', by: 'envoy' } };
  }
  const picked = pickSubset(c, lbEndpoints(c, config.endpoints.get(cluster)), match);
  const endpoints = picked.endpoints.map((e) => `${e.address}${e.draining ? ' (draining)' : ''}`);
  const type = (c.type as string | undefined) ?? 'STATIC';
  step.summary = `cluster ${cluster} (${type}${type === 'STRICT_DNS' ? ', resolved by Envoy' : ''}${picked.how ? `, ${picked.how}` : ''}): ${endpoints.join(', ') || 'no endpoints'}`;
  if (picked.endpoints.some((e) => e.draining))
    step.details.push(
      "draining endpoints (terminating pods) get new requests only when fewer than half of the endpoints are healthy (Envoy's panic threshold); their open connections are not cut",
    );
  if (action.prefix_rewrite !== undefined)
    step.details.push(`path rewritten: prefix_rewrite ${JSON.stringify(action.prefix_rewrite)}`);
  if (action.regex_rewrite) step.details.push(`path rewritten: regex_rewrite ${JSON.stringify(action.regex_rewrite)}`);
  if (action.host_rewrite_literal)
    step.details.push(`host rewritten to ${JSON.stringify(action.host_rewrite_literal)}`);
  step.details.push(...routeActionDetails(action, vh));
  step.details.push(
    `upstream path ${JSON.stringify(pathOnly(path))}${path.length > pathOnly(path).length ? ' with the query string' : ''}`,
  );
  step.details.push(
    `timeout ${(action.timeout as string | undefined) ?? '15s (Envoy default)'}; connect timeout ${(c.connect_timeout as string | undefined) ?? '5s (Envoy default)'}`,
  );
  if (c.typed_extension_protocol_options) step.details.push('HTTP/2 to the upstream');
  // most_specific_header_mutations_wins: Envoy applies the levels the other way round, so the most specific one's overwrite wins.
  const reversed = routeConfig.most_specific_header_mutations_wins === true;
  const levels = [shownCluster(route), route, vh, routeConfig];
  const changes = headerChanges(reversed ? levels.reverse() : levels, config.secretHeaders);
  const removed = [...removedByFilters, ...changes.remove];
  const added = [...Object.entries(addedByFilters).map(([k, v]) => `${k}: ${v}`), ...changes.add];
  if (removed.length) step.details.push(`headers removed: ${[...new Set(removed)].join(', ')}`);
  if (added.length)
    step.details.push(
      `headers set: ${added.join('; ')}${reversed ? " (the route configuration's, virtual host's, route's, then the weighted destination's: most_specific_header_mutations_wins, so the most specific overwrite wins)" : ''}`,
    );
  const name = graphqlApiOf(route);
  if (name) {
    step.details.push(
      `GraphQL API ${name} (${GRAPHQL_API_HEADER}): ${config.graphqlApis.has(name) ? 'compiled and served to sluice-graphql' : 'NOT in the compiled APIs'}`,
    );
  }
  if (endpoints.length === 0)
    return { step, cluster, outcome: { status: 503, body: 'no healthy upstream', by: 'envoy' } };
  return { step, cluster, outcome: { status: 'upstream', by: cluster } };
}
