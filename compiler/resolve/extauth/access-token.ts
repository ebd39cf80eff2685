/**
 * Gloo's `oauth2.accessTokenValidation` config: one way of validating
 * (introspection, its deprecated bare URL, or jwt), URLs checked, the
 * introspection client secret read from its Secret, durations in whole
 * milliseconds and Gloo's defaults applied (cache 10 minutes).
 */
import { httpUrlProblem } from '../../../contract/extauth.js';
import { parseDuration } from '../../../contract/proto3-json.js';
import { fieldError, notFound, quote, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { AccessTokenIR } from '../../ir/access-token.js';
import type { AccessTokenValidationSpec } from '../../kinds/extauth/access-token.js';
import type { Resource } from '../../validate/validate.js';
import { refOf, showRef } from '../index.js';
import type { Lookups } from '../lookups.js';
import { secretEntry } from '../tls.js';

/** The entry of an extauth.solo.io/oauth Secret that holds the client secret (Gloo's). */
export const CLIENT_SECRET_ENTRY = 'client-secret';
const DEFAULT_CACHE_TIMEOUT_MS = 600_000;
const MAX_UINT32 = 4_294_967_295;

export function resolveAccessToken(
  ac: Resource,
  path: FieldPath,
  spec: AccessTokenValidationSpec,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): AccessTokenIR | undefined {
  let ok = true;
  const fail = (at: FieldPath, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, at, message, hint));
    ok = false;
  };
  const checkUrl = (value: string, at: FieldPath) => {
    const problem = httpUrlProblem(value);
    if (problem) fail(at, `${quote(value)} ${problem}`, 'e.g. http://idp.auth.svc.cluster.local:8080/introspect');
    return value;
  };
  const millis = (value: string | undefined, at: FieldPath): number | undefined => {
    if (value === undefined) return undefined;
    const nanos = parseDuration(value)!;
    if (nanos < 0n || nanos % 1_000_000n !== 0n || nanos / 1_000_000n > BigInt(MAX_UINT32)) {
      fail(at, `"${value}" is not a whole number of milliseconds from 0 to about 49 days`, 'e.g. "5m" or "30s"');
      return undefined;
    }
    return Number(nanos / 1_000_000n);
  };

  const ir: AccessTokenIR = {
    cacheTimeoutMs: millis(spec.cacheTimeout, [...path, 'cacheTimeout']) ?? DEFAULT_CACHE_TIMEOUT_MS,
    requiredScopes: spec.requiredScopes?.scope ?? [],
    claimsToHeaders: (spec.claimsToHeaders ?? []).map((c) => ({
      claim: c.claim,
      header: c.header.toLowerCase(),
      append: c.append ?? false,
    })),
  };
  if (spec.userinfoUrl !== undefined) ir.userinfoUrl = checkUrl(spec.userinfoUrl, [...path, 'userinfoUrl']);
  if (spec.introspectionUrl !== undefined)
    ir.introspection = { url: checkUrl(spec.introspectionUrl, [...path, 'introspectionUrl']) };
  if (spec.introspection) {
    const i = spec.introspection;
    const at = [...path, 'introspection'];
    ir.introspection = { url: checkUrl(i.introspectionUrl, [...at, 'introspectionUrl']) };
    if (i.userIdAttributeName !== undefined) ir.introspection.userIdAttributeName = i.userIdAttributeName;
    if (i.clientId !== undefined) ir.introspection.clientId = i.clientId;
    // Gloo: a clientId needs a clientSecretRef unless disableClientSecret; a clientSecretRef needs a clientId.
    if (i.clientSecretRef && i.clientId === undefined)
      fail(at, 'sets clientSecretRef without clientId', 'set clientId, the client the secret belongs to');
    else if (i.clientSecretRef && i.disableClientSecret)
      fail(at, 'sets clientSecretRef and disableClientSecret', 'remove one of them');
    else if (i.clientId !== undefined && !i.clientSecretRef && !i.disableClientSecret)
      fail(
        at,
        'sets clientId without clientSecretRef',
        'reference the Secret holding the client secret, or set disableClientSecret: true for a client without one',
      );
    else if (i.clientSecretRef) {
      const secretAt = [...at, 'clientSecretRef'];
      const ref = refOf(i.clientSecretRef, ac);
      const secret = lookups.resource('Secret', ref);
      const hint = `kubectl create secret generic ${ref.name} -n ${ref.namespace} --type extauth.solo.io/oauth --from-literal=${CLIENT_SECRET_ENTRY}=SECRET --dry-run=client -o yaml`;
      if (!secret) {
        diagnostics.push(
          notFound(
            fieldError(
              'resolve',
              ac.origin,
              secretAt,
              `Secret ${showRef(ref)} not found`,
              `create it with \`${hint}\``,
            ),
            `Secret ${showRef(ref)}`,
          ),
        );
        ok = false;
      } else {
        const entry = secretEntry(secret, CLIENT_SECRET_ENTRY);
        if (!entry?.value)
          fail(
            secretAt,
            `Secret ${showRef(ref)} has no ${CLIENT_SECRET_ENTRY} entry (or an empty one)`,
            `make it with \`${hint}\``,
          );
        else ir.introspection.clientSecret = entry.value;
      }
    }
  }
  if (spec.jwt) {
    const j = spec.jwt;
    const at = [...path, 'jwt'];
    ir.jwt = { audiences: j.audiences ?? [] };
    if (j.issuer !== undefined) ir.jwt.issuer = j.issuer;
    if (j.remoteJwks) {
      const refresh = millis(j.remoteJwks.refreshInterval, [...at, 'remoteJwks', 'refreshInterval']);
      if (refresh === 0)
        fail(
          [...at, 'remoteJwks', 'refreshInterval'],
          'is 0',
          'leave it out for 5 minutes, or give a positive duration',
        );
      ir.jwt.remoteJwks = {
        url: checkUrl(j.remoteJwks.url, [...at, 'remoteJwks', 'url']),
        ...(refresh ? { refreshIntervalMs: refresh } : {}),
      };
    } else {
      const text = j.localJwks!.inlineString;
      const problem = jwksProblem(text);
      if (problem)
        fail(
          [...at, 'localJwks', 'inlineString'],
          problem,
          'write a JWKS document: {"keys": [{"kty": ..., "kid": ...}]}',
        );
      ir.jwt.localJwks = text;
    }
  }
  return ok ? ir : undefined;
}

/** Why `text` is not a JWKS document with keys, or undefined. */
function jwksProblem(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    return 'is not a JWKS document: it has no "keys" list, or an empty one';
  const bad = keys.findIndex(
    (k) => typeof k !== 'object' || k === null || typeof (k as { kty?: unknown }).kty !== 'string',
  );
  return bad >= 0 ? `keys[${bad}] is not a JSON Web Key (no "kty")` : undefined;
}
