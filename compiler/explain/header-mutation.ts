/**
 * envoy.filters.http.header_mutation, evaluated on its compiled config: the
 * filter's own request mutations, then each `HeaderMutationPerRoute` of the
 * route, its virtual host and the route configuration (the filter applies
 * every level, not only the most specific). Sluice emits only `remove`
 * (claim headers a client must not send, translate/filters/claim-headers.ts).
 */
import type { Json } from '../translate/output.js';
import type { Step } from './model.js';
import type { HttpRequest } from '../envoy/request.js';

export const HEADER_MUTATION_FILTER = 'envoy.filters.http.header_mutation';
const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: header_mutation';

type Levels = { route?: Json; vh?: Json; routeConfig?: Json };

export function evaluateHeaderMutation(filter: Json, levels: Levels, req: HttpRequest): Step {
  const lists = [
    filter,
    ...[levels.route, levels.vh, levels.routeConfig].map(
      (h) => (h?.typed_per_filter_config as Json | undefined)?.[HEADER_MUTATION_FILTER] as Json | undefined,
    ),
  ].map((c) => ((c?.mutations as Json | undefined)?.request_mutations as Json[] | undefined) ?? []);
  const removed: string[] = [];
  const absent: string[] = [];
  for (const m of lists.flat()) {
    if (typeof m.remove !== 'string') throw new Error(`header_mutation ${JSON.stringify(m)} is not one explain knows`);
    const name = m.remove.toLowerCase();
    (req.headers.delete(name) ? removed : absent).push(name);
  }
  const summary =
    removed.length > 0
      ? `removed ${removed.join(', ')} (sent by the client)`
      : absent.length > 0
        ? `nothing to remove (${absent.join(', ')} not in the request)`
        : 'no mutations here';
  return { stage: 'header_mutation', summary, details: [], cite: CITE };
}
