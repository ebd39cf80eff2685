/** `sluice.extauth.v1.OidcAuthorizationCode` (proto3 JSON) read into the settings the OIDC checks use. */
import {
  bool,
  ConfigError,
  entries,
  list,
  message,
  num,
  obj,
  str,
  stringValue,
  strings,
  type Obj,
} from '../../config-fields.js';

export interface ClaimHeader {
  claim: string;
  header: string;
  append: boolean;
}

export interface CookieSettings {
  name: string;
  maxAgeSeconds: number;
  secure: boolean;
  httpOnly: boolean;
  path: string;
  domain: string;
  sameSite: string;
}

export interface OidcSettings {
  clientId: string;
  clientSecret: string;
  issuerUrl: string;
  authEndpointQueryParams: Record<string, string>;
  tokenEndpointParams: Record<string, string>;
  appUrl: string;
  callbackPath: string;
  logoutPath: string;
  afterLogoutUrl: string;
  scopes: string[];
  session: {
    failOnFetchFailure: boolean;
    cookie: CookieSettings;
    cipherKeys: string[];
    allowRefreshing: boolean;
    preExpiryBufferMs: number;
    targetDomain: string;
    redis?: { address: string; db: number; keyPrefix: string };
  };
  headers: { idTokenHeader: string; accessTokenHeader: string; useBearerSchema: boolean };
  discoveryOverride: {
    authEndpoint: string;
    tokenEndpoint: string;
    jwksUri: string;
    idTokenAlgs: string[];
    authMethods: string[];
  };
  discoveryPollIntervalMs: number;
  identityClaimsToHeaders: ClaimHeader[];
  accessClaimsToHeaders: ClaimHeader[];
}

const DAY_MS = 24 * 3600 * 1000;

function url(o: Obj, name: string, where: string, required = false): string {
  const v = str(o, name, where, required);
  if (v && !/^https?:\/\/[^\s/?#]+/.test(v))
    throw new ConfigError(`${where}.${name}: must be an http:// or https:// URL`);
  return v;
}

const claimHeaders = (o: Obj, name: string, where: string): ClaimHeader[] =>
  list(o, name, where).map((c, i) => {
    const at = `${where}.${name}[${i}]`;
    const e = obj(c, at);
    return {
      claim: str(e, 'claim', at, true),
      header: str(e, 'header', at, true).toLowerCase(),
      append: bool(e, 'append', at),
    };
  });

export function parseOidc(raw: Obj, where: string): OidcSettings {
  const s = message(raw, 'session', where) ?? {};
  const sAt = `${where}.session`;
  const c = message(s, 'cookie', sAt) ?? {};
  const cAt = `${sAt}.cookie`;
  const redis = message(s, 'redis', sAt);
  const keys = strings(s, 'cipher_keys', sAt);
  keys.forEach((k, i) => {
    if (Buffer.byteLength(k, 'utf8') !== 32) throw new ConfigError(`${sAt}.cipher_keys[${i}]: must be 32 bytes long`);
  });
  const h = message(raw, 'headers', where) ?? {};
  const d = message(raw, 'discovery_override', where) ?? {};
  const dAt = `${where}.discovery_override`;
  const appUrl = url(raw, 'app_url', where, true);
  const callbackPath = str(raw, 'callback_path', where, true);
  if (!callbackPath.startsWith('/')) throw new ConfigError(`${where}.callback_path: must start with /`);
  return {
    clientId: str(raw, 'client_id', where, true),
    clientSecret: str(raw, 'client_secret', where),
    issuerUrl: url(raw, 'issuer_url', where, true),
    authEndpointQueryParams: Object.fromEntries(entries(raw, 'auth_endpoint_query_params', where, stringValue)),
    tokenEndpointParams: Object.fromEntries(entries(raw, 'token_endpoint_params', where, stringValue)),
    appUrl: new URL(appUrl).origin,
    callbackPath,
    logoutPath: str(raw, 'logout_path', where),
    afterLogoutUrl: url(raw, 'after_logout_url', where) || appUrl,
    scopes: strings(raw, 'scopes', where),
    session: {
      failOnFetchFailure: bool(s, 'fail_on_fetch_failure', sAt),
      cookie: {
        name: str(c, 'name', cAt) || '__session',
        maxAgeSeconds: num(c, 'max_age_seconds', 0, 10 * 365 * 24 * 3600, cAt),
        secure: bool(c, 'secure', cAt),
        httpOnly: bool(c, 'http_only', cAt),
        path: str(c, 'path', cAt),
        domain: str(c, 'domain', cAt),
        sameSite: str(c, 'same_site', cAt),
      },
      cipherKeys: keys,
      allowRefreshing: bool(s, 'allow_refreshing', sAt),
      preExpiryBufferMs: num(s, 'pre_expiry_buffer_ms', 0, DAY_MS, sAt),
      targetDomain: str(s, 'target_domain', sAt).toLowerCase(),
      ...(redis
        ? {
            redis: {
              address: str(redis, 'address', `${sAt}.redis`, true),
              db: num(redis, 'db', 0, 15, `${sAt}.redis`),
              keyPrefix: str(redis, 'key_prefix', `${sAt}.redis`),
            },
          }
        : {}),
    },
    headers: {
      idTokenHeader: str(h, 'id_token_header', `${where}.headers`).toLowerCase(),
      accessTokenHeader: str(h, 'access_token_header', `${where}.headers`).toLowerCase(),
      useBearerSchema: bool(h, 'use_bearer_schema', `${where}.headers`),
    },
    discoveryOverride: {
      authEndpoint: url(d, 'auth_endpoint', dAt),
      tokenEndpoint: url(d, 'token_endpoint', dAt),
      jwksUri: url(d, 'jwks_uri', dAt),
      idTokenAlgs: strings(d, 'id_token_algs', dAt),
      authMethods: strings(d, 'auth_methods', dAt),
    },
    discoveryPollIntervalMs: num(raw, 'discovery_poll_interval_ms', 30 * 60_000, DAY_MS, where),
    identityClaimsToHeaders: claimHeaders(raw, 'identity_claims_to_headers', where),
    accessClaimsToHeaders: claimHeaders(raw, 'access_claims_to_headers', where),
  };
}
