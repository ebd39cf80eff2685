/**
 * CORS: Envoy's cors filter, first in the chain so a preflight is answered
 * before authentication (as Gloo places it), with each virtual host's and
 * route's CorsPolicy as per-filter config. The most specific one applies
 * whole: a route's policy replaces its virtual host's.
 */
import type { CorsIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const CORS_FILTER_NAME = 'envoy.filters.http.cors';
const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.';
// Made once: a type URL built per virtual host is a string of its own in each.
const CORS_TYPE = `${TYPE}Cors`;
const CORS_POLICY_TYPE = `${TYPE}CorsPolicy`;

/** envoy.extensions.filters.http.cors.v3.CorsPolicy, as Gloo writes it (lists joined with commas). */
function corsPolicy(c: CorsIR): Json {
  return {
    '@type': CORS_POLICY_TYPE,
    ...(c.allowOrigins.length > 0
      ? {
          allow_origin_string_match: c.allowOrigins.map((o) =>
            o.kind === 'exact' ? { exact: o.value } : { safe_regex: { regex: o.value } },
          ),
        }
      : {}),
    ...(c.allowMethods.length > 0 ? { allow_methods: c.allowMethods.join(',') } : {}),
    ...(c.allowHeaders.length > 0 ? { allow_headers: c.allowHeaders.join(',') } : {}),
    ...(c.exposeHeaders.length > 0 ? { expose_headers: c.exposeHeaders.join(',') } : {}),
    ...(c.maxAge !== undefined ? { max_age: c.maxAge } : {}),
    ...(c.allowCredentials ? { allow_credentials: true } : {}),
    // Gloo's disableForRoute: the filter does nothing for this route.
    ...(c.disabled ? { filter_enabled: { default_value: { numerator: 0, denominator: 'HUNDRED' } } } : {}),
  };
}

export const corsConcern: HttpFilterConcern = {
  filterName: CORS_FILTER_NAME,
  usedBy: (vh: VirtualHostIR) => vh.cors !== undefined || vh.routes.some((r) => r.options?.cors),
  httpFilter: () => ({ name: CORS_FILTER_NAME, typed_config: { '@type': CORS_TYPE } }),
  // Without a CORS policy on the route or host the filter passes requests through.
  idleFilter: () => ({ name: CORS_FILTER_NAME, typed_config: { '@type': CORS_TYPE } }),
  perVirtualHost: (vh) => (vh.cors ? corsPolicy(vh.cors) : undefined),
  perRoute: (route) => (route.options?.cors ? corsPolicy(route.options.cors) : undefined),
};
