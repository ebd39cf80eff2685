/** The options of a route's weighted destinations (Gloo's WeightedDestinationOptions). */
import type { DestinationOptionsIR, RouteIR } from './model.js';

export type { DestinationOptionsIR };

/** The options of a route's weighted destinations that have some. */
export function destinationOptions(route: RouteIR): DestinationOptionsIR[] {
  return route.action.kind === 'weighted' ? route.action.clusters.flatMap((c) => (c.options ? [c.options] : [])) : [];
}
