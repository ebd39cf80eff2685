/**
 * Gloo's TcpListenerOptions (tcp_listener_options.proto, tcp.proto): a
 * tcpGateway's tcp_proxy settings and its connection limit, for each of its
 * TCP hosts. resolve/tcp-options.ts checks the durations.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { tokenBucket } from './rate-limit.js';
import { connectionLimit } from './gateway-http-options.js';
import { boolean, duration, object, singleLine, string } from './schema.js';

const tcpProxySettings = object({
  maxConnectAttempts: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), "at least 1; unset: Envoy's 1"),
  idleTimeout: note(
    duration,
    'a connection idle this long in both directions is closed; "0s": never; unset: 1h (Envoy)',
  ),
  tunnelingConfig: note(
    object(
      {
        hostname: note(singleLine, 'the CONNECT request\'s authority, e.g. "db.internal:5432"'),
        headersToAdd: Type.Array(
          object(
            {
              header: object({ key: singleLine, value: string }, ['key', 'value']),
              append: note(boolean, 'unset or true: appended to a header already there; false: replaces it'),
            },
            ['header'],
          ),
        ),
      },
      ['hostname'],
    ),
    "the connection's bytes go through an HTTP CONNECT tunnel that the Upstream (an HTTP proxy) opens to hostname",
  ),
  accessLogFlushInterval: note(
    duration,
    'at least 1ms; access logs are written this often, not only when a connection closes',
  ),
});

export const tcpListenerOptions = object({
  tcpProxySettings,
  connectionLimit: note(connectionLimit, "Envoy's connection_limit filter in front of each TCP host's tcp_proxy"),
  localRatelimit: note(
    tokenBucket,
    "Envoy's local_ratelimit network filter in front of each TCP host's tcp_proxy (after connectionLimit): each new connection takes a token, in each Envoy; a connection that finds none is closed at once",
  ),
});

export type TcpListenerOptionsSpec = Static<typeof tcpListenerOptions>;
