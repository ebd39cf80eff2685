/** Gloo's ListenerOptions (listener_options.proto) that are fields of Envoy's Listener itself. */
import { Type, type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { boolean, exactlyOne, lineOrEmpty, nonEmptyString, object, protoEnum, singleLine } from './schema.js';

const int64 = Type.Integer();

export const socketOption = object(
  {
    description: singleLine,
    level: note(int64, 'the setsockopt level, e.g. 1 (SOL_SOCKET) or 6 (IPPROTO_TCP)'),
    name: note(int64, 'the option, e.g. 9 (SO_KEEPALIVE)'),
    intValue: int64,
    bufValue: note(nonEmptyString, 'base64 bytes'),
    state: note(
      protoEnum(['STATE_PREBIND', 'STATE_BOUND', 'STATE_LISTENING']),
      'STATE_PREBIND (unset), STATE_BOUND or STATE_LISTENING',
    ),
  },
  ['level', 'name'],
  exactlyOne('intValue', 'bufValue'),
);

export const listenerFields = {
  perConnectionBufferLimitBytes: note(
    Type.Integer({ minimum: 0, maximum: 4294967295 }),
    "each connection's read and write buffer limit; unset: Envoy's 1 MiB",
  ),
  socketOptions: note(
    Type.Array(socketOption),
    "set on the listener's socket; Envoy fails the listener on an option the system refuses",
  ),
  connectionBalanceConfig: note(
    object({ exactBalance: object({}) }, ['exactBalance']),
    "exactBalance: connections spread evenly over Envoy's worker threads",
  ),
  proxyProtocol: note(
    object({
      rules: Type.Array(
        object(
          {
            tlvType: note(Type.Integer({ minimum: 0, maximum: 255 }), 'a TLV type of the PROXY v2 header, 0 to 255'),
            onTlvPresent: object(
              {
                metadataNamespace: note(lineOrEmpty, "unset: the filter's own (envoy.filters.listener.proxy_protocol)"),
                key: singleLine,
              },
              ['key'],
            ),
          },
          ['tlvType', 'onTlvPresent'],
        ),
      ),
      allowRequestsWithoutProxyProtocol: note(
        boolean,
        'true: a connection without a PROXY header passes with its own address (only for a listener every client of which is trusted)',
      ),
    }),
    "Envoy's proxy_protocol listener filter with these settings (useProxyProto is then implied); each rule puts a TLV's value in the connection's dynamic metadata",
  ),
  tcpStats: note(
    boolean,
    "true: every filter chain's transport socket is wrapped in Envoy's tcp_stats socket (the kernel's TCP statistics per connection, Linux only)",
  ),
};

export type SocketOptionSpec = Static<typeof socketOption>;
