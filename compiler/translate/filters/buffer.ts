/**
 * Gloo's bufferPerRoute: Envoy's BufferPerRoute of a virtual host or route
 * (the route's replaces its host's whole). The buffer filter they act on is
 * in the chain when any virtual host or route sets one, disabled by default
 * (HttpFilter.disabled): it runs only where a per-route config enables it.
 * A Gateway with httpGateway.options.buffer puts its own filter in its place
 * (../gateway-filters.ts), which runs everywhere its routes do not say
 * otherwise. No idle form for mesh mode: a filter served over ECDS cannot
 * carry HttpFilter.disabled, and an enabled one would buffer every body.
 */
import type { BufferPerRouteIR } from '../../ir/listener-options.js';
import { destinationOptions } from '../../ir/destination-options.js';
import type { VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const BUFFER_FILTER_NAME = 'envoy.filters.http.buffer';
export const BUFFER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer';
const PER_ROUTE_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.BufferPerRoute';

function perRoute(b: BufferPerRouteIR): Json {
  return 'disabled' in b
    ? { '@type': PER_ROUTE_TYPE, disabled: true }
    : { '@type': PER_ROUTE_TYPE, buffer: { max_request_bytes: b.maxRequestBytes } };
}

// Envoy requires a limit; it never applies, since the filter runs only where a route's own config gives one or turns it off.
const IDLE: Json = {
  name: BUFFER_FILTER_NAME,
  disabled: true,
  typed_config: { '@type': BUFFER_TYPE, max_request_bytes: 4294967295 },
};

export const bufferConcern: HttpFilterConcern = {
  filterName: BUFFER_FILTER_NAME,
  usedBy: (vh: VirtualHostIR) =>
    vh.buffer !== undefined || vh.routes.some((r) => r.options?.buffer || destinationOptions(r).some((d) => d.buffer)),
  httpFilter: () => IDLE,
  perVirtualHost: (vh) => (vh.buffer ? perRoute(vh.buffer) : undefined),
  perRoute: (route) => (route.options?.buffer ? perRoute(route.options.buffer) : undefined),
  perDestination: (options) => (options.buffer ? perRoute(options.buffer) : undefined),
};
