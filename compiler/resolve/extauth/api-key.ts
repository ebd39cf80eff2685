/**
 * Gloo's `apiKeyAuth` config: the keys of the Secrets of type
 * extauth.solo.io/apikey it chooses by reference and/or by labels (the
 * `k8sSecretApikeyStorage` form replacing the deprecated top-level one, as
 * in Gloo), each Secret's `api-key` entry the key and its other entries the
 * key's metadata. A key never appears in a message: Secrets are named instead.
 */
import {
  API_KEY_SECRET_ENTRY,
  API_KEY_SECRET_TYPE,
  DEFAULT_API_KEY_HEADER,
  headerValueProblem,
} from '../../../contract/extauth.js';
import { fieldError, notFound, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { ApiKeyIR } from '../../ir/model.js';
import type { ApiKeyAuthSpec } from '../../kinds/extauth/api-key.js';
import type { Resource } from '../../validate/validate.js';
import { refOf, showRef } from '../index.js';
import type { Lookups } from '../lookups.js';
import { secretEntry } from '../tls.js';

const createHint = (name: string, namespace: string) =>
  `kubectl create secret generic ${name} -n ${namespace} --type ${API_KEY_SECRET_TYPE} --from-literal=${API_KEY_SECRET_ENTRY}=KEY --dry-run=client -o yaml`;

const secretType = (s: Resource) => (s.value as { type?: unknown }).type;
const labelsOf = (s: Resource) =>
  ((s.value as { metadata?: { labels?: Record<string, string> | null } }).metadata?.labels ?? {}) as Record<
    string,
    string
  >;

/** The Secret's entries, decoded (stringData over data, as the API server merges them). */
export function entriesOf(secret: Resource): Record<string, string> {
  const { data, stringData } = secret.value as { data?: Record<string, unknown>; stringData?: Record<string, unknown> };
  const keys = new Set([...Object.keys(data ?? {}), ...Object.keys(stringData ?? {})]);
  return Object.fromEntries(
    [...keys].flatMap((k) => {
      const e = secretEntry(secret, k);
      return e ? [[k, e.value]] : [];
    }),
  );
}

export function resolveApiKey(
  ac: Resource,
  path: FieldPath,
  spec: ApiKeyAuthSpec,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): ApiKeyIR | undefined {
  let ok = true;
  const fail = (at: FieldPath, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, at, message, hint));
    ok = false;
  };
  const storage = spec.k8sSecretApikeyStorage;
  // Gloo: values under the storage backend replace the deprecated top-level ones.
  const refsAt = storage?.apiKeySecretRefs
    ? [...path, 'k8sSecretApikeyStorage', 'apiKeySecretRefs']
    : [...path, 'apiKeySecretRefs'];
  const selectorAt = storage?.labelSelector
    ? [...path, 'k8sSecretApikeyStorage', 'labelSelector']
    : [...path, 'labelSelector'];
  const refs = storage?.apiKeySecretRefs ?? spec.apiKeySecretRefs;
  const selector = storage?.labelSelector ?? spec.labelSelector;
  if (!refs && !selector) {
    fail(
      path,
      'chooses no Secrets: neither apiKeySecretRefs nor labelSelector is set',
      'set k8sSecretApikeyStorage.apiKeySecretRefs or k8sSecretApikeyStorage.labelSelector',
    );
    return undefined;
  }
  const chosen = new Map<string, { secret: Resource; at: FieldPath }>();
  (refs ?? []).forEach((raw, i) => {
    const ref = refOf(raw, ac);
    const secret = lookups.resource('Secret', ref);
    const at = [...refsAt, i];
    if (!secret) {
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            ac.origin,
            at,
            `Secret ${showRef(ref)} not found`,
            `create it with \`${createHint(ref.name, ref.namespace)}\` and add its output to the resources`,
          ),
          `Secret ${showRef(ref)}`,
        ),
      );
      ok = false;
      return;
    }
    if (secretType(secret) !== API_KEY_SECRET_TYPE)
      return fail(
        at,
        `Secret ${showRef(ref)} is of type ${JSON.stringify(secretType(secret) ?? 'Opaque')}, not ${API_KEY_SECRET_TYPE}`,
        `make it with \`${createHint(ref.name, ref.namespace)}\``,
      );
    chosen.set(showRef(ref), { secret, at });
  });
  if (selector) {
    const wanted = Object.entries(selector);
    if (wanted.length === 0)
      fail(
        selectorAt,
        'is empty, which would choose every API key Secret',
        'list the labels the Secrets carry, e.g. team: infrastructure',
      );
    else
      for (const secret of lookups.all('Secret')) {
        if (secretType(secret) !== API_KEY_SECRET_TYPE) continue;
        const labels = labelsOf(secret);
        const name = showRef(secret);
        if (wanted.every(([k, v]) => labels[k] === v) && !chosen.has(name))
          chosen.set(name, { secret, at: selectorAt });
      }
  }
  const headerEntries = { ...spec.headersFromMetadata, ...spec.headersFromMetadataEntry };
  const keys: ApiKeyIR['keys'] = [];
  const owners = new Map<string, string>();
  for (const [name, { secret, at }] of chosen) {
    const entries = entriesOf(secret);
    const key = entries[API_KEY_SECRET_ENTRY];
    if (!key) {
      fail(
        at,
        `Secret ${name} has no ${API_KEY_SECRET_ENTRY} entry (or an empty one)`,
        `an API key Secret holds the key under "${API_KEY_SECRET_ENTRY}": ${createHint(secret.name, secret.namespace)}`,
      );
      continue;
    }
    const other = owners.get(key);
    if (other) {
      fail(at, `Secret ${name} holds the same key as Secret ${other}`, 'give each Secret a key of its own');
      continue;
    }
    owners.set(key, name);
    const { [API_KEY_SECRET_ENTRY]: _key, ...metadata } = entries;
    for (const [header, entry] of Object.entries(headerEntries)) {
      const value = metadata[entry.name];
      const problem = value === undefined ? undefined : headerValueProblem(value);
      if (problem)
        fail(
          at,
          `Secret ${name}'s entry ${JSON.stringify(entry.name)}, sent as header ${header}, ${problem}`,
          'fix the entry in the Secret',
        );
    }
    keys.push({ apiKey: key, user: secret.name, metadata });
  }
  if (!ok) return undefined;
  return {
    headerName: (spec.headerName ?? DEFAULT_API_KEY_HEADER).toLowerCase(),
    keys,
    headersFromMetadataEntry: Object.fromEntries(
      Object.entries(headerEntries).map(([h, e]) => [h.toLowerCase(), { name: e.name, required: e.required ?? false }]),
    ),
    secrets: [...chosen.keys()],
  };
}
