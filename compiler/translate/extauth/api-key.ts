/** `sluice.extauth.v1.ApiKeyAuthConfig` (contract/proto/sluice/extauth/v1/api_key.proto). */
import type { ApiKeyIR } from '../../ir/model.js';
import type { Json } from '../output.js';

export function compileApiKey(a: ApiKeyIR): Json {
  return {
    header_name: a.headerName,
    keys: a.keys.map((k) => ({
      key: k.apiKey,
      user: k.user,
      ...(Object.keys(k.metadata).length ? { metadata: k.metadata } : {}),
    })),
    ...(Object.keys(a.headersFromMetadataEntry).length
      ? { headers_from_metadata_entry: a.headersFromMetadataEntry }
      : {}),
  };
}
