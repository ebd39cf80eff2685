/**
 * Global rate limits: one envoy.filters.http.ratelimit per Gloo domain and
 * stage in use (ratelimitBasic: ingress, ratelimit actions: custom,
 * RateLimitConfigs: solo.io; each before or after authentication), calling
 * the rate limit service over gRPC with Gloo's Settings ratelimitServer
 * (timeout, failure mode, x-ratelimit headers). Envoy sends a filter only
 * the virtual host's or route's rate_limits of its stage, so the stage
 * number ties each descriptor to its domain's filter. A route's own limits
 * replace its virtual host's option by option (Gloo's inheritance), so a
 * route with any writes its virtual host's remaining ones too.
 */
import { SIDECAR_CLUSTERS, type RouteIR, type VirtualHostIR } from '../../ir/model.js';
import type {
  RateLimitActionIR,
  RateLimitDomainName,
  RateLimitHeaderMatchIR,
  RateLimitIR,
  RateLimitServerIR,
} from '../../ir/ratelimit.js';
import { sidecarCluster } from '../clusters.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const RATELIMIT_FILTER_NAME = 'envoy.filters.http.ratelimit';
const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit';

/** Envoy stage of each domain, after and before authentication (Gloo's 1 and 3 for custom). */
const STAGES: Record<RateLimitDomainName, [regular: number, early: number]> = {
  ingress: [0, 4],
  custom: [1, 3],
  'solo.io': [2, 5],
};
export const stageOf = (domain: RateLimitDomainName, early: boolean): number => STAGES[domain][early ? 1 : 0];
/** The filter of one domain and stage. */
export const rateLimitFilterName = (domain: RateLimitDomainName, early: boolean) =>
  `${RATELIMIT_FILTER_NAME}.${domain}${early ? '.early' : ''}`;

/** A route's limits as Envoy applies them: its own and those of its virtual host it did not replace; none: the host's. */
export function routeEntries(vh: VirtualHostIR, route: RouteIR): RateLimitIR[] | undefined {
  const own = route.options?.rateLimits;
  if (!own) return undefined;
  const replaced = new Set(own.entries.map((e) => e.option));
  const kept = (vh.rateLimits?.entries ?? []).filter(
    (e) => !replaced.has(e.option) || own.includeVh?.includes(e.option),
  );
  return [...own.entries, ...kept];
}

function headerMatcher(h: RateLimitHeaderMatchIR): Json {
  const m = h.match;
  const spec =
    m.kind === 'range'
      ? { range_match: { start: String(m.start), end: String(m.end) } }
      : m.kind === 'present'
        ? { present_match: m.present }
        : { string_match: m.kind === 'regex' ? { safe_regex: { regex: m.value } } : { [m.kind]: m.value } };
  return { name: h.name, ...spec, ...(h.invert ? { invert_match: true } : {}) };
}

/** envoy.config.route.v3.RateLimit.Action. */
function action(a: RateLimitActionIR): Json {
  switch (a.kind) {
    case 'sourceCluster':
      return { source_cluster: {} };
    case 'destinationCluster':
      return { destination_cluster: {} };
    case 'remoteAddress':
      return { remote_address: {} };
    case 'genericKey':
      return { generic_key: { descriptor_value: a.value } };
    case 'requestHeaders':
      return {
        request_headers: {
          header_name: a.header,
          descriptor_key: a.key,
          ...(a.skipIfAbsent ? { skip_if_absent: true } : {}),
        },
      };
    case 'headerValueMatch':
      return {
        header_value_match: {
          descriptor_value: a.value,
          expect_match: a.expectMatch,
          headers: a.headers.map(headerMatcher),
        },
      };
    case 'metadata':
      return {
        metadata: {
          descriptor_key: a.key,
          metadata_key: { key: a.metadataKey, path: a.path.map((key) => ({ key })) },
          ...(a.defaultValue !== undefined ? { default_value: a.defaultValue } : {}),
          source: a.source,
        },
      };
  }
}

const rateLimits = (entries: readonly RateLimitIR[]): Json[] =>
  entries.map((e) => ({
    stage: stageOf(e.domain, e.early),
    actions: e.actions.map(action),
    ...(e.limitOverride
      ? {
          limit: {
            dynamic_metadata: {
              metadata_key: { key: e.limitOverride.metadataKey, path: e.limitOverride.path.map((key) => ({ key })) },
            },
          },
        }
      : {}),
  }));

/** A virtual host's `rate_limits`. */
export function hostRateLimits(vh: VirtualHostIR): Json {
  return vh.rateLimits?.entries.length ? { rate_limits: rateLimits(vh.rateLimits.entries) } : {};
}

/** A route action with the route's `rate_limits` (routes without a RouteAction have none: resolve refuses theirs). */
export function withRouteRateLimits(routeJson: Json, vh: VirtualHostIR, route: RouteIR): Json {
  const entries = routeEntries(vh, route);
  if (!entries?.length || !routeJson.route) return routeJson;
  return { ...routeJson, route: { ...(routeJson.route as Json), rate_limits: rateLimits(entries) } };
}

function filter(server: RateLimitServerIR, domain: RateLimitDomainName, early: boolean): Json {
  const name = rateLimitFilterName(domain, early);
  return {
    name,
    typed_config: {
      '@type': TYPE,
      domain,
      stage: stageOf(domain, early),
      request_type: 'both',
      timeout: server.timeout,
      failure_mode_deny: server.denyOnFail,
      // An unreachable service is an outage, not a denial: 503 instead of Envoy's 500.
      ...(server.denyOnFail ? { status_on_error: { code: 'ServiceUnavailable' } } : {}),
      ...(server.xRateLimitHeaders ? { enable_x_ratelimit_headers: 'DRAFT_VERSION_03' } : {}),
      stat_prefix: name.slice(RATELIMIT_FILTER_NAME.length + 1),
      rate_limit_service: {
        grpc_service: {
          envoy_grpc: {
            cluster_name: server.cluster,
            ...(server.authority !== undefined ? { authority: server.authority } : {}),
          },
        },
        transport_api_version: 'V3',
      },
    },
  };
}

const usesStage = (entries: readonly RateLimitIR[] | undefined, domain: RateLimitDomainName, early: boolean) =>
  (entries ?? []).some((e) => e.domain === domain && e.early === early);

/** The filters of the domains and stages some virtual host or route uses: [before authentication, after]. */
export function rateLimitConcerns(
  virtualHosts: readonly VirtualHostIR[],
  server: RateLimitServerIR | undefined,
): { early: HttpFilterConcern[]; regular: HttpFilterConcern[] } {
  const out = { early: [] as HttpFilterConcern[], regular: [] as HttpFilterConcern[] };
  if (!server) return out;
  let first = true;
  for (const early of [true, false])
    for (const domain of ['ingress', 'custom', 'solo.io'] as const) {
      const usedBy = (vh: VirtualHostIR) =>
        usesStage(vh.rateLimits?.entries, domain, early) ||
        vh.routes.some((r) => usesStage(r.options?.rateLimits?.entries, domain, early));
      if (!virtualHosts.some(usedBy)) continue;
      const json = filter(server, domain, early);
      const withCluster = first && server.sidecar;
      first = false;
      (early ? out.early : out.regular).push({
        filterName: json.name as string,
        usageKey: JSON.stringify(json),
        usedBy,
        httpFilter: () => json,
        ...(withCluster
          ? { sidecarCluster: (options) => sidecarCluster(server.cluster, options.ratelimitAddress, true) }
          : {}),
      });
    }
  return out;
}

/** The server without Settings' ratelimitServer: sluice-ratelimit, Gloo's 100 ms, letting requests through when it fails. */
const SIDECAR_SERVER: RateLimitServerIR = {
  cluster: SIDECAR_CLUSTERS.ratelimit,
  sidecar: true,
  timeout: '0.100s',
  denyOnFail: false,
  beforeAuth: false,
  xRateLimitHeaders: false,
};

/**
 * Every domain and stage's filter, for mesh mode's fixed filter list: idle,
 * each asks sluice-ratelimit and never does, since no route sends a
 * descriptor of its stage (a filter in use comes from the translated chain,
 * with the Settings' server).
 */
export function idleRateLimitConcerns(): { early: HttpFilterConcern[]; regular: HttpFilterConcern[] } {
  const out = { early: [] as HttpFilterConcern[], regular: [] as HttpFilterConcern[] };
  for (const early of [true, false])
    for (const domain of ['ingress', 'custom', 'solo.io'] as const) {
      const json = filter(SIDECAR_SERVER, domain, early);
      (early ? out.early : out.regular).push({
        filterName: json.name as string,
        usedBy: () => false,
        idleFilter: () => json,
        sidecarCluster: (options) => sidecarCluster(SIDECAR_SERVER.cluster, options.ratelimitAddress, true),
      });
    }
  return out;
}
