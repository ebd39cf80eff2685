/**
 * Gloo's serviceSpec.grpcJsonTranscoder: the routes sending to such an
 * Upstream carry its transcoder config as their per-filter config. The
 * filter is in the chain disabled by default (HttpFilter.disabled), so it
 * runs only on those routes; its own config is one of theirs, since Envoy
 * requires a valid one. A Gateway's own grpcJsonTranscoder takes the
 * filter's place and runs everywhere else (../gateway-filters.ts), the
 * route's config replacing it as in Gloo. No idle form for mesh mode: a
 * filter served over ECDS cannot carry HttpFilter.disabled.
 */
import type { RouteIR, VirtualHostIR } from '../../ir/model.js';
import type { GrpcJsonTranscoderIR } from '../../ir/listener-options.js';
import type { HttpFilterConcern } from '../concern.js';
import { TRANSCODER_FILTER_NAME, transcoderFilter } from '../gateway-filters.js';
import type { Json } from '../output.js';

/** The transcoder of the Upstream a route sends to (of a weighted route: the one its destinations share). */
function routeTranscoder(route: RouteIR): GrpcJsonTranscoderIR | undefined {
  const a = route.action;
  if (a.kind === 'cluster') return a.transcoder;
  return a.kind === 'weighted' ? a.clusters.find((c) => c.transcoder)?.transcoder : undefined;
}

const perRoute = (t: GrpcJsonTranscoderIR) => transcoderFilter(t).typed_config as Json;

/** The concern when some route sends to an Upstream with a transcoder; none otherwise. */
export function upstreamTranscoderConcerns(virtualHosts: readonly VirtualHostIR[]): HttpFilterConcern[] {
  const first = virtualHosts.flatMap((vh) => vh.routes).find((r) => routeTranscoder(r));
  if (!first) return [];
  const filter: Json = { ...transcoderFilter(routeTranscoder(first)!), disabled: true };
  return [
    {
      filterName: TRANSCODER_FILTER_NAME,
      // The filter's config is taken from the inputs.
      usageKey: JSON.stringify(filter),
      usedBy: (vh) => vh.routes.some((r) => routeTranscoder(r)),
      httpFilter: () => filter,
      perRoute: (route) => {
        const t = routeTranscoder(route);
        return t ? perRoute(t) : undefined;
      },
    },
  ];
}
