/**
 * A local key as Gloo accepts it in `jwks.local.key` (a PEM public key, a JWK
 * or a JWK Set) -> JWKS, synchronously (node:crypto), for jwt_authn's
 * `local_jwks`. Every key goes through the same checks, whatever its form. Only keys Envoy's JWT library can use are accepted (see
 * envoy source/common/jwt/jwks.cc): RSA with e = 3 or 65537, EC on P-256,
 * P-384 or P-521, and Ed25519. Anything else is an error here, because Envoy
 * itself would only log a warning and then reject every token.
 */
import { createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export interface Jwk {
  kty: 'RSA' | 'EC' | 'OKP';
  kid: string;
  alg: string;
  use: 'sig';
  n?: string;
  e?: string;
  crv?: string;
  x?: string;
  y?: string;
}

export type PemConversion = { ok: true; keys: Jwk[] } | { ok: false; message: string; hint: string };

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

const EC_ALG: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };

const PUBLIC_KEY_HINT =
  'give a PEM public key ("-----BEGIN PUBLIC KEY-----"), a JWK or a JWK Set {"keys": [...]} of RSA, EC P-256/P-384/P-521 or Ed25519 keys';

/** The `alg` values Envoy's JWT library accepts for each key type (envoy source/common/jwt/jwks.cc). */
const ALGS: Record<Jwk['kty'], RegExp> = { RSA: /^(RS|PS)(256|384|512)$/, EC: /^ES(256|384|512)$/, OKP: /^EdDSA$/ };

/** Members that only a private JWK has (RFC 7518 6.2.2, 6.3.2; RFC 8037 2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function failure(message: string, hint = PUBLIC_KEY_HINT): PemConversion {
  return { ok: false, message, hint };
}

/**
 * The key id is the one Kubernetes puts in service-account tokens
 * (base64url of SHA-256 over the DER SubjectPublicKeyInfo), so such tokens,
 * which carry a `kid`, match the key; tokens without `kid` match any key.
 */
export function keyId(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

function toJwk(key: KeyObject, index: number): Jwk | string {
  const kid = keyId(key);
  const jwk: JsonWebKey = key.export({ format: 'jwk' });
  switch (key.asymmetricKeyType) {
    case 'rsa': {
      // Envoy rejects other exponents as non-standard (JwksRsaParseError).
      if (jwk.e !== 'AQAB' && jwk.e !== 'Aw')
        return `number ${index + 1} is an RSA key with an exponent other than 3 or 65537, which Envoy rejects`;
      return { kty: 'RSA', kid, alg: 'RS256', use: 'sig', n: jwk.n, e: jwk.e };
    }
    case 'ec': {
      const alg = jwk.crv ? EC_ALG[jwk.crv] : undefined;
      if (!alg)
        return `number ${index + 1} is an EC key on curve ${key.asymmetricKeyDetails?.namedCurve ?? 'unknown'}; Envoy supports P-256, P-384 and P-521`;
      return { kty: 'EC', kid, alg, use: 'sig', crv: jwk.crv, x: jwk.x, y: jwk.y };
    }
    case 'ed25519':
      return { kty: 'OKP', kid, alg: 'EdDSA', use: 'sig', crv: 'Ed25519', x: jwk.x };
    default:
      return `number ${index + 1} is a ${key.asymmetricKeyType ?? 'unknown'} key; Envoy verifies JWTs with RSA, EC and Ed25519 keys only`;
  }
}

const conversions = new Map<string, PemConversion>();
const MAX_CACHED = 4096;

/**
 * Every PEM block of `pem` as one JWK (several blocks allow key rotation).
 * Memoised: one issuer's key is commonly pasted into many VirtualServices, and
 * parsing keys is otherwise the costliest step of translation.
 */
export function pemToJwks(pem: string): PemConversion {
  let conversion = conversions.get(pem);
  if (!conversion) {
    conversion = convert(pem);
    if (conversions.size >= MAX_CACHED) conversions.clear();
    conversions.set(pem, conversion);
  }
  return conversion;
}

function convert(text: string): PemConversion {
  return text.trimStart().startsWith('{') ? convertJwks(text) : convertPem(text);
}

/** A JWK Set `{"keys": [...]}` or one JWK: each key checked as a PEM key is; the user's `kid` and `alg` are kept. */
function convertJwks(text: string): PemConversion {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return failure('starts with "{" but is not JSON (a JWK or a JWK Set)');
  }
  const set = doc as { keys?: unknown };
  const list = Array.isArray(set.keys) ? set.keys : 'keys' in (doc as object) ? undefined : [doc];
  if (!list || list.length === 0) return failure('is a JWK Set without keys: "keys" must be a non-empty list');
  const keys: Jwk[] = [];
  for (const [index, raw] of list.entries()) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      return failure(`number ${index + 1} of the JWK Set is not an object`);
    const given = raw as Record<string, unknown>;
    // Never echo the key: a private JWK is a secret that should not be in this resource at all.
    const secret = PRIVATE_MEMBERS.find((m) => m in given);
    if (secret)
      return failure(
        `number ${index + 1} of the JWK Set is a private or symmetric key (it has "${secret}")`,
        'put only public keys here, and treat the private key as leaked',
      );
    let key: KeyObject;
    try {
      key = createPublicKey({ key: given as JsonWebKey, format: 'jwk' });
    } catch {
      return failure(`number ${index + 1} of the JWK Set is not a valid public JWK (check kty, n/e, crv/x/y)`);
    }
    const jwk = toJwk(key, index);
    if (typeof jwk === 'string') return failure(jwk);
    if (given.kid !== undefined) {
      if (typeof given.kid !== 'string' || given.kid === '')
        return failure(`number ${index + 1} of the JWK Set has a "kid" that is not a non-empty string`);
      jwk.kid = given.kid;
    }
    if (given.alg !== undefined) {
      if (typeof given.alg !== 'string' || !ALGS[jwk.kty].test(given.alg))
        return failure(
          `number ${index + 1} of the JWK Set is ${jwk.kty === 'OKP' ? 'an' : 'a'} ${jwk.kty} key with "alg" ${JSON.stringify(given.alg)}, which Envoy does not use with it`,
        );
      jwk.alg = given.alg;
    }
    if (given.use !== undefined && given.use !== 'sig')
      return failure(
        `number ${index + 1} of the JWK Set has "use" ${JSON.stringify(given.use)}; a key that verifies tokens has "use": "sig"`,
      );
    keys.push(jwk);
  }
  return { ok: true, keys };
}

function convertPem(pem: string): PemConversion {
  const blocks = [...pem.matchAll(BLOCK)];
  if (blocks.length === 0)
    return failure('is not a PEM public key (no "-----BEGIN ...-----" / "-----END ...-----" block)');
  const leftover = pem.replace(BLOCK, '').trim();
  if (leftover) return failure('has text outside its PEM blocks');
  const keys: Jwk[] = [];
  for (const [index, block] of blocks.entries()) {
    const label = block[1]!;
    if (label.includes('PRIVATE KEY')) {
      // Never echo the key: it is a secret that should not be in this resource at all.
      return failure(
        `block ${index + 1} is a private key (${label})`,
        'put only the public key here, e.g. the output of `openssl pkey -pubout`, and treat the private key as leaked',
      );
    }
    if (label === 'CERTIFICATE') {
      return failure(
        `block ${index + 1} is a certificate, not a public key`,
        'extract its key with `openssl x509 -pubkey -noout`',
      );
    }
    if (label !== 'PUBLIC KEY' && label !== 'RSA PUBLIC KEY') {
      return failure(`block ${index + 1} is a "${label}", not a public key`);
    }
    // Re-wrapped from its base64 body so indentation (YAML block scalars) does not matter.
    const body = block[2]!.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return failure(`block ${index + 1} is not base64`);
    const canonical = `-----BEGIN ${label}-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
    let key: KeyObject;
    try {
      key = createPublicKey({ key: canonical, format: 'pem', type: label === 'PUBLIC KEY' ? 'spki' : 'pkcs1' });
    } catch {
      // OpenSSL's reason text varies between versions; the block number is what the user needs.
      return failure(`block ${index + 1} is not a valid public key: its body does not decode to a key`);
    }
    const jwk = toJwk(key, index);
    if (typeof jwk === 'string') return failure(jwk);
    keys.push(jwk);
  }
  return { ok: true, keys };
}
