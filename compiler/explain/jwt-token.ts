/**
 * A token as jwt_authn reads it (jwt_verify_lib): where a provider looks for
 * it, how it parses, and the status texts of what can go wrong.
 */
import type { Json } from '../translate/output.js';
import { headerValue, queryParams, type HttpRequest } from '../envoy/request.js';
/** Envoy's status texts (source/common/jwt/status.cc) for the statuses explain can reach. */
export const STATUS_TEXT = {
  Ok: 'OK',
  JwtMissed: 'Jwt is missing',
  JwtNotYetValid: 'Jwt not yet valid',
  JwtExpired: 'Jwt is expired',
  JwtBadFormat: 'Jwt is not in the form of Header.Payload.Signature with two dots and 3 sections',
  JwtHeaderParseErrorBadBase64: 'Jwt header is an invalid Base64url encoded',
  JwtHeaderParseErrorBadJson: 'Jwt header is an invalid JSON',
  JwtHeaderBadAlg: 'Jwt header [alg] field is required and must be a string',
  JwtHeaderNotImplementedAlg: 'Jwt header [alg] is not supported',
  JwtHeaderBadKid: 'Jwt header [kid] field is not a string',
  JwtPayloadParseErrorBadBase64: 'Jwt payload is an invalid Base64url encoded',
  JwtPayloadParseErrorBadJson: 'Jwt payload is an invalid JSON',
  JwtPayloadParseErrorIssNotString: 'Jwt payload [iss] field is not a string',
  JwtPayloadParseErrorSubNotString: 'Jwt payload [sub] field is not a string',
  JwtPayloadParseErrorIatNotInteger: 'Jwt payload [iat] field is not an integer',
  JwtPayloadParseErrorNbfNotInteger: 'Jwt payload [nbf] field is not an integer',
  JwtPayloadParseErrorExpNotInteger: 'Jwt payload [exp] field is not an integer',
  JwtPayloadParseErrorJtiNotString: 'Jwt payload [jti] field is not a string',
  JwtPayloadParseErrorAudNotString: 'Jwt payload [aud] field is not a string or string list',
  JwtSignatureParseErrorBadBase64: 'Jwt signature is an invalid Base64url encoded',
  JwtUnknownIssuer: 'Jwt issuer is not configured',
  JwtAudienceNotAllowed: 'Audiences in Jwt are not allowed',
  JwtVerificationFail: 'Jwt verification fails',
  JwksKidAlgMismatch: "Jwks doesn't have key to match kid or alg from Jwt",
  JwksNoValidKeys: "Jwks doesn't have any valid public key",
  JwksFetchFail: 'Jwks remote fetch is failed',
} as const;

export type Status = keyof typeof STATUS_TEXT;

const ALGS = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'HS256',
  'HS384',
  'HS512',
  'EdDSA',
]);

export interface Token {
  value: string;
  where: string;
  /** Header the token came from; removed upstream when the provider does not forward it. */
  header?: string;
}

/** Where a provider looks for tokens; Envoy's defaults when none is configured. */
export function extractTokens(provider: Json, req: HttpRequest): { tokens: Token[]; places: string[] } {
  let fromHeaders = (provider.from_headers as Json[] | undefined) ?? [];
  let fromParams = (provider.from_params as string[] | undefined) ?? [];
  const fromCookies = (provider.from_cookies as string[] | undefined) ?? [];
  if (fromHeaders.length + fromParams.length + fromCookies.length === 0) {
    fromHeaders = [{ name: 'Authorization', value_prefix: 'Bearer ' }];
    fromParams = ['access_token'];
  }
  const tokens: Token[] = [];
  const places: string[] = [];
  for (const h of fromHeaders) {
    const name = h.name as string;
    const prefix = (h.value_prefix as string | undefined) ?? '';
    places.push(prefix ? `header ${name} after ${JSON.stringify(prefix)}` : `header ${name}`);
    const value = headerValue(req, name);
    if (value === undefined) continue;
    if (!prefix) {
      tokens.push({ value, where: `header ${name}`, header: name });
      continue;
    }
    // Envoy looks for the prefix anywhere in the value, then takes the run of JWT characters after it (extractor.cc).
    const at = value.indexOf(prefix);
    if (at === -1) continue;
    const m = /[A-Za-z0-9_\-.=]+/.exec(value.slice(at + prefix.length));
    tokens.push({ value: m ? m[0] : value, where: `header ${name}`, header: name });
  }
  const params = queryParams(req.path);
  for (const p of fromParams) {
    places.push(`query parameter ${p}`);
    const v = params.get(p);
    if (v !== undefined) tokens.push({ value: v, where: `query parameter ${p}` });
  }
  const cookies = new Map(
    (headerValue(req, 'cookie') ?? '')
      .split(/;\s*/)
      .filter(Boolean)
      .map((c) => [c.split('=')[0]!, c.slice(c.indexOf('=') + 1)] as [string, string]),
  );
  for (const c of fromCookies) {
    places.push(`cookie ${c}`);
    const v = cookies.get(c);
    if (v !== undefined) tokens.push({ value: v, where: `cookie ${c}` });
  }
  return { tokens, places };
}

export interface Parsed {
  header: Json;
  payload: Json;
  signingInput: string;
}

function decodeJson(part: string): Json | undefined | 'base64' {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(part)) return 'base64';
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** jwt_verify_lib's Jwt::parseFromString: the status of a token that does not parse, or its parts. */
export function parse(token: string): Parsed | Status {
  const parts = token.split('.');
  if (parts.length !== 3) return 'JwtBadFormat';
  const header = decodeJson(parts[0]!);
  if (header === 'base64') return 'JwtHeaderParseErrorBadBase64';
  if (!header) return 'JwtHeaderParseErrorBadJson';
  if (typeof header.alg !== 'string') return 'JwtHeaderBadAlg';
  if (!ALGS.has(header.alg)) return 'JwtHeaderNotImplementedAlg';
  if (header.kid !== undefined && typeof header.kid !== 'string') return 'JwtHeaderBadKid';
  const payload = decodeJson(parts[1]!);
  if (payload === 'base64') return 'JwtPayloadParseErrorBadBase64';
  if (!payload) return 'JwtPayloadParseErrorBadJson';
  const isInt = (v: unknown) => v === undefined || (typeof v === 'number' && v >= 0);
  if (payload.iss !== undefined && typeof payload.iss !== 'string') return 'JwtPayloadParseErrorIssNotString';
  if (payload.sub !== undefined && typeof payload.sub !== 'string') return 'JwtPayloadParseErrorSubNotString';
  if (!isInt(payload.iat)) return 'JwtPayloadParseErrorIatNotInteger';
  if (!isInt(payload.nbf)) return 'JwtPayloadParseErrorNbfNotInteger';
  if (!isInt(payload.exp)) return 'JwtPayloadParseErrorExpNotInteger';
  if (payload.jti !== undefined && typeof payload.jti !== 'string') return 'JwtPayloadParseErrorJtiNotString';
  const aud = payload.aud;
  if (aud !== undefined && typeof aud !== 'string' && !(Array.isArray(aud) && aud.every((a) => typeof a === 'string')))
    return 'JwtPayloadParseErrorAudNotString';
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(parts[2]!)) return 'JwtSignatureParseErrorBadBase64';
  return { header, payload, signingInput: token };
}
