/** Gloo's `apiKeyAuth` config (extauth.proto `ApiKeyAuth`): keys from Secrets of type extauth.solo.io/apikey. */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from '../gloo.js';
import { resourceRef } from '../resource.js';
import { boolean, mapOf, object, singleLine, stringMap } from '../schema.js';

const HEADER_NAME = Type.String({ minLength: 1, pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" });

const metadataEntry = object({ name: singleLine, required: boolean }, ['name']);

const secretSelection = {
  labelSelector: note(
    stringMap,
    'every Secret of type extauth.solo.io/apikey in the inputs whose labels include all of these',
  ),
  apiKeySecretRefs: note(
    Type.Array(resourceRef),
    "Secrets of type extauth.solo.io/apikey; the namespace defaults to the AuthConfig's",
  ),
};

export const apiKeyAuth = object({
  ...secretSelection,
  headerName: note(HEADER_NAME, 'default api-key; the header is removed before the request goes upstream'),
  headersFromMetadata: note(
    mapOf(metadataEntry, HEADER_NAME),
    "Gloo's deprecated form of headersFromMetadataEntry, read as it",
  ),
  headersFromMetadataEntry: note(
    mapOf(metadataEntry, HEADER_NAME),
    "header name -> an entry of the key's Secret; required: a key whose Secret lacks it is refused (401)",
  ),
  k8sSecretApikeyStorage: object(secretSelection),
  aerospikeApikeyStorage: refused(
    'Aerospike key storage is not implemented (deprecated in Gloo)',
    'keep the keys in Secrets (k8sSecretApikeyStorage)',
  ),
  skipMetadataValidation: refused(
    'metadata is checked once, when compiling (a value that is no valid header value is an error naming its Secret), so there is nothing to skip per request',
  ),
  // Gloo's API names only the algorithms: the digests' encoding in the Secrets and the
  // request-time transform live in Gloo's closed ext-auth-service, so a Secret written
  // for Gloo could not be checked the same way here.
  hmac: refused(
    "Gloo's API gives HMAC_SHA256 and the shared secret but not how the stored digest is encoded (hex or base64) nor which Secret entry holds the shared key; its check runs in Gloo's closed ext-auth-service, so Sluice cannot match the same Secrets",
    'keep the keys themselves in the Secrets',
  ),
  digest: refused(
    "Gloo's API gives SHA256 but not how the stored digest is encoded (hex or base64); its check runs in Gloo's closed ext-auth-service, so Sluice cannot match the same Secrets",
    'keep the keys themselves in the Secrets',
  ),
  match: refused(
    'only valid with digest, which is refused',
    'use headersFromMetadataEntry to pass Secret entries to the upstream',
  ),
});

export type ApiKeyAuthSpec = Static<typeof apiKeyAuth>;
