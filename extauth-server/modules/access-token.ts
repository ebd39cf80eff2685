/**
 * Gloo's `oauth2.accessTokenValidation`: the request's `Authorization:
 * Bearer` token validated by introspection or as a JWT
 * (./access-token-sources.ts), then the userinfo endpoint asked when one is
 * configured. A valid token's result is kept (by the token's SHA-256, at
 * most cacheTimeout and never past its exp, at most 10000 tokens per
 * config); a token that is not valid is asked about again each time. As in
 * Gloo, a missing, invalid or expired token and a missing scope are 403;
 * the provider failing is 503 (fail closed). Allowed: claimsToHeaders set
 * upstream, the user id attribute as x-user-id, the claims as state for the
 * configs after this one (`jwtAccessToken` for a JWT, `introspection` for the
 * introspection or userinfo answer). The token stays on the request.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { headerValueProblem, httpUrlProblem, USER_ID_HEADER } from '../../contract/extauth.js';
import { bool, ConfigError, field, list, message, num, obj, str, strings, type Obj } from '../config-fields.js';
import {
  allow,
  deny,
  type AuthModule,
  type Check,
  type ModuleContext,
  type ModuleInstance,
  type Prepared,
  type Verdict,
} from '../module.js';
import {
  introspectionSource,
  jwtKeys,
  jwtSource,
  userinfoSource,
  type Claims,
  type IntrospectionSettings,
  type JwtSettings,
  type Source,
} from './access-token-sources.js';

export interface AccessTokenSettings {
  introspection?: IntrospectionSettings;
  jwt?: JwtSettings;
  userinfoUrl: string;
  /** 0: results are not kept. */
  cacheTimeoutMs: number;
  requiredScopes: string[];
  claimsToHeaders: { claim: string; header: string; append: boolean }[];
}

const MAX_CACHE_MS = 4_294_967_295;
const DEFAULT_REFRESH_MS = 300_000;
/** Valid tokens kept per config: enough for every client of a busy API, bounded so tokens cannot exhaust memory. */
export const CACHE_ENTRIES = 10_000;

function url(o: Obj, name: string, where: string): string {
  const u = str(o, name, where, true);
  const problem = httpUrlProblem(u);
  if (problem) throw new ConfigError(`${where}.${name}: "${u}" ${problem}`);
  return u;
}

function parseAccessToken(raw: Obj, where: string): AccessTokenSettings {
  const i = message(raw, 'introspection', where);
  const j = message(raw, 'jwt', where);
  if (!i === !j) throw new ConfigError(`${where}: exactly one of introspection and jwt`);
  const settings: AccessTokenSettings = {
    userinfoUrl: field(raw, 'userinfo_url') ? url(raw, 'userinfo_url', where) : '',
    // 0 (or unset) means "not kept" here: the compiler writes Gloo's default.
    cacheTimeoutMs: num(raw, 'cache_timeout_ms', 0, MAX_CACHE_MS, where),
    requiredScopes: strings(raw, 'required_scopes', where),
    claimsToHeaders: list(raw, 'claims_to_headers', where).map((c, n) => {
      const at = `${where}.claims_to_headers[${n}]`;
      const o = obj(c, at);
      return {
        claim: str(o, 'claim', at, true),
        header: str(o, 'header', at, true).toLowerCase(),
        append: bool(o, 'append', at),
      };
    }),
  };
  if (i) {
    const at = `${where}.introspection`;
    settings.introspection = {
      url: url(i, 'url', at),
      clientId: str(i, 'client_id', at),
      clientSecret: str(i, 'client_secret', at),
      userIdAttributeName: str(i, 'user_id_attribute_name', at),
    };
  } else {
    const at = `${where}.jwt`;
    const remote = message(j!, 'remote_jwks', at);
    const local = str(j!, 'local_jwks', at);
    if (!remote === !local) throw new ConfigError(`${at}: exactly one of remote_jwks and local_jwks`);
    settings.jwt = {
      ...(remote
        ? {
            remoteJwks: {
              url: url(remote, 'url', `${at}.remote_jwks`),
              refreshIntervalMs: num(
                remote,
                'refresh_interval_ms',
                DEFAULT_REFRESH_MS,
                MAX_CACHE_MS,
                `${at}.remote_jwks`,
              ),
            },
          }
        : { localJwks: local }),
      issuer: str(j!, 'issuer', at),
      audiences: strings(j!, 'audiences', at),
    };
    try {
      if (local) jwtKeys(settings.jwt);
    } catch (err) {
      throw new ConfigError(`${at}.local_jwks: not a JWKS jose can read (${(err as Error).message})`);
    }
  }
  return settings;
}

/** A claim as a header value: a string as it is, anything else as JSON; undefined when it cannot be one. */
function headerValueOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return headerValueProblem(text) ? undefined : text;
}

/** The scopes a token was granted: the space-separated `scope` (a list, as some providers write `scp`, too). */
function scopesOf(claims: Claims): Set<string> {
  const s = claims.scope ?? claims.scp;
  return new Set(typeof s === 'string' ? s.split(' ').filter(Boolean) : Array.isArray(s) ? s.map(String) : []);
}

/** One config's validation, with its sources and its cache; kept across configurations while the settings are the same. */
class Validator {
  private readonly source: Source;
  private readonly userinfo?: Source;
  private readonly cache?: LRUCache<string, Verdict>;
  private readonly inFlight = new Map<string, Promise<Verdict>>();
  private readonly missing = deny(403, 'no bearer token');

  constructor(private readonly s: AccessTokenSettings) {
    this.source = s.introspection ? introspectionSource(s.introspection) : jwtSource(s.jwt!, jwtKeys(s.jwt!));
    if (s.userinfoUrl) this.userinfo = userinfoSource(s.userinfoUrl);
    if (s.cacheTimeoutMs) this.cache = new LRUCache({ max: CACHE_ENTRIES, ttl: s.cacheTimeoutMs, ttlAutopurge: false });
  }

  readonly check: Check = (request) => {
    const header = request.headers.authorization ?? '';
    const m = /^bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
    if (!m) return this.missing;
    const key = createHash('sha256').update(m[1]!).digest('base64');
    const kept = this.cache?.get(key);
    if (kept) return kept;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.validate(m[1]!, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  };

  private async validate(token: string, key: string): Promise<Verdict> {
    const answer = await this.source.claims(token);
    if ('failed' in answer) return deny(503, answer.failed);
    if ('invalid' in answer) return deny(403, answer.invalid);
    const { claims } = answer;
    const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
    // An introspection answer may say active with an exp already past (a JWT's is checked by jose).
    if (exp !== undefined && exp <= Date.now()) return deny(403, 'the token has expired');
    const missingScopes = this.s.requiredScopes.filter((x) => !scopesOf(claims).has(x));
    if (missingScopes.length) return deny(403, `the token lacks the required scope(s) ${missingScopes.join(', ')}`);
    const userAttribute = this.s.introspection?.userIdAttributeName;
    const user = userAttribute ? headerValueOf(claims[userAttribute]) : undefined;
    if (userAttribute && user === undefined)
      return deny(403, `the introspection answer has no usable ${userAttribute} (userIdAttributeName)`);
    let info: Claims | undefined;
    if (this.userinfo) {
      const u = await this.userinfo.claims(token);
      if ('failed' in u) return deny(503, u.failed);
      if ('invalid' in u) return deny(403, u.invalid);
      info = u.claims;
    }
    const headers = this.s.claimsToHeaders.flatMap((c) => {
      const value = headerValueOf(claims[c.claim]);
      return value === undefined ? [] : [{ key: c.header, value, ...(c.append ? { append: true } : {}) }];
    });
    const subject =
      typeof claims.sub === 'string' ? claims.sub : typeof claims.client_id === 'string' ? claims.client_id : undefined;
    const verdict = allow({
      headers: user !== undefined ? [{ key: USER_ID_HEADER, value: user }, ...headers] : headers,
      ...(subject ? { identity: subject } : {}),
      // Gloo's AuthorizationRequest.State entries.
      state: this.s.jwt
        ? { jwtAccessToken: claims, ...(info ? { introspection: info } : {}) }
        : { introspection: info ?? claims },
    });
    if (this.cache) {
      const ttl = Math.min(this.s.cacheTimeoutMs, exp !== undefined ? exp - Date.now() : Infinity);
      if (ttl > 0) this.cache.set(key, verdict, { ttl });
    }
    return verdict;
  }

  close(): void {
    this.source.close();
    this.userinfo?.close();
  }
}

/** Validators by their settings: a new configuration that keeps a config keeps its cache and its keys. */
class AccessTokenInstance implements ModuleInstance<AccessTokenSettings> {
  private validators = new Map<string, Validator>();

  prepare(settings: readonly AccessTokenSettings[]): Prepared<AccessTokenSettings> {
    const created = new Map<string, Validator>();
    const next = new Map<string, Validator>();
    const byKey = (s: AccessTokenSettings) => JSON.stringify(s);
    try {
      for (const s of settings) {
        const k = byKey(s);
        if (next.has(k)) continue;
        const v = this.validators.get(k) ?? new Validator(s);
        if (!this.validators.has(k)) created.set(k, v);
        next.set(k, v);
      }
    } catch (err) {
      for (const v of created.values()) v.close();
      throw err;
    }
    const checks = new Map(settings.map((s) => [s, next.get(byKey(s))!.check]));
    return {
      check: (s) => checks.get(s)!,
      commit: () => {
        for (const [k, v] of this.validators) if (!next.has(k)) v.close();
        this.validators = next;
      },
      abort: () => {
        for (const v of created.values()) v.close();
      },
    };
  }

  async close(): Promise<void> {
    for (const v of this.validators.values()) v.close();
    this.validators.clear();
  }
}

export const accessTokenModule: AuthModule<AccessTokenSettings> = {
  field: 'access_token_validation',
  parse: parseAccessToken,
  create: (_context: ModuleContext) => new AccessTokenInstance(),
};
