/**
 * CSRF: Envoy's csrf filter, last before the router as Gloo places it (its
 * route stage, after authentication), with each virtual host's and route's
 * CsrfPolicy as per-filter config; the most specific applies whole. The
 * filter's own policy is off (0%, as Gloo writes it without a listener
 * policy), so a virtual host without csrf is not checked.
 */
import { destinationOptions } from '../../ir/destination-options.js';
import type { CsrfIR, FractionIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const CSRF_FILTER_NAME = 'envoy.filters.http.csrf';
const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.csrf.v3.CsrfPolicy';

function share(f: FractionIR): Json {
  return { default_value: { numerator: f.numerator, denominator: f.denominator } };
}

/** envoy.type.matcher.v3.StringMatcher of an additional origin. */
function originMatcher(o: CsrfIR['additionalOrigins'][number]): Json {
  if (o.kind === 'regex') return { safe_regex: { regex: o.value } };
  return { [o.kind]: o.value, ...(o.ignoreCase ? { ignore_case: true } : {}) };
}

/** envoy.extensions.filters.http.csrf.v3.CsrfPolicy. */
function csrfPolicy(c: CsrfIR): Json {
  return {
    '@type': TYPE,
    filter_enabled: share(c.enabled),
    ...(c.shadow ? { shadow_enabled: share(c.shadow) } : {}),
    ...(c.additionalOrigins.length > 0 ? { additional_origins: c.additionalOrigins.map(originMatcher) } : {}),
  };
}

const OFF: Json = { '@type': TYPE, filter_enabled: share({ numerator: 0, denominator: 'HUNDRED' }) };

export const csrfConcern: HttpFilterConcern = {
  filterName: CSRF_FILTER_NAME,
  usedBy: (vh: VirtualHostIR) =>
    vh.csrf !== undefined || vh.routes.some((r) => r.options?.csrf || destinationOptions(r).some((d) => d.csrf)),
  httpFilter: () => ({ name: CSRF_FILTER_NAME, typed_config: OFF }),
  // Off without a policy on the route or host, so mesh mode can keep it in the team's chain.
  idleFilter: () => ({ name: CSRF_FILTER_NAME, typed_config: OFF }),
  perVirtualHost: (vh) => (vh.csrf ? csrfPolicy(vh.csrf) : undefined),
  perRoute: (route) => (route.options?.csrf ? csrfPolicy(route.options.csrf) : undefined),
  perDestination: (options) => (options.csrf ? csrfPolicy(options.csrf) : undefined),
};
