/**
 * Fault injection: Envoy's fault filter, first in the chain as Gloo places it,
 * configured only per route (Gloo's faults have no host-level form); the
 * filter-level config is empty, so clients cannot ask for faults with
 * x-envoy-fault-* headers.
 */
import type { RouteOptionsIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const FAULT_FILTER_NAME = 'envoy.filters.http.fault';
const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault';

/** A percentage as Gloo converts it: millionths. */
function share(percentage: number): Json {
  return { numerator: Math.round(percentage * 10_000), denominator: 'MILLION' };
}

/** envoy.extensions.filters.http.fault.v3.HTTPFault of one route. */
function routeFault(f: NonNullable<RouteOptionsIR['faults']>): Json {
  return {
    '@type': TYPE,
    ...(f.abort ? { abort: { http_status: f.abort.httpStatus, percentage: share(f.abort.percentage) } } : {}),
    ...(f.delay ? { delay: { fixed_delay: f.delay.fixedDelay, percentage: share(f.delay.percentage) } } : {}),
  };
}

export const faultConcern: HttpFilterConcern = {
  filterName: FAULT_FILTER_NAME,
  usedBy: (vh: VirtualHostIR) => vh.routes.some((r) => r.options?.faults),
  httpFilter: () => ({ name: FAULT_FILTER_NAME, typed_config: { '@type': TYPE } }),
  // Without a route's fault config the filter injects nothing.
  idleFilter: () => ({ name: FAULT_FILTER_NAME, typed_config: { '@type': TYPE } }),
  perRoute: (route) => (route.options?.faults ? routeFault(route.options.faults) : undefined),
};
