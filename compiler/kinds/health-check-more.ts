/**
 * Gloo's HealthCheck fields (its copy of Envoy's health_check.proto) beyond the
 * basic timing and checkers: jitter and edge intervals, connection reuse, the
 * event log, an HTTP check's headers, statuses and protocol, a TCP check's
 * payloads. Each is Envoy's field of the same name.
 */
import { Type } from '@sinclair/typebox';
import { differs, note, refused } from './gloo.js';
import { boolean, nonNegativeDuration, object, positiveDuration, protoEnum, singleLine, string } from './schema.js';

export const healthCheckTimingFields = {
  initialJitter: nonNegativeDuration,
  intervalJitter: nonNegativeDuration,
  intervalJitterPercent: note(Type.Integer({ minimum: 0, maximum: 4294967295 }), 'of the interval, added at random'),
  reuseConnection: note(boolean, 'unset: true (Envoy)'),
  unhealthyInterval: positiveDuration,
  unhealthyEdgeInterval: positiveDuration,
  healthyEdgeInterval: positiveDuration,
  eventLogPath: note(
    singleLine,
    "a file on the proxy the health checker's events are written to (Envoy's file event sink)",
  ),
  alwaysLogHealthCheckFailures: note(boolean, 'true: every failure is logged, not only changes of state'),
};

const headerValueOption = object(
  {
    header: object({ key: singleLine, value: string }, ['key', 'value']),
    append: note(boolean, 'unset or true: appended to a header already there; false: replaces it'),
  },
  ['header'],
);

/** Gloo's RequestMethod (its copy of Envoy's), in the order of their numbers. */
export const HEALTH_CHECK_METHODS = [
  'METHOD_UNSPECIFIED',
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
] as const;

export const httpHealthCheckFields = {
  serviceName: note(
    singleLine,
    "healthy only when the answer's x-envoy-upstream-healthchecked-cluster header starts with it (Envoy's service_name_matcher as a prefix, as Gloo writes it)",
  ),
  method: note(
    protoEnum(HEALTH_CHECK_METHODS),
    "the check request's method (unset or METHOD_UNSPECIFIED: GET; CONNECT is an error, as in Gloo); no body is sent",
  ),
  requestHeadersToAdd: Type.Array(headerValueOption, { maxItems: 1000 }),
  requestHeadersToRemove: Type.Array(singleLine),
  useHttp2: note(boolean, 'true: the check speaks HTTP/2'),
  expectedStatuses: note(
    Type.Array(
      object(
        {
          start: note(Type.Integer({ minimum: 100, maximum: 599 }), 'inclusive'),
          end: note(Type.Integer({ minimum: 101, maximum: 600 }), 'exclusive'),
        },
        ['start', 'end'],
      ),
    ),
    'the statuses that count as healthy, [start, end); unset: 200 only',
  ),
};

export const grpcHealthCheck = object({
  serviceName: note(singleLine, 'the service asked about in grpc.health.v1.Health/Check; unset: the whole server'),
  authority: note(singleLine, ':authority of the check; unset: the cluster name'),
  initialMetadata: note(
    Type.Array(headerValueOption, { maxItems: 1000 }),
    'metadata (headers) sent with each check; unset or true append: appended',
  ),
});

/** Fields of Envoy's HealthCheck that Gloo's (its copy of Envoy's v2 proto) does not have. */
export const healthCheckTransportFields = {
  altPort: refused(
    "Envoy does not implement alt_port (its proto hides the field as not implemented), and Gloo's HealthCheck comments it out",
    "check on the host's own port, or give failover endpoints healthCheckConfig.portValue",
  ),
  tlsOptions: differs(
    object({
      alpnProtocols: note(Type.Array(singleLine, { minItems: 1 }), "ALPN offered by the check's TLS handshake"),
    }),
    "Envoy's tls_options, beyond Gloo's HealthCheck: the check's TLS offers these ALPN protocols instead of the Upstream's (needs TLS to the upstream)",
  ),
};

const payload = object({ text: note(Type.String({ minLength: 1, pattern: '^([0-9a-fA-F]{2})+$' }), 'hex bytes') }, [
  'text',
]);

export const tcpHealthCheck = note(
  object({
    send: note(payload, 'written when the connection opens'),
    receive: note(Type.Array(payload), 'each must be found in the answer, in order (fuzzy match)'),
  }),
  'without send/receive: healthy when a connection opens',
);
