/** Virtual hosts and routes -> one Envoy RouteConfiguration. */
import {
  SIDECAR_CLUSTERS,
  type RedirectIR,
  type RouteIR,
  type RouteMatchIR,
  type RouteOptionsIR,
  type RetriesIR,
  type HeaderAddIR,
  type HeaderManipulationIR,
  type HashPolicyIR,
  type StringMatchIR,
  type VirtualHostIR,
  type RouteConfigIR,
} from '../ir/model.js';
import { GRAPHQL_API_HEADER } from '../../contract/names.js';
import type { DestinationOptionsIR } from '../ir/destination-options.js';
import { LB_METADATA } from './clusters.js';
import { hostRateLimits, withRouteRateLimits } from './filters/ratelimit.js';
import type { Json } from './output.js';
import { routeActionExtras, routeFieldExtras, virtualHostExtras } from './route-extras.js';

export const GRAPHQL_CLUSTER = SIDECAR_CLUSTERS.graphql;

function stringMatcher(m: StringMatchIR): Json {
  return m.kind === 'exact' ? { exact: m.value } : { safe_regex: { regex: m.value } };
}

/** envoy.config.route.v3.RouteMatch, as Gloo writes it (methods: one `:method` regex header, as Gloo does). */
function routeMatch(m: RouteMatchIR): Json {
  const path =
    m.path.kind === 'prefix'
      ? { prefix: m.path.value }
      : m.path.kind === 'exact'
        ? { path: m.path.value }
        : { safe_regex: { regex: m.path.value } };
  const headers: Json[] = m.headers.map((h) => ({
    name: h.name,
    ...(h.value ? { string_match: stringMatcher(h.value) } : { present_match: true }),
    ...(h.invert ? { invert_match: true } : {}),
  }));
  if (m.methods.length > 0)
    headers.push({ name: ':method', string_match: { safe_regex: { regex: m.methods.join('|') } } });
  const query = m.queryParameters.map((q) => ({
    name: q.name,
    ...(q.value ? { string_match: stringMatcher(q.value) } : { present_match: true }),
  }));
  return {
    ...path,
    ...(m.caseSensitive ? {} : { case_sensitive: false }),
    ...(headers.length > 0 ? { headers } : {}),
    ...(query.length > 0 ? { query_parameters: query } : {}),
  };
}

function redirect(r: RedirectIR): Json {
  return {
    redirect: {
      ...(r.https ? { https_redirect: true } : {}),
      ...(r.host !== undefined ? { host_redirect: r.host } : {}),
      ...(r.path?.kind === 'path' ? { path_redirect: r.path.value } : r.path ? { prefix_rewrite: r.path.value } : {}),
      ...(r.responseCode ? { response_code: r.responseCode } : {}),
      ...(r.stripQuery ? { strip_query: true } : {}),
    },
  };
}

function routeAction(route: RouteIR, perDestination: PerDestination): Json {
  if (route.action.kind === 'cluster')
    return { route: { cluster: route.action.cluster, ...metadataMatch(route.action.subset) } };
  if (route.action.kind === 'redirect') return redirect(route.action);
  if (route.action.kind === 'weighted')
    return {
      route: {
        weighted_clusters: {
          clusters: route.action.clusters.map((c) => ({
            name: c.cluster,
            weight: c.weight,
            ...metadataMatch(c.subset),
            ...headerLists(c.options?.headers),
            ...routeFilterConfigs(c.options ? perDestination(c.options) : {}),
          })),
        },
      },
    };
  if (route.action.kind === 'direct')
    return {
      direct_response: {
        status: route.action.status,
        ...(route.action.body !== undefined ? { body: { inline_string: route.action.body } } : {}),
      },
    };
  return {
    route: { cluster: GRAPHQL_CLUSTER },
    // A client-sent copy must never pick the API: Envoy removes before it adds at one level.
    request_headers_to_remove: [GRAPHQL_API_HEADER],
    request_headers_to_add: [
      { header: { key: GRAPHQL_API_HEADER, value: route.action.api }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
    ],
  };
}

/** A destination's subset: the endpoint labels the subset load balancer picks by. */
export function metadataMatch(subset: Record<string, string> | undefined): Json {
  return subset ? { metadata_match: { filter_metadata: { [LB_METADATA]: subset } } } : {};
}

/** Gloo's retries.previousPriorities: Envoy's retry priority that moves retries off the priorities already tried. */
function previousPriorities(updateFrequency: number): Json {
  return {
    name: 'envoy.retry_priorities.previous_priorities',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.retry.priority.previous_priorities.v3.PreviousPrioritiesConfig',
      update_frequency: updateFrequency,
    },
  };
}

/** envoy.config.route.v3.RetryPolicy. Codes alone retry only with `retriable-status-codes` in retry_on, so it is added with them. */
function retryPolicy(r: RetriesIR): Json {
  const on = r.retryOn
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (r.retriableStatusCodes.length > 0 && !on.includes('retriable-status-codes')) on.push('retriable-status-codes');
  return {
    retry_on: on.join(','),
    num_retries: r.numRetries,
    ...(r.perTryTimeout !== undefined ? { per_try_timeout: r.perTryTimeout } : {}),
    ...(r.retriableStatusCodes.length > 0 ? { retriable_status_codes: r.retriableStatusCodes } : {}),
    ...(r.previousPrioritiesUpdateFrequency !== undefined
      ? { retry_priority: previousPriorities(r.previousPrioritiesUpdateFrequency) }
      : {}),
    ...(r.backOff
      ? {
          retry_back_off: {
            base_interval: r.backOff.baseInterval,
            ...(r.backOff.maxInterval ? { max_interval: r.backOff.maxInterval } : {}),
          },
        }
      : {}),
    ...(r.rateLimitedBackOff
      ? {
          rate_limited_retry_back_off: {
            reset_headers: r.rateLimitedBackOff.resetHeaders,
            ...(r.rateLimitedBackOff.maxInterval ? { max_interval: r.rateLimitedBackOff.maxInterval } : {}),
          },
        }
      : {}),
  };
}

/** RouteAction.RequestMirrorPolicy as Gloo writes it: the percentage in millionths. */
function mirrorPolicy(m: NonNullable<RouteOptionsIR['shadow']>): Json {
  return {
    cluster: m.cluster,
    runtime_fraction: { default_value: { numerator: Math.round(m.percentage * 10_000), denominator: 'MILLION' } },
    ...(m.disableShadowHostSuffixAppend ? { disable_shadow_host_suffix_append: true } : {}),
    ...(m.hostRewrite !== undefined ? { host_rewrite_literal: m.hostRewrite } : {}),
  };
}

/** envoy.config.route.v3.RouteAction.HashPolicy; a cookie with a ttl is set by Envoy when the request lacks it. */
function hashPolicy(h: HashPolicyIR): Json {
  const key =
    h.kind === 'header'
      ? { header: { header_name: h.name } }
      : h.kind === 'cookie'
        ? {
            cookie: {
              name: h.name,
              ...(h.ttl !== undefined ? { ttl: h.ttl } : {}),
              ...(h.path !== undefined ? { path: h.path } : {}),
            },
          }
        : { connection_properties: { source_ip: true } };
  return { ...key, ...(h.terminal ? { terminal: true } : {}) };
}

/** Envoy's HeaderValueOption of a header added (append false overwrites). */
export function headerValueOption(x: HeaderAddIR): Json {
  return {
    header: { key: x.key, value: x.value },
    append_action: x.append ? 'APPEND_IF_EXISTS_OR_ADD' : 'OVERWRITE_IF_EXISTS_OR_ADD',
  };
}

/** Request and response header lists of a route or virtual host (Gloo's headerManipulation). */
function headerLists(h: HeaderManipulationIR | undefined): Json {
  if (!h) return {};
  const add = (list: HeaderAddIR[]) => list.map(headerValueOption);
  return {
    ...(h.requestAdd.length > 0 ? { request_headers_to_add: add(h.requestAdd) } : {}),
    ...(h.requestRemove.length > 0 ? { request_headers_to_remove: h.requestRemove } : {}),
    ...(h.responseAdd.length > 0 ? { response_headers_to_add: add(h.responseAdd) } : {}),
    ...(h.responseRemove.length > 0 ? { response_headers_to_remove: h.responseRemove } : {}),
  };
}

/** Route options: the forwarding ones live in the RouteAction (resolve allows them only where there is one); header lists on the route, before Sluice's own. */
function withOptions(action: Json, options: RouteOptionsIR | undefined): Json {
  if (!options) return action;
  const extra = {
    ...(options.prefixRewrite !== undefined ? { prefix_rewrite: options.prefixRewrite } : {}),
    ...(options.regexRewrite
      ? {
          regex_rewrite: {
            pattern: { regex: options.regexRewrite.pattern },
            substitution: options.regexRewrite.substitution,
          },
        }
      : {}),
    ...(options.hostRewrite !== undefined ? { host_rewrite_literal: options.hostRewrite } : {}),
    ...(options.autoHostRewrite !== undefined ? { auto_host_rewrite: options.autoHostRewrite } : {}),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    ...(options.retries ? { retry_policy: retryPolicy(options.retries) } : {}),
    ...(options.upgrades
      ? { upgrade_configs: options.upgrades.map((u) => ({ upgrade_type: u.type, enabled: u.enabled })) }
      : {}),
    ...(options.hashPolicies ? { hash_policy: options.hashPolicies.map(hashPolicy) } : {}),
    ...(options.shadow ? { request_mirror_policies: [mirrorPolicy(options.shadow)] } : {}),
    ...routeActionExtras(options),
  };
  const out: Json = action.route ? { ...action, route: { ...(action.route as Json), ...extra } } : { ...action };
  for (const [field, values] of Object.entries(headerLists(options.headers)))
    out[field] = [...(values as unknown[]), ...((action[field] as unknown[] | undefined) ?? [])];
  return out;
}

/** A weighted destination's own per-filter configs, by filter name, in chain order. */
type PerDestination = (options: DestinationOptionsIR) => Json;

/** `perRoute`: a route's own per-filter configs, by filter name, in chain order; `perDestination`: a weighted destination's. */
export function virtualHost(
  vh: VirtualHostIR,
  perFilter: Map<string, Json>,
  headersToRemove: string[],
  perRoute: (route: RouteIR) => Json,
  perDestination: PerDestination,
): Json {
  return {
    name: vh.name,
    domains: vh.domains,
    routes: vh.routes.map((r) => ({
      name: r.name,
      match: routeMatch(r.match),
      ...withRouteRateLimits(withOptions(routeAction(r, perDestination), r.options), vh, r),
      ...routeFieldExtras(r.options),
      ...routeFilterConfigs(perRoute(r)),
    })),
    ...withHostHeaders(headerLists(vh.headers), headersToRemove),
    ...(vh.retries ? { retry_policy: retryPolicy(vh.retries) } : {}),
    ...virtualHostExtras(vh),
    ...hostRateLimits(vh),
    ...(perFilter.size > 0 ? { typed_per_filter_config: Object.fromEntries(perFilter) } : {}),
  };
}

function routeFilterConfigs(configs: Json): Json {
  return Object.keys(configs).length > 0 ? { typed_per_filter_config: configs } : {};
}

/** The virtual host's header lists: the user's, then the headers Sluice always strips. */
function withHostHeaders(user: Json, headersToRemove: string[]): Json {
  const remove = [...((user.request_headers_to_remove as string[] | undefined) ?? []), ...headersToRemove];
  return { ...user, ...(remove.length > 0 ? { request_headers_to_remove: remove } : {}) };
}

/** `options`: a Gateway's routeOptions. */
export function routeConfiguration(name: string, virtualHosts: Json[], options: RouteConfigIR = {}): Json {
  return {
    name,
    virtual_hosts: virtualHosts,
    ...(options.maxDirectResponseBodySizeBytes !== undefined
      ? { max_direct_response_body_size_bytes: options.maxDirectResponseBodySizeBytes }
      : {}),
    ...(options.mostSpecificHeaderMutationsWins !== undefined
      ? { most_specific_header_mutations_wins: options.mostSpecificHeaderMutationsWins }
      : {}),
  };
}
