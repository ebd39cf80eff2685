/** Gloo's external processing (Envoy's ext_proc): a Gateway's filters and the virtual hosts' and routes' settings for them. */

/** Gloo's filter stages (stages.proto), in their order. */
export const STAGES = [
  'FaultStage',
  'CorsStage',
  'WafStage',
  'AuthNStage',
  'AuthZStage',
  'RateLimitStage',
  'AcceptedStage',
  'OutAuthStage',
  'RouteStage',
] as const;
export type FilterStageName = (typeof STAGES)[number];

/** The three filters Gloo has: early and regular where their stage puts them, late among the router's upstream filters. */
export type ExtProcSlot = 'early' | 'regular' | 'late';
export const EXT_PROC_SLOTS: readonly ExtProcSlot[] = ['early', 'regular', 'late'];

/** A server: the cluster of its Upstream (HTTP/2), as Envoy's GrpcService. */
export interface ExtProcServiceIR {
  cluster: string;
  authority?: string;
  /** Proto3 JSON duration. */
  timeout?: string;
  initialMetadata: { key: string; value: string }[];
}

/** Envoy's ProcessingMode; unset modes: Envoy's defaults. */
export type ProcessingModeIR = Partial<
  Record<
    'requestHeaderMode' | 'responseHeaderMode' | 'requestTrailerMode' | 'responseTrailerMode',
    'DEFAULT' | 'SEND' | 'SKIP'
  > &
    Record<'requestBodyMode' | 'responseBodyMode', 'NONE' | 'STREAMED' | 'BUFFERED' | 'BUFFERED_PARTIAL'>
>;

/** A header name matcher (Envoy's StringMatcher). */
export interface HeaderNameMatcherIR {
  kind: 'exact' | 'prefix' | 'suffix' | 'regex';
  value: string;
  ignoreCase: boolean;
}

/** What a virtual host or route may replace. */
export interface ExtProcOverridesIR {
  processingMode?: ProcessingModeIR;
  requestAttributes?: string[];
  responseAttributes?: string[];
  service?: ExtProcServiceIR;
  metadataNamespaces?: { untyped: string[]; typed: string[] };
}

/** One filter of a Gateway. */
export interface ExtProcFilterIR extends ExtProcOverridesIR {
  slot: ExtProcSlot;
  service: ExtProcServiceIR;
  stage: { stage: FilterStageName; predicate: 'During' | 'Before' | 'After' };
  failureModeAllow?: boolean;
  messageTimeout?: string;
  maxMessageTimeout?: string;
  statPrefix?: string;
  mutationRules?: {
    allowAllRouting?: boolean;
    allowEnvoy?: boolean;
    disallowSystem?: boolean;
    disallowAll?: boolean;
    allowExpression?: string;
    disallowExpression?: string;
    disallowIsError?: boolean;
  };
  disableClearRouteCache?: boolean;
  forwardRules?: { allowed?: HeaderNameMatcherIR[]; disallowed?: HeaderNameMatcherIR[] };
  filterMetadata?: Record<string, unknown>;
  allowModeOverride?: boolean;
}

/** A virtual host's or route's settings of each filter it names. */
export type ExtProcRouteIR = Partial<Record<ExtProcSlot, { disabled: true } | { overrides: ExtProcOverridesIR }>>;
