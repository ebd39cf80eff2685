/** Envoy's stateful_session filter from a Gateway's statefulSession: a cookie or header names the upstream host. */
import type { StatefulSessionIR } from '../../ir/listener-options.js';
import type { Json } from '../output.js';

export const STATEFUL_SESSION_FILTER_NAME = 'envoy.filters.http.stateful_session';
const EXT = 'type.googleapis.com/envoy.extensions';

export function statefulSessionFilter(session: StatefulSessionIR): Json {
  const { state } = session;
  const sessionState =
    state.kind === 'cookie'
      ? {
          name: 'envoy.http.stateful_session.cookie',
          typed_config: {
            '@type': `${EXT}.http.stateful_session.cookie.v3.CookieBasedSessionState`,
            cookie: { name: state.name, ttl: state.ttl, ...(state.path !== undefined ? { path: state.path } : {}) },
          },
        }
      : {
          name: 'envoy.http.stateful_session.header',
          typed_config: {
            '@type': `${EXT}.http.stateful_session.header.v3.HeaderBasedSessionState`,
            name: state.name,
          },
        };
  return {
    name: STATEFUL_SESSION_FILTER_NAME,
    typed_config: {
      '@type': `${EXT}.filters.http.stateful_session.v3.StatefulSession`,
      session_state: sessionState,
      ...(session.strict ? { strict: true } : {}),
    },
  };
}
