/**
 * The `basicAuth` config: HTTP Basic credentials checked against the
 * AuthConfig's users, each a salt and a hash: Apache's APR1 (iterated MD5,
 * as `htpasswd -m` and `openssl passwd -apr1` make them; Gloo's `apr` and
 * `encryption.apr`) or SHA-1 of the password followed by the salt, in hex
 * (Gloo's `encryption.sha1`). Hashes are compared with timingSafeEqual, and
 * an unknown user costs the same hashing as a known one, so timing tells
 * neither the hash nor who exists. 401 with `WWW-Authenticate: Basic
 * realm="..."`; allowed: `x-user-id` is the username and the credentials
 * header is removed before the request goes upstream.
 */
import { timingSafeEqual } from 'node:crypto';
import { hashPassword, parseBasic, type HashAlgorithm } from '../../contract/basic-credentials.js';
import { USER_ID_HEADER, realmChallenge, storedHashProblem } from '../../contract/extauth.js';
import { ConfigError, entries, field, obj, str, type Obj } from '../config-fields.js';
import { allow, deny, stateless, type AuthModule, type Check, type Verdict } from '../module.js';

const fail = (message: string): never => {
  throw new ConfigError(message);
};

export interface BasicAuthSettings {
  realm: string;
  algorithm: HashAlgorithm;
  users: Map<string, { salt: string; hashedPassword: string }>;
}

function parseBasicAuth(raw: Obj, where: string): BasicAuthSettings {
  // Proto3 JSON writes an enum by name or number; APR1, the zero value, is usually left out.
  const a = field(raw, 'algorithm');
  const algorithm: HashAlgorithm =
    a === 'SHA1' || a === 1
      ? 'SHA1'
      : a === undefined || a === null || a === 'APR1' || a === 0
        ? 'APR1'
        : fail(`${where}.algorithm: ${JSON.stringify(a)} is not APR1 or SHA1`);
  const users = entries(raw, 'users', where, (v, at) => {
    const o = obj(v, at);
    const salt = str(o, 'salt', at, true);
    const hashed = str(o, 'hashed_password', at, true);
    const bad = storedHashProblem(algorithm, salt, hashed);
    if (bad) throw new ConfigError(`${at}.${bad.field}: ${bad.problem}`);
    // SHA-1 hex is case-insensitive (Gloo's docs).
    return { salt, hashedPassword: algorithm === 'SHA1' ? hashed.toLowerCase() : hashed };
  });
  return { realm: str(raw, 'realm', where), algorithm, users: new Map(users) };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'latin1');
  const y = Buffer.from(b, 'latin1');
  // Unequal lengths: compared against itself, so the time does not depend on which is longer.
  return x.length === y.length ? timingSafeEqual(x, y) : !timingSafeEqual(x, x);
}

function basicAuthCheck(s: BasicAuthSettings): Check {
  const challenge = { headers: [{ key: 'www-authenticate', value: realmChallenge(s.realm) }] };
  const missing = deny(401, 'no Basic credentials', challenge);
  const malformed = deny(401, 'malformed Basic credentials', challenge);
  const rejected = deny(401, 'unknown user or wrong password', challenge);
  // A user that does not exist is hashed against a salt like any other, so it takes as long as a wrong password.
  const decoy = { salt: 'sluice00', hashedPassword: '' };
  const allowed = new Map<string, Verdict>();
  for (const user of s.users.keys())
    allowed.set(
      user,
      allow({
        headers: [{ key: USER_ID_HEADER, value: user }],
        removeHeaders: ['authorization', 'proxy-authorization'],
        identity: user,
      }),
    );
  return (request) => {
    // Gloo reads Proxy-Authorization too when Authorization is absent.
    const header = request.headers.authorization ?? request.headers['proxy-authorization'];
    if (!header) return missing;
    const creds = parseBasic(header);
    if (!creds) return malformed;
    const user = s.users.get(creds.username);
    const hashed = hashPassword(s.algorithm, creds.password, (user ?? decoy).salt);
    return user && sameText(hashed, user.hashedPassword) ? allowed.get(creds.username)! : rejected;
  };
}

export const basicAuthModule: AuthModule<BasicAuthSettings> = {
  field: 'basic_auth',
  parse: parseBasicAuth,
  create: () => stateless(basicAuthCheck),
};
