/** What one weighted destination of a route changes for the requests sent to it (Gloo's WeightedDestinationOptions). */
import type { BufferPerRouteIR } from './listener-options.js';
import type { CsrfIR, HeaderManipulationIR, RouteIR } from './model.js';

export interface DestinationOptionsIR {
  headers?: HeaderManipulationIR;
  csrf?: CsrfIR;
  buffer?: BufferPerRouteIR;
}

/** The options of a route's weighted destinations that have some. */
export function destinationOptions(route: RouteIR): DestinationOptionsIR[] {
  return route.action.kind === 'weighted' ? route.action.clusters.flatMap((c) => (c.options ? [c.options] : [])) : [];
}
