import { checkMessage } from '../../verify/proto-json.js';
import { chainHttpFilters } from '../gateway-filters.js';
import type { Json } from '../output.js';
import { statefulSessionFilter, STATEFUL_SESSION_FILTER_NAME } from './stateful-session.js';

const ANY = 'google.protobuf.Any';

test("a cookie: its name, Max-Age and Path as Envoy's Cookie; not strict unless set", () => {
  const json = statefulSessionFilter({
    state: { kind: 'cookie', name: 'statefulsessioncookie', path: '/route1', ttl: '60s' },
    strict: false,
  });
  expect(json).toEqual({
    name: STATEFUL_SESSION_FILTER_NAME,
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.stateful_session.v3.StatefulSession',
      session_state: {
        name: 'envoy.http.stateful_session.cookie',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.http.stateful_session.cookie.v3.CookieBasedSessionState',
          cookie: { name: 'statefulsessioncookie', ttl: '60s', path: '/route1' },
        },
      },
    },
  });
  expect(checkMessage(ANY, json.typed_config as Json)).toEqual([]);
});

test("a header, strict: the header session state and strict: true, valid against Envoy's protos", () => {
  const json = statefulSessionFilter({ state: { kind: 'header', name: 'x-session' }, strict: true });
  const config = json.typed_config as Json;
  expect(config.strict).toBe(true);
  expect(config.session_state).toEqual({
    name: 'envoy.http.stateful_session.header',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.http.stateful_session.header.v3.HeaderBasedSessionState',
      name: 'x-session',
    },
  });
  expect(checkMessage(ANY, config)).toEqual([]);
  // The proto check would catch an empty header name (min_len 1).
  const broken = {
    ...config,
    session_state: {
      ...(config.session_state as Json),
      typed_config: { ...((config.session_state as Json).typed_config as Json), name: '' },
    },
  };
  expect(checkMessage(ANY, broken).map((i) => i.rule)).toContain('string.min_len');
});

test('placed last in the Gateway chain, after the later filters (the router follows it)', () => {
  const f = (name: string): Json => ({ name, typed_config: { '@type': `type.googleapis.com/${name}` } });
  const chain = chainHttpFilters(['envoy.filters.http.ext_authz', 'envoy.filters.http.csrf'].map(f), {
    healthCheckPath: '/healthz',
    statefulSession: { state: { kind: 'cookie', name: 's', ttl: '0s' }, strict: false },
  });
  expect(chain.map((x) => x.name)).toEqual([
    'envoy.filters.http.ext_authz',
    'envoy.filters.http.health_check',
    'envoy.filters.http.csrf',
    STATEFUL_SESSION_FILTER_NAME,
  ]);
});
