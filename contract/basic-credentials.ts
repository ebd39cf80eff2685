/**
 * HTTP Basic credentials (RFC 7617) as sluice-extauth reads them, for the
 * `ldap` and `basicAuth` configs and for `sluice explain`, and the stored
 * password forms of `basicAuth`.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

/** apache-md5 is CommonJS whose types declare an ES default export: loaded as what it is. */
const aprMd5 = createRequire(import.meta.url)('apache-md5') as (password: string, salt: string) => string;

export type HashAlgorithm = 'APR1' | 'SHA1';

/** The stored form of `password` with `salt`, for `algorithm`. */
export function hashPassword(algorithm: HashAlgorithm, password: string, salt: string): string {
  if (algorithm === 'SHA1')
    return createHash('sha1')
      .update(password + salt, 'utf8')
      .digest('hex');
  // apache-md5 hashes each character's low byte: hand it the UTF-8 bytes one per character, as htpasswd hashes them.
  return aprMd5(Buffer.from(password, 'utf8').toString('latin1'), `$apr1$${salt}$`).slice(`$apr1$${salt}$`.length);
}

export interface Credentials {
  username: string;
  password: string;
}

/** Longer Authorization headers are refused without decoding (4 KiB, as common proxies cap a header line). */
export const MAX_AUTHORIZATION_LENGTH = 4096;

const BASIC_RE = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
// ignoreBOM: a leading U+FEFF is part of the username, as the client sent it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Credentials from an `Authorization: Basic` header, or undefined when the
 * header is absent or malformed in any way (not base64, not UTF-8, no colon,
 * empty username or password, NUL bytes, oversized). Undefined means 401
 * without any bind.
 */
export function parseBasic(header: string | undefined): Credentials | undefined {
  if (!header || header.length > MAX_AUTHORIZATION_LENGTH) return undefined;
  const m = BASIC_RE.exec(header);
  if (!m || m[1].length % 4 !== 0) return undefined;
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(m[1], 'base64'));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  // An empty password would be an unauthenticated bind, which LDAP servers accept (RFC 4513 5.1.2); no stored hash is of one either.
  if (!password || decoded.includes('\0')) return undefined;
  return { username, password };
}
