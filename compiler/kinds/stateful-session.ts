/**
 * Gloo's StatefulSession (stateful_session.proto) on an httpGateway's options:
 * Envoy's stateful_session filter, which pins a client to the upstream host
 * named by a cookie or a header. resolve/stateful-session.ts checks the names.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { boolean, exactlyOne, nonNegativeDuration, object, singleLine } from './schema.js';

export const statefulSession = note(
  object(
    {
      cookieBased: object(
        {
          cookie: object(
            {
              name: note(singleLine, 'a cookie name (an HTTP token); the cookie holds the upstream address, encoded'),
              path: note(
                Type.String({ minLength: 1, pattern: '^/', format: 'single-line' }),
                "the new cookie's Path; unset: none",
              ),
              ttl: note(nonNegativeDuration, 'required: the new cookie\'s Max-Age; "0s": a session cookie'),
            },
            ['name', 'ttl'],
          ),
        },
        ['cookie'],
      ),
      headerBased: object(
        {
          headerName: note(
            singleLine,
            'an HTTP header name; the answer carries the upstream address, encoded, in this header for the client to send back',
          ),
        },
        ['headerName'],
      ),
      strict: note(boolean, 'true: a request naming a host that is gone is answered 503 instead of balanced elsewhere'),
    },
    [],
    exactlyOne('cookieBased', 'headerBased'),
  ),
  "Envoy's stateful_session filter on the listener, just before the router: the upstream host a cookie or header names gets the request",
);

export type StatefulSessionSpec = Static<typeof statefulSession>;
