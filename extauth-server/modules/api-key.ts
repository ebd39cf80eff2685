/**
 * The `apiKeyAuth` config: the key in the configured request header
 * (default `api-key`) must be one of the keys of the Secrets the compiler
 * resolved. The key is hashed with SHA-256 before it is looked up and the
 * digests compared with timingSafeEqual, so how long a check takes says
 * nothing about how much of a guess was right. Allowed: `x-user-id` is the
 * key's Secret name, the configured metadata entries become headers, the
 * key's header is removed before the request goes upstream. Keys are never
 * logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_CHALLENGE, DEFAULT_API_KEY_HEADER, USER_ID_HEADER } from '../../contract/extauth.js';
import { bool, ConfigError, entries, list, obj, str, stringValue, type Obj } from '../config-fields.js';
import { allow, deny, stateless, type AuthModule, type Check, type Verdict } from '../module.js';

export interface ApiKeySettings {
  headerName: string;
  keys: { key: string; user: string; metadata: Record<string, string> }[];
  headersFromMetadata: { header: string; entry: string; required: boolean }[];
}

function parseApiKey(raw: Obj, where: string): ApiKeySettings {
  const keys = list(raw, 'keys', where).map((k, i) => {
    const at = `${where}.keys[${i}]`;
    const o = obj(k, at);
    return {
      key: str(o, 'key', at, true),
      user: str(o, 'user', at, true),
      metadata: Object.fromEntries(entries(o, 'metadata', at, stringValue)),
    };
  });
  const seen = new Set<string>();
  keys.forEach((k, i) => {
    // Never the key itself in an error: it is a secret.
    if (seen.has(k.key)) throw new ConfigError(`${where}.keys[${i}]: the same key as an earlier one (of ${k.user})`);
    seen.add(k.key);
  });
  const headersFromMetadata = entries(raw, 'headers_from_metadata_entry', where, (v, at) => {
    const o = obj(v, at);
    return { entry: str(o, 'name', at, true), required: bool(o, 'required', at) };
  }).map(([header, e]) => ({ header: header.toLowerCase(), ...e }));
  return {
    headerName: (str(raw, 'header_name', where) || DEFAULT_API_KEY_HEADER).toLowerCase(),
    keys,
    headersFromMetadata,
  };
}

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

function apiKeyCheck(s: ApiKeySettings): Check {
  const missing = deny(401, 'API key missing', { headers: [{ key: 'www-authenticate', value: API_KEY_CHALLENGE }] });
  const unknown = deny(401, 'API key unknown', { headers: [{ key: 'www-authenticate', value: API_KEY_CHALLENGE }] });
  // Each key's verdict made once: the same object every time, so its response is encoded once.
  const byDigest = new Map<string, { digest: Buffer; verdict: Verdict }>();
  for (const k of s.keys) {
    const absent = s.headersFromMetadata.find((h) => h.required && !(h.entry in k.metadata));
    const metadataHeaders = s.headersFromMetadata
      .filter((h) => h.entry in k.metadata)
      .map((h) => ({ key: h.header, value: k.metadata[h.entry]! }));
    const verdict: Verdict = absent
      ? deny(401, `API key of ${k.user} has no ${absent.entry} entry, which headersFromMetadataEntry requires`, {
          headers: [{ key: 'www-authenticate', value: API_KEY_CHALLENGE }],
        })
      : allow({
          headers: [{ key: USER_ID_HEADER, value: k.user }, ...metadataHeaders],
          removeHeaders: [s.headerName],
          identity: k.user,
          // Gloo's AuthorizationRequest.State entries: the key, and each metadata header.
          state: { api_key_value: k.key, ...Object.fromEntries(metadataHeaders.map((h) => [h.key, h.value])) },
        });
    const d = digest(k.key);
    byDigest.set(d.toString('base64'), { digest: d, verdict });
  }
  return (request) => {
    const presented = request.headers[s.headerName];
    if (!presented) return missing;
    const d = digest(presented);
    const found = byDigest.get(d.toString('base64'));
    return found && timingSafeEqual(found.digest, d) ? found.verdict : unknown;
  };
}

export const apiKeyModule: AuthModule<ApiKeySettings> = {
  field: 'api_key_auth',
  parse: parseApiKey,
  create: () => stateless(apiKeyCheck),
};
