/**
 * One oidcAuthorizationCode config's check, as Gloo's extauth answers:
 * a request with a live session is allowed (tokens and claims sent upstream
 * as configured; refreshed first when they are about to expire and
 * refreshing is allowed); a request without one is redirected (302) to the
 * provider's authorization endpoint with state, nonce and PKCE kept in a
 * sealed login cookie; the callback path exchanges the code and redirects
 * back to the page first asked for, always on appUrl's origin (no open
 * redirect); the logout path ends the session. The provider or Redis
 * unreachable: 503, never an allow. Tokens, codes and cookies are never
 * part of a reason (reasons are logged).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import {
  allow,
  deny,
  type Allow,
  type AuthRequest,
  type Check,
  type Header,
  type Pending,
  type Verdict,
} from '../../module.js';
import { cookieValue, domainMatches, setCookie } from './cookies.js';
import { ProviderError, type Provider, type Tokens } from './provider.js';
import type { Sealer } from './seal.js';
import { FETCH_FAILED, type SessionStore, type Stored } from './sessions.js';
import type { ClaimHeader, OidcSettings } from './settings.js';

const LOGIN_PURPOSE = 'login';
/** How long a login may take between the redirect to the provider and the callback. */
const LOGIN_TTL_S = 600;

interface LoginState {
  state: string;
  nonce: string;
  verifier: string;
  /** The page first asked for: a path on appUrl's origin. */
  returnTo: string;
  at: number;
}

/** The path and query of the request, when it is a plain absolute path (not `//host`, which a browser reads as another origin). */
function safePath(path: string): string {
  return /^\/(?![/\\])[^\s]*$/.test(path) ? path : '/';
}

const claimText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function claimHeaders(claims: Record<string, unknown>, wanted: ClaimHeader[]): Header[] {
  return wanted.flatMap((w) =>
    claims[w.claim] === undefined
      ? []
      : [{ key: w.header, value: claimText(claims[w.claim]), ...(w.append ? { append: true } : {}) }],
  );
}

const createChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function oidcCheck(s: OidcSettings, provider: Provider, store: SessionStore, sealer: Sealer): Check {
  const cookie = s.session.cookie;
  const loginCookie = `${cookie.name}_login`;
  // The login cookie must come back on the provider's top-level redirect to the callback: never SameSite=Strict.
  const loginAttributes = { ...cookie, sameSite: cookie.sameSite === 'None' ? 'None' : 'Lax' };
  const clearLogin = setCookie(loginAttributes, loginCookie, '', -1);
  const clearSession = setCookie(cookie, cookie.name, '', -1);
  const sessionCookie = (value: string) => setCookie(cookie, cookie.name, value, cookie.maxAgeSeconds);
  const unavailable = (why: string) => deny(503, why);
  const forbidden = (why: string) => deny(403, why);
  const wrongDomain = forbidden(`the host is not in the session's target domain ${s.session.targetDomain}`);
  const needsRefresh = (st: Stored) => st.expiresAt - s.session.preExpiryBufferMs <= Date.now();
  // The same Allow for the same session content: its response is encoded once.
  const allowed = new Map<string, Allow>();

  const allowSession = (st: Stored, responseHeaders?: Header[]): Allow => {
    // Keyed by the tokens, not the cookie: a Redis session keeps its id across a refresh.
    const text = `${st.expiresAt}.${st.accessToken}`;
    const known = responseHeaders ? undefined : allowed.get(text);
    if (known) return known;
    const headers: Header[] = [];
    if (s.headers.idTokenHeader) headers.push({ key: s.headers.idTokenHeader, value: st.idToken });
    if (s.headers.accessTokenHeader)
      headers.push({
        key: s.headers.accessTokenHeader,
        value: s.headers.useBearerSchema ? `Bearer ${st.accessToken}` : st.accessToken,
      });
    headers.push(...claimHeaders(st.claims, s.identityClaimsToHeaders));
    if (s.accessClaimsToHeaders.length) {
      try {
        headers.push(...claimHeaders(decodeJwt(st.accessToken), s.accessClaimsToHeaders));
      } catch {
        // An opaque access token has no claims to send.
      }
    }
    const verdict = allow({
      headers,
      ...(responseHeaders ? { responseHeaders } : {}),
      ...(typeof st.claims.sub === 'string' ? { identity: st.claims.sub } : {}),
    });
    if (!responseHeaders) {
      if (allowed.size > 10_000) allowed.clear();
      allowed.set(text, verdict);
    }
    return verdict;
  };

  const stored = (t: Tokens): Stored => ({
    idToken: t.idToken,
    accessToken: t.accessToken,
    ...(t.refreshToken ? { refreshToken: t.refreshToken } : {}),
    expiresAt: t.expiresAt,
    claims: Object.fromEntries(
      ['sub', ...s.identityClaimsToHeaders.map((c) => c.claim)]
        .filter((c) => t.claims[c] !== undefined)
        .map((c) => [c, t.claims[c]]),
    ),
  });

  function login(request: AuthRequest, extraCookies: string[] = []): Verdict {
    const config = provider.ready;
    if (!config) return unavailable(`the OpenID provider ${s.issuerUrl} has not been reached yet`);
    const state: LoginState = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      returnTo: safePath(request.path),
      at: Date.now(),
    };
    // S256 of the verifier, synchronously (openid-client's calculatePKCECodeChallenge is async over WebCrypto).
    const challenge = createChallenge(state.verifier);
    const location = provider.authorizationUrl({
      redirect_uri: `${s.appUrl}${s.callbackPath}`,
      scope: s.scopes.join(' '),
      state: state.state,
      nonce: state.nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return deny(302, 'no session: login at the OpenID provider', {
      headers: [
        { key: 'location', value: location.href },
        ...extraCookies.map((value) => ({ key: 'set-cookie', value, append: true })),
        {
          key: 'set-cookie',
          value: setCookie(
            loginAttributes,
            loginCookie,
            sealer.seal(LOGIN_PURPOSE, JSON.stringify(state)),
            LOGIN_TTL_S,
          ),
          append: true,
        },
      ],
      redirect: true,
    });
  }

  function failed(err: unknown): Verdict {
    if (err instanceof ProviderError) return err.unreachable ? unavailable(err.message) : forbidden(err.message);
    return unavailable(`session store: ${(err as Error).message}`);
  }

  async function callback(request: AuthRequest): Promise<Verdict> {
    const query = new URLSearchParams(request.path.split('?')[1] ?? '');
    if (query.get('error')) return forbidden(`the provider refused the login: ${query.get('error')!.slice(0, 100)}`);
    const text = cookieValue(request.headers.cookie, loginCookie);
    const opened = text ? sealer.open(LOGIN_PURPOSE, text) : undefined;
    if (!opened) return forbidden('callback without a login in progress (no valid login cookie)');
    const st = JSON.parse(opened) as LoginState;
    if (Date.now() - st.at > LOGIN_TTL_S * 1000) return forbidden('the login took too long: its state expired');
    if (!equal(query.get('state') ?? '', st.state))
      return forbidden('callback state does not match the login in progress');
    if (!provider.ready) return unavailable(`the OpenID provider ${s.issuerUrl} has not been reached yet`);
    try {
      const tokens = await provider.exchange(new URL(`${s.appUrl}${request.path}`), {
        state: st.state,
        nonce: st.nonce,
        verifier: st.verifier,
      });
      const value = await store.write(stored(tokens));
      const location = new URL(`${s.appUrl}${safePath(st.returnTo)}`);
      // No open redirect: the target is on appUrl's origin whatever the login cookie held.
      if (location.origin !== s.appUrl) return forbidden('the return URL is not on appUrl');
      return deny(302, 'logged in: back to the page first asked for', {
        headers: [
          { key: 'location', value: location.href },
          { key: 'set-cookie', value: sessionCookie(value), append: true },
          { key: 'set-cookie', value: clearLogin, append: true },
        ],
      });
    } catch (err) {
      return failed(err);
    }
  }

  async function logout(request: AuthRequest): Promise<Verdict> {
    const value = cookieValue(request.headers.cookie, cookie.name);
    if (value) await store.remove(value).catch(() => undefined);
    return deny(302, 'logged out', {
      headers: [
        { key: 'location', value: s.afterLogoutUrl },
        { key: 'set-cookie', value: clearSession, append: true },
      ],
    });
  }

  // One refresh per refresh token at a time: a page's parallel requests share it.
  const refreshing = new Map<string, Promise<Verdict>>();
  function refresh(request: AuthRequest, st: Stored, value: string): Pending<Verdict> {
    if (!st.refreshToken || !s.session.allowRefreshing) return login(request, [clearSession]);
    if (!provider.ready) return unavailable(`the OpenID provider ${s.issuerUrl} has not been reached yet`);
    const token = st.refreshToken;
    let pending = refreshing.get(token);
    if (!pending) {
      pending = (async (): Promise<Verdict> => {
        try {
          const tokens = await provider.refresh(token, { ...st, claims: st.claims } as Tokens);
          const next = stored(tokens);
          const written = await store.write(next, value);
          return allowSession(next, [{ key: 'set-cookie', value: sessionCookie(written) }]);
        } catch (err) {
          // The provider refused the refresh token: the session is over, log in again.
          if (err instanceof ProviderError && !err.unreachable) return login(request, [clearSession]);
          return failed(err);
        } finally {
          refreshing.delete(token);
        }
      })();
      refreshing.set(token, pending);
    }
    return pending;
  }

  const withSession = (
    request: AuthRequest,
    value: string,
    st: Stored | undefined | typeof FETCH_FAILED,
  ): Pending<Verdict> => {
    if (st === FETCH_FAILED)
      return s.session.failOnFetchFailure ? unavailable('the session store (Redis) cannot be reached') : login(request);
    if (!st) return login(request, [clearSession]);
    return needsRefresh(st) ? refresh(request, st, value) : allowSession(st);
  };

  return (request) => {
    if (
      s.session.targetDomain &&
      !domainMatches(request.host || request.headers[':authority'] || '', s.session.targetDomain)
    )
      return wrongDomain;
    const path = request.path.split('?')[0]!;
    if (path === s.callbackPath) return callback(request);
    if (s.logoutPath && path === s.logoutPath) return logout(request);
    const value = cookieValue(request.headers.cookie, cookie.name);
    if (!value) return login(request);
    const st = store.read(value);
    return st instanceof Promise ? st.then((v) => withSession(request, value, v)) : withSession(request, value, st);
  };
}
