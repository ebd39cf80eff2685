/**
 * Gloo's `oauth2.oidcAuthorizationCode`: Gloo's defaults applied (cookie
 * options, refreshing, poll interval), the client secret and the cookie keys
 * read from their Secrets, the URLs checked. A secret never appears in a
 * message: its Secret is named instead.
 */
import { parseDuration } from '../../../contract/proto3-json.js';
import { fieldError, notFound, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { OidcIR } from '../../ir/oidc.js';
import type { OidcSpec } from '../../kinds/extauth/oidc.js';
import type { Resource } from '../../validate/validate.js';
import { refOf, showRef } from '../index.js';
import type { Lookups } from '../lookups.js';
import { entriesOf } from './api-key.js';

export const CLIENT_SECRET_ENTRY = 'client-secret';
export const CIPHER_KEY_ENTRY = 'key';
const PREVIOUS_KEY = /^previous-key/;
const DAY_S = 24 * 3600;
const SAME_SITE = { LaxMode: 'Lax', StrictMode: 'Strict', NoneMode: 'None' } as const;

const ms = (d: string | undefined, fallback: number) =>
  d === undefined ? fallback : Number(parseDuration(d)! / 1_000_000n);

/** Gloo's oauth Secret holds the secret as is (kubectl --from-literal) or as the YAML line `clientSecret: value`. */
function clientSecretOf(value: string): string {
  const yaml = /^\s*client_?[sS]ecret:\s*(\S.*?)\s*$/.exec(value);
  return yaml ? yaml[1]! : value;
}

export function resolveOidc(
  ac: Resource,
  path: FieldPath,
  spec: OidcSpec,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): OidcIR | undefined {
  let ok = true;
  const fail = (at: FieldPath, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, at, message, hint));
    ok = false;
  };
  const secretOf = (raw: { name: string; namespace?: string }, at: FieldPath, create: string) => {
    const ref = refOf(raw, ac);
    const secret = lookups.resource('Secret', ref);
    if (!secret) {
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            ac.origin,
            at,
            `Secret ${showRef(ref)} not found`,
            `create it with \`${create.replace('NAME', ref.name).replace('NS', ref.namespace)}\` and add its output to the resources`,
          ),
          `Secret ${showRef(ref)}`,
        ),
      );
      ok = false;
    }
    return secret && { secret, name: showRef(ref) };
  };

  // The client secret: clientAuthentication.clientSecret replaces the deprecated top-level fields, as in Gloo.
  const auth = spec.clientAuthentication?.clientSecret;
  const authAt = auth ? [...path, 'clientAuthentication', 'clientSecret'] : path;
  const secretRef = auth ? auth.clientSecretRef : spec.clientSecretRef;
  const disabled = auth ? auth.disableClientSecret : spec.disableClientSecret;
  let clientSecret = '';
  if (spec.clientAuthentication && !auth)
    fail(
      [...path, 'clientAuthentication'],
      'sets no clientSecret',
      'set clientSecret.clientSecretRef or clientSecret.disableClientSecret: true',
    );
  else if (secretRef && disabled)
    fail(
      authAt,
      'sets both clientSecretRef and disableClientSecret',
      'a public client has no secret: drop one of them',
    );
  else if (!secretRef && !disabled)
    fail(
      authAt,
      'sets neither clientSecretRef nor disableClientSecret',
      'reference the Secret of the client secret, or set disableClientSecret: true for a public client',
    );
  else if (secretRef) {
    const at = [...authAt, 'clientSecretRef'];
    const found = secretOf(
      secretRef,
      at,
      `kubectl create secret generic NAME -n NS --type extauth.solo.io/oauth --from-literal=${CLIENT_SECRET_ENTRY}=SECRET --dry-run=client -o yaml`,
    );
    if (found) {
      const value = entriesOf(found.secret)[CLIENT_SECRET_ENTRY];
      if (!value)
        fail(
          at,
          `Secret ${found.name} has no ${CLIENT_SECRET_ENTRY} entry (or an empty one)`,
          `put the client secret under "${CLIENT_SECRET_ENTRY}"`,
        );
      else clientSecret = clientSecretOf(value);
    }
  }

  const appUrl = new URL(spec.appUrl);
  const s = spec.session ?? {};
  const cookieAt = [...path, 'session'];
  let cipherKeys: string[] = [];
  let cipherSecret: string | undefined;
  if (s.cipherConfig?.keyRef) {
    const at = [...cookieAt, 'cipherConfig', 'keyRef'];
    const found = secretOf(
      s.cipherConfig.keyRef,
      at,
      `kubectl create secret generic NAME -n NS --type gloo.solo.io.EncryptionKeySecret --from-literal=${CIPHER_KEY_ENTRY}=<32 bytes> --dry-run=client -o yaml`,
    );
    if (found) {
      const entries = entriesOf(found.secret);
      const names = [
        CIPHER_KEY_ENTRY,
        ...Object.keys(entries)
          .filter((k) => PREVIOUS_KEY.test(k))
          .sort(),
      ];
      if (!entries[CIPHER_KEY_ENTRY])
        fail(
          at,
          `Secret ${found.name} has no ${CIPHER_KEY_ENTRY} entry`,
          `put the 32-byte key under "${CIPHER_KEY_ENTRY}"`,
        );
      for (const n of names) {
        const value = entries[n];
        if (value !== undefined && Buffer.byteLength(value, 'utf8') !== 32)
          fail(
            at,
            `Secret ${found.name}'s entry ${n} is ${Buffer.byteLength(value, 'utf8')} bytes long, not 32`,
            'an AES-256 key is 32 bytes: e.g. `openssl rand -hex 16`',
          );
      }
      cipherKeys = names.map((n) => entries[n]!).filter((v) => v !== undefined);
      cipherSecret = found.name;
    }
  }
  const options = s.cookieOptions ?? {};
  const sameSite = options.sameSite && options.sameSite !== 'DefaultMode' ? SAME_SITE[options.sameSite] : 'Lax';
  if (sameSite === 'None' && options.notSecure)
    fail(
      [...cookieAt, 'cookieOptions', 'sameSite'],
      'is NoneMode with notSecure: browsers refuse SameSite=None without Secure',
      'drop notSecure, or choose LaxMode',
    );
  const redis = s.redis;
  const prefix = s.cookie?.keyPrefix;
  // Gloo's preExpiryBuffer belongs to Redis sessions (default 2s); a cookie session refreshes once expired.
  const preExpiryBufferMs = redis ? ms(redis.preExpiryBuffer, 2000) : 0;
  if (redis && !redis.options?.host)
    fail([...cookieAt, 'redis', 'options', 'host'], 'is required for Redis sessions', 'e.g. redis.sessions.svc:6379');
  const ir: OidcIR = {
    clientId: spec.clientId,
    clientSecret,
    issuerUrl: spec.issuerUrl,
    authEndpointQueryParams: spec.authEndpointQueryParams ?? {},
    tokenEndpointParams: spec.tokenEndpointQueryParams ?? {},
    appUrl: appUrl.origin,
    callbackPath: spec.callbackPath,
    ...(spec.logoutPath ? { logoutPath: spec.logoutPath } : {}),
    afterLogoutUrl: spec.afterLogoutUrl ?? spec.appUrl,
    scopes: ['openid', ...(spec.scopes ?? []).filter((x) => x !== 'openid')],
    session: {
      failOnFetchFailure: s.failOnFetchFailure ?? false,
      cookie: {
        name: redis ? (redis.cookieName ?? '__session') : prefix ? `${prefix}___session` : '__session',
        maxAgeSeconds: options.maxAge ?? 30 * DAY_S,
        secure: !options.notSecure,
        httpOnly: options.httpOnly ?? true,
        path: options.path ?? '/',
        ...(options.domain ? { domain: options.domain } : {}),
        ...(options.sameSite === 'DefaultMode' ? {} : { sameSite }),
      },
      cipherKeys,
      ...(cipherSecret ? { cipherSecret } : {}),
      allowRefreshing: redis ? (redis.allowRefreshing ?? true) : (s.cookie?.allowRefreshing ?? false),
      preExpiryBufferMs,
      ...((redis?.targetDomain ?? s.cookie?.targetDomain)
        ? { targetDomain: (redis?.targetDomain ?? s.cookie?.targetDomain)! }
        : {}),
      ...(redis
        ? {
            redis: { address: redis.options?.host ?? '', db: redis.options?.db ?? 0, keyPrefix: redis.keyPrefix ?? '' },
          }
        : {}),
    },
    headers: {
      ...(spec.headers?.idTokenHeader ? { idTokenHeader: spec.headers.idTokenHeader.toLowerCase() } : {}),
      ...(spec.headers?.accessTokenHeader ? { accessTokenHeader: spec.headers.accessTokenHeader.toLowerCase() } : {}),
      useBearerSchema: spec.headers?.useBearerSchemaForAuthorization ?? false,
    },
    discoveryOverride: { ...(spec.discoveryOverride ?? {}) },
    discoveryPollIntervalMs: ms(spec.discoveryPollInterval, 30 * 60_000),
    identityClaimsToHeaders: (spec.identityToken?.claimsToHeaders ?? []).map(claimHeader),
    accessClaimsToHeaders: (spec.accessToken?.claimsToHeaders ?? []).map(claimHeader),
  };
  const methods = ir.discoveryOverride.authMethods;
  if (methods && !methods.some((m) => m === 'client_secret_basic' || m === 'client_secret_post' || m === 'none'))
    fail(
      [...path, 'discoveryOverride', 'authMethods'],
      `names no method Sluice speaks (${methods.join(', ')})`,
      'list client_secret_basic or client_secret_post',
    );
  return ok ? ir : undefined;
}

const claimHeader = (c: { claim: string; header: string; append?: boolean }) => ({
  claim: c.claim,
  header: c.header.toLowerCase(),
  append: c.append ?? false,
});
