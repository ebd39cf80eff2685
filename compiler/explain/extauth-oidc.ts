/**
 * What an oauth2.oidcAuthorizationCode config answers, for `sluice explain`,
 * from the compiled config alone (the provider is never contacted): the
 * callback and logout paths, a request without the session cookie (302 to
 * the provider's authorization endpoint, or 401 with failOnRedirect), and a
 * request with one (the session decides: allowed while it is live, else a
 * new login; 503 when the provider or Redis cannot be reached).
 */
import { headerValue, type HttpRequest } from '../envoy/request.js';
import type { Json } from '../translate/output.js';
import type { ConfigVerdict, Outcome } from './model.js';

const SIDECAR = 'sluice-extauth';
const outcome = (status: number, headers?: Record<string, string>): Outcome => ({
  status,
  body: '',
  ...(headers ? { headers } : {}),
  by: SIDECAR,
});

function hasCookie(req: HttpRequest, name: string): boolean {
  return (headerValue(req, 'cookie') ?? '').split(';').some((c) => c.trim().startsWith(`${name}=`));
}

export function oidcVerdict(o: Json, req: HttpRequest, failOnRedirect: boolean): ConfigVerdict {
  const path = req.path.split('?')[0];
  const session = (o.session as Json | undefined) ?? {};
  const cookieName = ((session.cookie as Json | undefined)?.name as string | undefined) ?? '__session';
  const override = (o.discovery_override as Json | undefined)?.auth_endpoint as string | undefined;
  const endpoint = override ?? `the authorization endpoint of ${o.issuer_url as string} (discovered; not contacted)`;
  const store = session.redis ? `Redis at ${(session.redis as Json).address as string}` : 'the encrypted cookie';
  const login = failOnRedirect
    ? outcome(401)
    : outcome(302, override ? { location: `${override}?client_id=${o.client_id as string}&…` } : undefined);
  const loginWhy = failOnRedirect
    ? `no session cookie ${cookieName}: a login redirect, answered 401 (failOnRedirect)`
    : `no session cookie ${cookieName}: 302 to ${endpoint} to log in (client ${o.client_id as string}, scopes ${(o.scopes as string[]).join(' ')}, with state, nonce and PKCE)`;
  if (path === o.callback_path)
    return {
      kind: 'open',
      why: `the callback path: the code is exchanged at the provider (not contacted); a valid one sets the session and redirects back to ${o.app_url as string}`,
      denials: [outcome(302), outcome(403), outcome(503)],
    };
  if (o.logout_path && path === o.logout_path)
    return {
      kind: 'deny',
      why: `the logout path: the session ends, 302 to ${o.after_logout_url as string}`,
      outcome: outcome(302, { location: o.after_logout_url as string }),
    };
  if (!hasCookie(req, cookieName)) return { kind: 'deny', why: loginWhy, outcome: login };
  return {
    kind: 'open',
    why: `the session in ${store} decides: allowed while it is live${session.allow_refreshing ? ' (refreshed at the provider when it expires)' : ''}; otherwise a new login`,
    denials: [login, outcome(503)],
  };
}
