/**
 * What the compiler and sluice-extauth must agree on beyond sluice/extauth/v1/authconfig.proto's
 * fields: one definition, so the two can never drift apart.
 */
import { FilterParser } from 'ldapts';
import type { HashAlgorithm } from './basic-credentials.js';

/**
 * Set by sluice-extauth on allowed requests with the user's DN. The compiler
 * strips it on every virtual host without extauth; a second spelling here and
 * there would let a client choose its own identity.
 */
export const USER_ID_HEADER = 'x-user-id';

/** The `www-authenticate` challenge of a 401 (RFC 7235 requires one; RFC 7617 names the charset). */
export function basicChallenge(configRef: string): string {
  return `Basic realm="${configRef}", charset="UTF-8"`;
}

/** Defaults of LdapConfig fields the AuthConfig may leave unset (documented in docs/extauth.md). */
export const DEFAULT_SEARCH_FILTER = '(uid=*)';
export const DEFAULT_MEMBERSHIP_ATTRIBUTE = 'memberOf';
export const DEFAULT_POOL_SIZE = { initialSize: 2, maxSize: 5 } as const;

/** LDAP result codes of a user bind that mean "these credentials are not good": 401 (any other failure is 500 or 503). */
export const BIND_REJECTED_CODES: ReadonlySet<number> = new Set([
  32, // noSuchObject
  34, // invalidDNSyntax
  48, // inappropriateAuthentication
  49, // invalidCredentials
  50, // insufficientAccessRights
  53, // unwillingToPerform (e.g. disabled account)
]);

/**
 * Why `address` is not an LDAP server URL the sidecar can open, or undefined:
 * `ldap://host:port` or `ldaps://host:port` with a DNS name, IPv4 or
 * bracketed IPv6 address and a port in 1-65535, read by ldapts (through
 * `new URL`) as exactly that host and port. Checked by the compiler (an
 * error on the AuthConfig) and again by the sidecar on load.
 */
export function ldapAddressProblem(address: string): string | undefined {
  const m = /^ldaps?:\/\/([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(address);
  if (!m) return 'is not ldap://host:port or ldaps://host:port';
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return `has port ${port}, outside 1-65535`;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return 'is not a valid URL';
  }
  if (url.hostname.toLowerCase() !== m[1]!.toLowerCase() || url.port !== m[2])
    return 'is not read as the host and port it names';
  return undefined;
}

/** `address` fit to quote in an error: a user:password@ part (never valid here) is not repeated. */
export function quotableAddress(address: string): string {
  return address.replace(/\/\/[^/@]*@/, '//<user info removed>@');
}

/**
 * Why `filter` is not an RFC 4515 search filter once `%s` is replaced by a
 * username, or undefined. Parsed with ldapts' own parser, the one that runs on
 * every request: a filter that cannot parse would fail every check.
 */
export function searchFilterProblem(filter: string): string | undefined {
  try {
    FilterParser.parseString(filter.split('%s').join('user'));
    return undefined;
  } catch (err) {
    // ldapts' messages quote the filter after a colon; the caller shows it already.
    const reason = (err as Error).message.split(':')[0]!;
    return `is not an LDAP search filter (${reason.charAt(0).toLowerCase()}${reason.slice(1)})`;
  }
}

/** apiKeyAuth: the request header read when the AuthConfig names none (Gloo's default). */
export const DEFAULT_API_KEY_HEADER = 'api-key';
/** apiKeyAuth: Gloo's 401 challenge for a missing or unknown key. */
export const API_KEY_CHALLENGE = 'API key is missing or invalid';
/** apiKeyAuth: the Secret type, and the Secret entry that holds the key (as `kubectl create secret generic --type extauth.solo.io/apikey --from-literal=api-key=...` writes them). */
export const API_KEY_SECRET_TYPE = 'extauth.solo.io/apikey';
export const API_KEY_SECRET_ENTRY = 'api-key';

/** basicAuth: the 401 challenge, as Gloo writes it (the realm as an RFC 7230 quoted-string). */
export function realmChallenge(realm: string): string {
  return `Basic realm="${realm.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * The dynamic metadata namespace of Envoy's jwt_authn filter, which the
 * ext_authz filter forwards (metadata_context_namespaces): a verified token's
 * payload there is what the `jwt` config reads.
 */
export const JWT_AUTHN_NAMESPACE = 'envoy.filters.http.jwt_authn';

/** passThroughAuth (gRPC): where the state of earlier configs and the config's `config` are sent, and state read back (Gloo's keys). */
export const PASS_THROUGH_STATE_KEY = 'solo.auth.passthrough';
export const PASS_THROUGH_CONFIG_KEY = 'solo.auth.passthrough.config';

/** passThroughAuth and opaServerAuth: the longest wait for the service when the AuthConfig gives none (Gloo's 5 s). */
export const DEFAULT_SERVICE_TIMEOUT_MS = 5000;
/** The longest timeout sluice-extauth accepts (extauth-server/config-fields.ts says why). */
export const MAX_TIMEOUT_MS = 300_000;

/** A header value sluice-extauth may set: visible ASCII and spaces/tabs inside (RFC 9110 field-value, without obs-text). */
export function headerValueProblem(value: string): string | undefined {
  return /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$|^$/.test(value)
    ? undefined
    : 'is not a valid header value (visible ASCII only, no line breaks, no spaces at the ends)';
}

/** basicAuth: why a stored salt and hash cannot be one of `algorithm`'s, or undefined (checked by the compiler and again by the sidecar). */
export function storedHashProblem(
  algorithm: HashAlgorithm,
  salt: string,
  hashed: string,
): { field: 'salt' | 'hashed_password'; problem: string } | undefined {
  if (algorithm === 'SHA1')
    return /^[0-9a-fA-F]{40}$/.test(hashed)
      ? undefined
      : { field: 'hashed_password', problem: 'is not 40 hex digits (a SHA-1)' };
  if (salt.includes('$')) return { field: 'salt', problem: 'has a "$", which no APR1 salt has' };
  return /^[./0-9A-Za-z]{22}$/.test(hashed)
    ? undefined
    : { field: 'hashed_password', problem: 'is not an APR1 hash (22 characters of ./0-9A-Za-z)' };
}

/** passThroughAuth (gRPC): why `address` is not host:port, or undefined. */
export function hostPortProblem(address: string): string | undefined {
  const m = /^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(address);
  if (!m) return 'is not host:port';
  const port = Number(m[2]);
  return port >= 1 && port <= 65535 ? undefined : `has port ${port}, outside 1-65535`;
}

/** passThroughAuth (HTTP): why `url` is not an http:// or https:// URL with a host, or undefined. */
export function httpUrlProblem(url: string): string | undefined {
  if (!/^https?:\/\/[^/?#\s@]+(\/[^\s#]*)?$/.test(url))
    return 'is not an http:// or https:// URL with a host (and no user info or fragment)';
  try {
    new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  return undefined;
}

/** opaServerAuth: a Rego package name (dotted) and a rule name (a / path may reach into its value). */
export const REGO_PACKAGE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
export const REGO_RULE = /^[A-Za-z_][A-Za-z0-9_]*(\/[A-Za-z0-9_]+)*$/;
