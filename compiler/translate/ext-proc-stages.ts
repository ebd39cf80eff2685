/**
 * Where a Gateway's ext_proc and wasm filters go: Gloo orders its HTTP filters by
 * stage (fault, cors, waf, authn, authz, rate limit, accepted, out-auth,
 * route), each with filters before, during and after it, and by name within
 * one place. Each filter of Sluice's chain has the place Gloo gives its
 * filter (rbac where Sluice runs it, with jwt_authn before ext_authz), and
 * an ext_proc filter goes after the last filter whose place is not later
 * than its own. The late filter is one of the router's upstream filters,
 * which run after the route is chosen, once per try, just before the
 * request leaves Envoy.
 */
import { STAGES, type ExtProcFilterIR } from '../ir/ext-proc.js';
import { extProcFilter } from './filters/ext-proc.js';
import type { Json } from './output.js';

const PREDICATES = { Before: 0, During: 1, After: 2 } as const;

const place = (stage: (typeof STAGES)[number], predicate: keyof typeof PREDICATES) =>
  STAGES.indexOf(stage) * 3 + PREDICATES[predicate];

const H = 'envoy.filters.http.';

/** Gloo's place of each filter of Sluice's chain (a name starting with one of these). */
const PLACES: readonly (readonly [string, number])[] = [
  [`${H}compressor`, place('FaultStage', 'During')],
  [`${H}fault`, place('FaultStage', 'During')],
  [`${H}cors`, place('CorsStage', 'During')],
  [`${H}local_ratelimit`, place('AuthNStage', 'Before')],
  [`${H}header_mutation`, place('AuthNStage', 'Before')],
  [`${H}jwt_authn`, place('AuthNStage', 'Before')],
  [`${H}rbac`, place('AuthNStage', 'Before')],
  [`${H}ext_authz`, place('AuthNStage', 'During')],
  [`${H}grpc_web`, place('AuthZStage', 'After')],
  [`${H}health_check`, place('AuthZStage', 'After')],
  [`${H}grpc_json_transcoder`, place('OutAuthStage', 'Before')],
  [`${H}buffer`, place('RouteStage', 'During')],
  [`${H}csrf`, place('RouteStage', 'During')],
  ['sluice.graphql', place('RouteStage', 'After')],
];

/** Rate limit filters: before authentication when early (named `.early`), else in Gloo's rate limit stage. */
function placeOf(filter: Json): number | undefined {
  const name = filter.name as string;
  if (name.startsWith(`${H}ratelimit`))
    return name.endsWith('.early') ? place('AuthNStage', 'Before') : place('RateLimitStage', 'During');
  return PLACES.find(([prefix]) => name === prefix || name.startsWith(`${prefix}.`))?.[1];
}

/** A Gateway's filter placed by its Gloo filter stage. */
export interface StagedFilter {
  json: Json;
  stage: { stage: (typeof STAGES)[number]; predicate: keyof typeof PREDICATES };
}

/** The chain with staged filters in their places, in the order given where two share a place. */
export function placeStaged(chain: Json[], staged: readonly StagedFilter[]): Json[] {
  const out = [...chain];
  const places = new Map<Json, number>();
  for (const { json, stage } of staged) {
    const mine = place(stage.stage, stage.predicate);
    const name = json.name as string;
    let at = 0;
    out.forEach((other, i) => {
      const theirs = places.get(other) ?? placeOf(other);
      // A staged filter placed before (the early ext_proc one) stays first at the same place; the chain's own are ordered by name.
      if (theirs !== undefined && (theirs < mine || (theirs === mine && (places.has(other) || other.name! <= name))))
        at = i + 1;
    });
    places.set(json, mine);
    out.splice(at, 0, json);
  }
  return out;
}

/** The Gateway's early and regular ext_proc filters, to be placed. */
export function extProcStaged(filters: readonly ExtProcFilterIR[] | undefined): StagedFilter[] {
  return (filters ?? []).filter((f) => f.slot !== 'late').map((f) => ({ json: extProcFilter(f), stage: f.stage }));
}

const UPSTREAM_CODEC: Json = {
  name: 'envoy.filters.http.upstream_codec',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec' },
};

/** The router's upstream filters: the late ext_proc filter, then the codec Envoy requires last. */
export function upstreamHttpFilters(filters: readonly ExtProcFilterIR[] | undefined): Json[] | undefined {
  const late = filters?.find((f) => f.slot === 'late');
  return late ? [extProcFilter(late), UPSTREAM_CODEC] : undefined;
}
