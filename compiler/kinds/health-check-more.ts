/**
 * Gloo's HealthCheck fields (its copy of Envoy's health_check.proto) beyond the
 * basic timing and checkers: jitter and edge intervals, connection reuse, the
 * event log, an HTTP check's headers, statuses and protocol, a TCP check's
 * payloads. Each is Envoy's field of the same name.
 */
import { Type } from '@sinclair/typebox';
import { note } from './gloo.js';
import { boolean, nonNegativeDuration, object, positiveDuration, singleLine, string } from './schema.js';

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

export const httpHealthCheckFields = {
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
