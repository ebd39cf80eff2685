/**
 * For the concerns' unit tests: one concern's part of translating a model,
 * read back from the xDS set translate makes with that concern alone.
 */
import type { Model } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import { DEFAULT_OPTIONS, type CompileOptions, type Json } from '../output.js';
import { translate, TranslateMemo } from '../translate.js';

export interface ConcernPart {
  /** Its HTTP filter, if it is in the chain. */
  httpFilter?: Json;
  /** Its `typed_per_filter_config` value, by virtual host (those that have one). */
  perVirtualHost: Map<string, Json>;
  /** `request_headers_to_remove`, by virtual host (those that have any). */
  requestHeadersToRemove: Map<string, string[]>;
  /** Clusters beyond the model's upstreams, with their EDS load assignments. */
  clusters: Json[];
  endpoints: Json[];
  authConfigs: Json[];
}

export function runConcern(
  concern: HttpFilterConcern,
  model: Model,
  options: CompileOptions = DEFAULT_OPTIONS,
): ConcernPart {
  const set = translate(model, options, new TranslateMemo(), [concern]);
  const listener = [...set.listeners.values()][0] as any;
  const hcm = listener.filter_chains[0].filters[0].typed_config as { http_filters: Json[] };
  const vhosts = ([...set.routes.values()][0]!.virtual_hosts ?? []) as Json[];
  const upstreams = new Set(model.upstreams.map((u) => u.name));
  const part: ConcernPart = {
    perVirtualHost: new Map(),
    requestHeadersToRemove: new Map(),
    clusters: [...set.clusters.values()].filter((c) => !upstreams.has(c.name as string)),
    endpoints: [...set.endpoints.values()].filter((e) => !upstreams.has(e.cluster_name as string)),
    authConfigs: [...set.authConfigs.values()],
  };
  const filter = hcm.http_filters.find((f) => f.name === concern.filterName);
  if (filter) part.httpFilter = filter;
  for (const vh of vhosts) {
    const own = (vh.typed_per_filter_config as Record<string, Json> | undefined)?.[concern.filterName];
    if (own) part.perVirtualHost.set(vh.name as string, own);
    const headers = vh.request_headers_to_remove as string[] | undefined;
    if (headers) part.requestHeadersToRemove.set(vh.name as string, headers);
  }
  return part;
}
