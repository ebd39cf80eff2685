/**
 * Gloo's external processing options (extproc.proto): Envoy's ext_proc
 * filter calling a team's gRPC server (an Upstream). A Gateway's
 * httpGateway.options add the filters (extProcEarly, extProc, extProcLate),
 * placed where their filterStage says; a virtual host's or route's
 * RouteSettings turn one off or override some of its settings there.
 * Durations and regexes are checked by resolve (../resolve/ext-proc.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { STAGES } from '../ir/ext-proc.js';
import { stringMatcher } from './csrf.js';
import { note, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import {
  anyValue,
  boolean,
  constant,
  duration,
  exactlyOne,
  lineOrEmpty,
  mapOf,
  object,
  protoEnum,
  singleLine,
} from './schema.js';

const NO_ASYNC = refused(
  "Gloo documents it as not implemented, and upstream Envoy's ext_proc has no asynchronous mode either",
  'remove asyncMode: every message waits for the answer (messageTimeout)',
);

const headerMode = protoEnum(['DEFAULT', 'SEND', 'SKIP']);
const bodyMode = protoEnum(['NONE', 'STREAMED', 'BUFFERED', 'BUFFERED_PARTIAL']);

// Envoy's ProcessingMode, as Gloo copies it.
const processingMode = note(
  object({
    requestHeaderMode: note(headerMode, 'DEFAULT (unset): sent'),
    responseHeaderMode: note(headerMode, 'DEFAULT (unset): sent'),
    requestBodyMode: note(bodyMode, 'NONE (unset): not sent'),
    responseBodyMode: note(bodyMode, 'NONE (unset): not sent'),
    requestTrailerMode: note(headerMode, 'DEFAULT (unset): not sent'),
    responseTrailerMode: note(headerMode, 'DEFAULT (unset): not sent'),
  }),
  'which parts of the request and response the server is sent',
);

const grpcService = object(
  {
    extProcServerRef: note(resourceRef, 'an Upstream with useHttp2: true (gRPC)'),
    authority: note(singleLine, "the gRPC call's :authority; unset: the cluster's name"),
    retryPolicy: refused(
      "Envoy applies a gRPC service's retry policy to xDS streams only (Gloo's comment says so), so it would never act on ext_proc's stream",
    ),
    timeout: note(duration, "the gRPC stream's timeout"),
    initialMetadata: note(
      Type.Array(object({ key: singleLine, value: lineOrEmpty }, ['key'])),
      'headers added to each gRPC stream to the server',
    ),
  },
  ['extProcServerRef'],
);

const metadataNamespaces = {
  metadataContextNamespaces: note(Type.Array(singleLine), 'dynamic metadata namespaces sent to the server as Structs'),
  typedMetadataContextNamespaces: note(
    Type.Array(singleLine),
    'dynamic metadata namespaces sent to the server as Anys',
  ),
};

const attributes = {
  requestAttributes: note(
    Type.Array(singleLine),
    "Envoy's request attributes (e.g. request.path) sent with the first message of the request",
  ),
  responseAttributes: note(Type.Array(singleLine), "Envoy's response attributes sent with the response's"),
};

// Gloo's RegexMatcher.
const regex = object(
  {
    regex: note(singleLine, 'checked with RE2 at compile time'),
    googleRe2: object({ maxProgramSize: refused('RE2 program size limits are not implemented') }),
  },
  ['regex'],
);

const headerMatchers = object({ patterns: Type.Array(stringMatcher, { minItems: 1 }) }, ['patterns']);

/** Gloo's FilterStage (filters/stages.proto): where a Gateway's own filter sits in the chain. */
export const filterStage = object({
  stage: note(protoEnum(STAGES), 'unset: FaultStage'),
  predicate: note(protoEnum(['During', 'Before', 'After']), 'unset: During'),
});

/** Gloo's extproc Settings: one ext_proc filter of a Gateway. */
export const extProcSettings = object(
  {
    grpcService: note(grpcService, 'the server: its Upstream becomes the cluster the filter streams to'),
    filterStage: note(
      filterStage,
      'where the filter sits among the others, as Gloo orders its stages (fault, cors, waf, authn, authz, rate limit, accepted, out-auth, route); extProcLate ignores it',
    ),
    failureModeAllow: note(boolean, 'true: requests go on when the server cannot be reached (unset: 500)'),
    processingMode,
    asyncMode: NO_ASYNC,
    ...attributes,
    messageTimeout: note(duration, '0s to 3600s; unset: 200ms, as Envoy'),
    statPrefix: note(singleLine, "the filter's statistics prefix"),
    mutationRules: note(
      object({
        allowAllRouting: boolean,
        allowEnvoy: boolean,
        disallowSystem: boolean,
        disallowAll: boolean,
        allowExpression: regex,
        disallowExpression: regex,
        disallowIsError: boolean,
      }),
      "Envoy's HeaderMutationRules: which headers the server may change",
    ),
    maxMessageTimeout: note(duration, 'the most a server may ask for (override_message_timeout); 0s to 3600s'),
    disableClearRouteCache: note(boolean, "true: the server's clear_route_cache is ignored"),
    forwardRules: note(
      object({ allowedHeaders: headerMatchers, disallowedHeaders: headerMatchers }),
      'which request headers the server is sent (disallowedHeaders wins over allowedHeaders)',
    ),
    filterMetadata: note(mapOf(anyValue), 'a Struct Envoy adds to the filter state of each request (for access logs)'),
    allowModeOverride: note(boolean, "true: the server's mode_override may change the processing mode"),
    ...metadataNamespaces,
  },
  ['grpcService', 'filterStage'],
);

/** Gloo's RouteSettings on a virtual host or route: the filter off, or some of its settings replaced. */
export const extProcRouteSettings = object(
  {
    disabled: note(constant(true), 'the filter skips the virtual host or route (false is refused, as Gloo)'),
    overrides: note(
      object({
        processingMode,
        asyncMode: NO_ASYNC,
        ...attributes,
        grpcService: note(grpcService, 'another server for this virtual host or route'),
        ...metadataNamespaces,
      }),
      "a route's overrides are merged over its virtual host's, field by field, as Envoy merges them",
    ),
  },
  [],
  exactlyOne('disabled', 'overrides'),
);

/** On a Gateway (httpGateway.options): the three filters. */
export const gatewayExtProc = {
  extProcEarly: note(extProcSettings, 'an ext_proc filter where filterStage places it (typically early)'),
  extProc: note(extProcSettings, 'an ext_proc filter where filterStage places it'),
  extProcLate: note(
    extProcSettings,
    "an ext_proc filter among the router's upstream filters: the last before the request leaves Envoy, the first to see the response (filterStage is ignored, as Gloo)",
  ),
};

const hostDisable =
  'Sluice reads no global extProc from Settings, so a Gateway has no ext_proc filter it did not set itself to turn off';

/** Gloo's disableExtProc* on a Gateway. */
export const gatewayExtProcDisable = {
  disableExtProcEarly: refused(hostDisable, 'leave extProcEarly unset'),
  disableExtProc: refused(hostDisable, 'leave extProc unset'),
  disableExtProcLate: refused(hostDisable, 'leave extProcLate unset'),
};

const routeLevel = (which: string) =>
  note(
    extProcRouteSettings,
    `turns off or overrides the Gateway's ${which} filter; only where every Gateway serving the virtual host has one`,
  );

/** On a virtual host or route. */
export const routeExtProc = {
  extProcEarly: routeLevel('extProcEarly'),
  extProc: routeLevel('extProc'),
  extProcLate: routeLevel('extProcLate'),
};

export type ExtProcSettingsSpec = Static<typeof extProcSettings>;
export type ExtProcRouteSettingsSpec = Static<typeof extProcRouteSettings>;
export type ExtProcGrpcServiceSpec = Static<typeof grpcService>;
