/**
 * Gloo's external processing -> Envoy's ext_proc. A Gateway's filters go
 * into its own chain where their Gloo filterStage puts them (./ext-proc-
 * stages.ts), the late one among the router's upstream filters; a virtual
 * host's or route's settings are ExtProcPerRoute configs under the filter's
 * name, which Envoy merges route over virtual host.
 */
import type {
  ExtProcFilterIR,
  ExtProcOverridesIR,
  ExtProcRouteIR,
  ExtProcServiceIR,
  ExtProcSlot,
  HeaderNameMatcherIR,
} from '../../ir/ext-proc.js';
import { EXT_PROC_SLOTS } from '../../ir/ext-proc.js';
import type { RouteIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

const EXT = 'type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3';
export const EXT_PROC_TYPE = `${EXT}.ExternalProcessor`;
const PER_ROUTE_TYPE = `${EXT}.ExtProcPerRoute`;

/** Each filter has its own name, so a virtual host's or route's settings reach the one they are for. */
export const EXT_PROC_FILTER_NAMES: Record<ExtProcSlot, string> = {
  early: 'envoy.filters.http.ext_proc.early',
  regular: 'envoy.filters.http.ext_proc',
  late: 'envoy.filters.http.ext_proc.late',
};

const defined = (o: Record<string, unknown>): Json =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function grpcService(s: ExtProcServiceIR): Json {
  return defined({
    envoy_grpc: defined({ cluster_name: s.cluster, authority: s.authority }),
    timeout: s.timeout,
    initial_metadata: s.initialMetadata.length > 0 ? s.initialMetadata : undefined,
  });
}

function processingMode(o: ExtProcOverridesIR): Json | undefined {
  const m = o.processingMode;
  if (!m) return undefined;
  return defined({
    request_header_mode: m.requestHeaderMode,
    response_header_mode: m.responseHeaderMode,
    request_body_mode: m.requestBodyMode,
    response_body_mode: m.responseBodyMode,
    request_trailer_mode: m.requestTrailerMode,
    response_trailer_mode: m.responseTrailerMode,
  });
}

function metadataOptions(o: ExtProcOverridesIR): Json | undefined {
  const n = o.metadataNamespaces;
  if (!n) return undefined;
  return {
    forwarding_namespaces: defined({
      untyped: n.untyped.length > 0 ? n.untyped : undefined,
      typed: n.typed.length > 0 ? n.typed : undefined,
    }),
  };
}

function stringMatcher(m: HeaderNameMatcherIR): Json {
  if (m.kind === 'regex') return { safe_regex: { regex: m.value } };
  return { [m.kind]: m.value, ...(m.ignoreCase ? { ignore_case: true } : {}) };
}

const patterns = (list: HeaderNameMatcherIR[] | undefined) =>
  list ? { patterns: list.map(stringMatcher) } : undefined;

/** envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor. */
export function extProcFilter(f: ExtProcFilterIR): Json {
  const rules = f.mutationRules;
  return {
    name: EXT_PROC_FILTER_NAMES[f.slot],
    typed_config: defined({
      '@type': EXT_PROC_TYPE,
      grpc_service: grpcService(f.service),
      failure_mode_allow: f.failureModeAllow,
      processing_mode: processingMode(f),
      request_attributes: f.requestAttributes,
      response_attributes: f.responseAttributes,
      message_timeout: f.messageTimeout,
      stat_prefix: f.statPrefix,
      mutation_rules: rules
        ? defined({
            allow_all_routing: rules.allowAllRouting,
            allow_envoy: rules.allowEnvoy,
            disallow_system: rules.disallowSystem,
            disallow_all: rules.disallowAll,
            allow_expression: rules.allowExpression !== undefined ? { regex: rules.allowExpression } : undefined,
            disallow_expression:
              rules.disallowExpression !== undefined ? { regex: rules.disallowExpression } : undefined,
            disallow_is_error: rules.disallowIsError,
          })
        : undefined,
      max_message_timeout: f.maxMessageTimeout,
      forward_rules: f.forwardRules
        ? defined({
            allowed_headers: patterns(f.forwardRules.allowed),
            disallowed_headers: patterns(f.forwardRules.disallowed),
          })
        : undefined,
      filter_metadata: f.filterMetadata,
      allow_mode_override: f.allowModeOverride,
      metadata_options: metadataOptions(f),
      disable_clear_route_cache: f.disableClearRouteCache,
    }),
  };
}

/** envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute of one filter. */
function perRoute(settings: NonNullable<ExtProcRouteIR[ExtProcSlot]>): Json {
  if ('disabled' in settings) return { '@type': PER_ROUTE_TYPE, disabled: true };
  const o = settings.overrides;
  return {
    '@type': PER_ROUTE_TYPE,
    overrides: defined({
      processing_mode: processingMode(o),
      request_attributes: o.requestAttributes,
      response_attributes: o.responseAttributes,
      grpc_service: o.service ? grpcService(o.service) : undefined,
      metadata_options: metadataOptions(o),
    }),
  };
}

/** One concern per filter: no filter in the shared chain (a Gateway adds its own), only the virtual hosts' and routes' settings. */
export const extProcConcerns: readonly HttpFilterConcern[] = EXT_PROC_SLOTS.map((slot) => {
  const of = (settings: ExtProcRouteIR | undefined) => settings?.[slot];
  return {
    filterName: EXT_PROC_FILTER_NAMES[slot],
    usedBy: (vh: VirtualHostIR) => of(vh.extProc) !== undefined || vh.routes.some((r) => of(r.options?.extProc)),
    perVirtualHost: (vh: VirtualHostIR) => {
      const s = of(vh.extProc);
      return s && perRoute(s);
    },
    perRoute: (route: RouteIR) => {
      const s = of(route.options?.extProc);
      return s && perRoute(s);
    },
  };
});
