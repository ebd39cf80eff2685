/**
 * Envoy's stateful_session filter as explain reads it: which cookie or header
 * names the upstream host, and whether this request carries one. explain
 * does not decode the value, so which host it names stays an assumption.
 */
import { headerValue, type HttpRequest } from '../envoy/request.js';
import type { Json } from '../translate/output.js';
import type { Outcome, Step } from './model.js';

export const STATEFUL_SESSION = 'envoy.filters.http.stateful_session';

export interface StatefulSessionResult {
  step: Step;
  assumption: { text: string; otherwise: Outcome[] };
}

export function evaluateStatefulSession(filter: Json, req: HttpRequest, cite: string): StatefulSessionResult {
  const state = filter.session_state as Json;
  const config = state.typed_config as Json;
  const strict = filter.strict === true;
  const cookie = config.cookie as Json | undefined;
  const carrier = cookie ? `cookie ${String(cookie.name)}` : `header ${String(config.name)}`;
  const sent = cookie
    ? (headerValue(req, 'cookie') ?? '').split(';').some((c) => c.trim().startsWith(`${String(cookie.name)}=`))
    : headerValue(req, String(config.name)) !== undefined;
  const back = cookie
    ? `Set-Cookie ${String(cookie.name)} (Max-Age ${String(cookie.ttl)}${cookie.path ? `, Path ${String(cookie.path)}` : ''})`
    : `the ${carrier}`;
  const summary = sent
    ? `the ${carrier} names the upstream host: the request goes to that host`
    : `no ${carrier} in the request: the load balancer picks the host, and the answer names it in ${back}`;
  const gone = strict
    ? 'if it is gone or unhealthy, Envoy answers 503 (strict)'
    : 'if it is gone or unhealthy, the load balancer picks another';
  return {
    step: { stage: 'stateful_session', summary, details: [], cite },
    assumption: sent
      ? {
          text: `the ${carrier} names a healthy host of the route's cluster (explain does not decode which host the value names); ${gone}`,
          otherwise: strict ? [{ status: 503, body: 'no healthy upstream', by: 'envoy' }] : [],
        }
      : {
          text: `explain does not know which host the load balancer picks; later requests that send the ${carrier} back go to it while it is healthy`,
          otherwise: [],
        },
  };
}
