/**
 * Where an access token's claims come from, for ./access-token.ts: an RFC
 * 7662 introspection endpoint (the token POSTed with the client's
 * credentials), a JWT's signature checked against a JWKS (fetched from a URL
 * and refreshed, or given inline) with its issuer and audience, and the
 * userinfo endpoint asked with the token. Each answers the claims, that the
 * token is not valid (a denial), or that the provider failed (unreachable,
 * timed out, a server error): the config then answers 503. Tokens are never
 * put in an error or a log line.
 */
import { Agent, request as send } from 'undici';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTVerifyGetKey,
} from 'jose';
import { DEFAULT_SERVICE_TIMEOUT_MS } from '../../contract/extauth.js';

export type Claims = Record<string, unknown>;

/** What a source answers about one token. */
export type SourceAnswer = { claims: Claims } | { invalid: string } | { failed: string };

export interface IntrospectionSettings {
  url: string;
  clientId: string;
  clientSecret: string;
  userIdAttributeName: string;
}

export interface JwtSettings {
  remoteJwks?: { url: string; refreshIntervalMs: number };
  localJwks?: string;
  issuer: string;
  audiences: string[];
}

/** A source of one config's claims, with what it holds open. */
export interface Source {
  claims(token: string): Promise<SourceAnswer>;
  close(): void;
}

/** RFC 6749 §2.3.1: client_id and client_secret are form-encoded before they go into Basic credentials. */
const formEncoded = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');

async function jsonOf(body: { json(): Promise<unknown> }): Promise<Claims | undefined> {
  try {
    const v = await body.json();
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Claims) : undefined;
  } catch {
    return undefined;
  }
}

const unreachable = (err: unknown) =>
  (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError'
    ? `no answer within ${DEFAULT_SERVICE_TIMEOUT_MS} ms`
    : `unreachable (${(err as { code?: string }).code ?? (err as Error).message})`;

export function introspectionSource(s: IntrospectionSettings): Source {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (s.clientId && s.clientSecret)
    headers.authorization = `Basic ${Buffer.from(`${formEncoded(s.clientId)}:${formEncoded(s.clientSecret)}`).toString('base64')}`;
  // A client without a secret (disableClientSecret) names itself in the form.
  const clientField = s.clientId && !s.clientSecret ? `&client_id=${encodeURIComponent(s.clientId)}` : '';
  return {
    async claims(token) {
      let res;
      try {
        res = await send(s.url, {
          method: 'POST',
          headers,
          body: `token=${encodeURIComponent(token)}&token_type_hint=access_token${clientField}`,
          dispatcher: agent,
          signal: AbortSignal.timeout(DEFAULT_SERVICE_TIMEOUT_MS),
        });
      } catch (err) {
        return { failed: `introspection endpoint ${s.url}: ${unreachable(err)}` };
      }
      const answer = await jsonOf(res.body);
      if (res.statusCode !== 200 || !answer)
        return {
          failed: `introspection endpoint ${s.url} answered ${res.statusCode}${answer ? '' : ' without a JSON object'}`,
        };
      if (answer.active !== true) return { invalid: 'the introspection endpoint says the token is not active' };
      return { claims: answer };
    },
    close: () => void agent.close(),
  };
}

/** jose's errors that say the token is not good; any other error is the key source failing. */
const TOKEN_ERRORS = new Set([
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
]);

/** The keys of a JWT config: a remote set refreshed every refreshIntervalMs, or the inline one. Throws on an inline set jose cannot read. */
export function jwtKeys(s: JwtSettings): JWTVerifyGetKey {
  if (s.localJwks) return createLocalJWKSet(JSON.parse(s.localJwks));
  return createRemoteJWKSet(new URL(s.remoteJwks!.url), {
    cacheMaxAge: s.remoteJwks!.refreshIntervalMs,
    timeoutDuration: DEFAULT_SERVICE_TIMEOUT_MS,
  });
}

export function jwtSource(s: JwtSettings, keys: JWTVerifyGetKey): Source {
  const options = {
    ...(s.issuer ? { issuer: s.issuer } : {}),
    ...(s.audiences.length ? { audience: s.audiences } : {}),
  };
  const where = s.remoteJwks ? `the JWKS at ${s.remoteJwks.url}` : 'the inline JWKS';
  return {
    async claims(token) {
      try {
        // Gloo: the key is chosen by kid, which a token must name.
        if (!decodeProtectedHeader(token).kid) return { invalid: 'the JWT names no key (kid)' };
        const { payload } = await jwtVerify(token, keys, options);
        return { claims: payload as Claims };
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code && TOKEN_ERRORS.has(code)) return { invalid: `the JWT is not valid: ${(err as Error).message}` };
        // decodeProtectedHeader's errors are plain JOSE errors: a token that is no JWT at all.
        if (err instanceof errors.JOSEError && code === 'ERR_JOSE_GENERIC')
          return { invalid: 'the token is not a JWT' };
        if (err instanceof TypeError && !code && /Invalid Token|JWS/.test((err as Error).message))
          return { invalid: 'the token is not a JWT' };
        return { failed: `${where}: ${code === 'ERR_JWKS_TIMEOUT' ? 'no answer in time' : unreachable(err)}` };
      }
    },
    close() {},
  };
}

/** The userinfo endpoint's answer for a valid token: its claims, a refusal (invalid), or a failure. */
export function userinfoSource(url: string): Source {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  return {
    async claims(token) {
      let res;
      try {
        res = await send(url, {
          method: 'GET',
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          dispatcher: agent,
          signal: AbortSignal.timeout(DEFAULT_SERVICE_TIMEOUT_MS),
        });
      } catch (err) {
        return { failed: `userinfo endpoint ${url}: ${unreachable(err)}` };
      }
      const answer = await jsonOf(res.body);
      if (res.statusCode === 401 || res.statusCode === 403)
        return { invalid: `the userinfo endpoint refused the token (${res.statusCode})` };
      if (res.statusCode !== 200 || !answer)
        return {
          failed: `userinfo endpoint ${url} answered ${res.statusCode}${answer ? '' : ' without a JSON object'}`,
        };
      return { claims: answer };
    },
    close: () => void agent.close(),
  };
}
