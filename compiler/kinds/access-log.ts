/**
 * Gloo's AccessLoggingService (als.proto): a Gateway's access logs, each to a
 * file, a gRPC access log service (an Upstream) or an OpenTelemetry collector,
 * with an optional filter tree that is Envoy's AccessLogFilter. Resolve checks
 * what the schema cannot (one file format, the Upstream, the collector's address).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { upstreamSslConfig } from './tls.js';
import {
  atMostOne,
  boolean,
  duration,
  exactlyOne,
  object,
  protoEnum,
  singleLine,
  string,
  stringMap,
  uint32,
} from './schema.js';

const fileSink = object(
  {
    path: note(singleLine, 'a file on the proxy, or /dev/stdout'),
    stringFormat: note(string, "Envoy's command operators, e.g. %REQ(:PATH)%"),
    jsonFormat: note(
      Type.Unsafe<Record<string, unknown>>({ type: 'object', minProperties: 1 }),
      "an object of Envoy's command operators",
    ),
  },
  ['path'],
);

const headerNames = Type.Array(singleLine);
const filterStateObjectsToLog = note(
  Type.Array(singleLine),
  "filter state objects' names, logged as Envoy serializes them",
);

const grpcService = object(
  {
    logName: note(singleLine, 'names the log stream (Envoy requires one)'),
    staticClusterName: note(
      singleLine,
      "the access log service's Upstream, named as Gloo names its cluster: `<name>_<namespace>` (Sluice's bootstrap has no clusters of its own to name); it must speak gRPC (useHttp2)",
    ),
    additionalRequestHeadersToLog: headerNames,
    additionalResponseHeadersToLog: headerNames,
    additionalResponseTrailersToLog: headerNames,
    filterStateObjectsToLog,
  },
  ['logName', 'staticClusterName'],
);

/** OpenTelemetry's AnyValue and KeyValueList (common.proto): recursive, so checked by resolve, which says what is wrong. */
const anyValueJson = Type.Unsafe<Record<string, unknown>>({ type: 'object', minProperties: 1 });

const collector = object(
  {
    endpoint: note(singleLine, 'host:port of the collector (OTLP over gRPC); a cluster of its own is made for it'),
    authority: note(singleLine, ':authority of the export calls'),
    headers: note(stringMap, 'sent as gRPC metadata with each export stream'),
    insecure: note(
      boolean,
      'true: plain HTTP/2; unset: TLS, SNI the host, without a certificate check (as Gloo; a warning)',
    ),
    sslConfig: note(
      upstreamSslConfig,
      "the collector's TLS, as an Upstream's sslConfig (a Secret's ca.crt verifies the collector, its certificate is the client's); it replaces the default TLS, so SNI is its sni (unset: none); not with insecure",
    ),
    timeout: note(duration, "the connect timeout and each export call's timeout"),
  },
  ['endpoint'],
);

const openTelemetryService = object(
  {
    logName: note(singleLine, 'names the log stream (Envoy requires one)'),
    collector,
    filterStateObjectsToLog,
    disableBuiltinLabels: note(boolean, 'true: no log_name, zone_name, cluster_name, node_name attributes'),
    body: note(
      anyValueJson,
      "OpenTelemetry's AnyValue (stringValue, intValue, kvlistValue, ...); strings may hold command operators",
    ),
    attributes: note(anyValueJson, "OpenTelemetry's KeyValueList: {values: [{key, value: AnyValue}]}"),
  },
  ['logName', 'collector'],
);

const comparison = object(
  {
    op: note(protoEnum(['EQ', 'GE', 'LE'] as const), 'EQ (unset), GE or LE'),
    value: object(
      {
        defaultValue: uint32,
        runtimeKey: note(
          singleLine,
          "required by Envoy; a runtime value under this key would replace defaultValue, and Sluice's Envoys have none set unless the admin interface sets one",
        ),
      },
      ['runtimeKey'],
    ),
  },
  ['value'],
);

const stringOrRegex = {
  exactMatch: string,
  safeRegexMatch: object(
    {
      regex: note(singleLine, 'RE2 syntax, checked at compile time'),
      googleRe2: refused("deprecated in Envoy: its program size limit is the runtime's"),
    },
    ['regex'],
  ),
  rangeMatch: note(
    object({ start: Type.Integer(), end: Type.Integer() }, ['start', 'end']),
    'the header as an integer, start inclusive, end exclusive',
  ),
  presentMatch: note(boolean, 'true: the header is there; false: it is not'),
  prefixMatch: singleLine,
  suffixMatch: singleLine,
};

const headerMatcher = object(
  {
    name: singleLine,
    ...stringOrRegex,
    invertMatch: boolean,
  },
  ['name'],
  atMostOne(...Object.keys(stringOrRegex)),
);

const GRPC_STATUSES = [
  'OK',
  'CANCELED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/** The flags Gloo's proto allows (each one of Envoy's). */
export const RESPONSE_FLAGS = [
  'LH',
  'UH',
  'UT',
  'LR',
  'UR',
  'UF',
  'UC',
  'UO',
  'NR',
  'DI',
  'FI',
  'RL',
  'UAEX',
  'RLSE',
  'DC',
  'URX',
  'SI',
  'IH',
  'DPE',
  'UMSDR',
  'RFCF',
  'NFCF',
  'DT',
  'UPE',
  'NC',
  'OM',
] as const;

const FILTERS = [
  'statusCodeFilter',
  'durationFilter',
  'notHealthCheckFilter',
  'traceableFilter',
  'runtimeFilter',
  'andFilter',
  'orFilter',
  'headerFilter',
  'responseFlagFilter',
  'grpcStatusFilter',
] as const;

const leafFilters = {
  statusCodeFilter: note(object({ comparison }, ['comparison']), "the response's status code"),
  durationFilter: note(object({ comparison }, ['comparison']), "the request's total duration in milliseconds"),
  notHealthCheckFilter: note(object({}), 'requests the health check filter did not answer'),
  traceableFilter: note(object({}), 'requests that are traced'),
  runtimeFilter: object(
    {
      runtimeKey: note(singleLine, 'required by Envoy; a runtime value under it replaces percentSampled'),
      percentSampled: object({
        numerator: uint32,
        denominator: note(protoEnum(['HUNDRED', 'TEN_THOUSAND', 'MILLION'] as const), 'HUNDRED (unset)'),
      }),
      useIndependentRandomness: note(boolean, 'true: sample at random rather than by x-request-id'),
    },
    ['runtimeKey'],
  ),
  headerFilter: object({ header: headerMatcher }, ['header']),
  responseFlagFilter: note(
    object({ flags: Type.Array(protoEnum(RESPONSE_FLAGS)) }),
    "any of Envoy's response flags listed; none listed: any flag",
  ),
  grpcStatusFilter: object({
    statuses: Type.Array(protoEnum(GRPC_STATUSES)),
    exclude: note(boolean, 'true: log every response except those with these statuses'),
  }),
};

/** and/or nest twice below the top filter: a CRD schema cannot refer to itself, so the tree has a fixed depth. */
function filterAt(depth: number): TSchema {
  const inner = depth > 0 ? filterAt(depth - 1) : undefined;
  const logical = (remark: string) =>
    inner
      ? note(object({ filters: Type.Array(inner, { minItems: 2 }) }, ['filters']), remark)
      : refused('and/or filters nest at most two levels below the top filter', 'flatten the filter tree');
  return object(
    {
      ...leafFilters,
      andFilter: logical('every filter in filters, in order'),
      orFilter: logical('any filter in filters, in order'),
    },
    [],
    exactlyOne(...FILTERS),
  );
}

const filter = filterAt(2);

export const accessLoggingService = object(
  {
    accessLog: Type.Array(
      object(
        {
          fileSink,
          grpcService: note(
            grpcService,
            "Envoy's gRPC access log service (envoy.access_loggers.http_grpc, tcp_grpc on TCP)",
          ),
          openTelemetryService: note(openTelemetryService, "Envoy's OpenTelemetry access logger (OTLP logs over gRPC)"),
          filter: note(filter, "Envoy's access log filter: only what passes is logged"),
        },
        [],
        exactlyOne('fileSink', 'grpcService', 'openTelemetryService'),
      ),
      { minItems: 1 },
    ),
  },
  ['accessLog'],
);

export type AccessLoggingServiceSpec = Static<typeof accessLoggingService>;
export type AccessLogSpec = AccessLoggingServiceSpec['accessLog'][number];
export type GrpcStatus = (typeof GRPC_STATUSES)[number];

/** The filter as written; its typing is by hand since the schema is built by depth. */
export interface AccessLogFilterSpec {
  statusCodeFilter?: { comparison: ComparisonSpec };
  durationFilter?: { comparison: ComparisonSpec };
  notHealthCheckFilter?: Record<string, never>;
  traceableFilter?: Record<string, never>;
  runtimeFilter?: {
    runtimeKey: string;
    percentSampled?: { numerator?: number; denominator?: 'HUNDRED' | 'TEN_THOUSAND' | 'MILLION' };
    useIndependentRandomness?: boolean;
  };
  andFilter?: { filters: AccessLogFilterSpec[] };
  orFilter?: { filters: AccessLogFilterSpec[] };
  headerFilter?: { header: Static<typeof headerMatcher> };
  responseFlagFilter?: { flags?: string[] };
  grpcStatusFilter?: { statuses?: GrpcStatus[]; exclude?: boolean };
}

export interface ComparisonSpec {
  op?: 'EQ' | 'GE' | 'LE';
  value: { defaultValue?: number; runtimeKey: string };
}

export type HeaderMatcherSpec = Static<typeof headerMatcher>;
