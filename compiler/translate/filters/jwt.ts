/**
 * `options.jwt` -> envoy.filters.http.jwt_authn.
 *
 * One filter holds the providers of every virtual host; each virtual host
 * names its requirement in `requirement_map` and selects it with a
 * PerRouteConfig on the virtual host, or disables the filter. No `rules` are
 * emitted: without a per-route config Envoy applies none (filter.cc,
 * findVerifier), so verification happens only where a virtual host asks.
 */
import { fieldError, type Diagnostic } from '../../diagnostics.js';
import type { JwtProviderIR, Model } from '../../resolve/model.js';
import { emptyResult, type ConcernResult, type HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';
import { pemToJwks } from './pem.js';

export const JWT_FILTER_NAME = 'envoy.filters.http.jwt_authn';

/**
 * Key under the filter's dynamic metadata namespace where the verified
 * payload is written (`metadata.filter_metadata["envoy.filters.http.jwt_authn"].principal`);
 * RBAC matches claims there. Same key as Gloo's jwt plugin.
 */
export const JWT_PAYLOAD_METADATA_KEY = 'principal';

const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.';

/** Time allowed for one fetch of a remote key set. */
export const REMOTE_JWKS_TIMEOUT = '5s';
/** How long a fetched key set is used before it is fetched again (Gloo's default: 5 minutes). */
export const REMOTE_JWKS_CACHE_DURATION = '300s';

function jwksSource(provider: JwtProviderIR, diagnostics: Diagnostic[]): Json {
  const { jwks } = provider;
  if (jwks.kind === 'local') {
    const result = pemToJwks(jwks.pem);
    if (!result.ok) {
      diagnostics.push(fieldError('translate', provider.origin, [...provider.path, 'jwks', 'local', 'key'], `key ${result.message}`, result.hint));
      return { local_jwks: { inline_string: '{"keys":[]}' } };
    }
    return { local_jwks: { inline_string: JSON.stringify({ keys: result.keys }) } };
  }
  let url: URL | undefined;
  try {
    url = new URL(jwks.url);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    diagnostics.push(
      fieldError('translate', provider.origin, [...provider.path, 'jwks', 'remote', 'url'], `"${jwks.url}" is not an http or https URL`, 'give the URL of the key set document, e.g. http://jwks.example/keys.json'),
    );
  }
  return {
    remote_jwks: {
      // Envoy sends the fetch to `cluster`; the URL gives the Host header and path.
      http_uri: { uri: jwks.url, cluster: jwks.cluster, timeout: REMOTE_JWKS_TIMEOUT },
      cache_duration: REMOTE_JWKS_CACHE_DURATION,
      // Fetched before the listener starts and again in the background on expiry, so no request waits for it.
      async_fetch: {},
    },
  };
}

function provider(p: JwtProviderIR, diagnostics: Diagnostic[]): Json {
  return {
    issuer: p.issuer,
    ...jwksSource(p, diagnostics),
    // Tokens come in `Authorization: Bearer <token>` or `?access_token=<token>`.
    from_headers: [{ name: 'Authorization', value_prefix: 'Bearer ' }],
    from_params: ['access_token'],
    payload_in_metadata: JWT_PAYLOAD_METADATA_KEY,
  };
}

export const jwtConcern: HttpFilterConcern = {
  filterName: JWT_FILTER_NAME,
  translate(model: Model): ConcernResult {
    const result = emptyResult();
    if (!model.virtualHosts.some((vh) => vh.jwt && vh.jwt.providers.length > 0)) return result;
    const providers: Record<string, Json> = {};
    const requirementMap: Record<string, Json> = {};
    for (const vh of model.virtualHosts) {
      const list = vh.jwt?.providers ?? [];
      if (list.length === 0) {
        result.perVirtualHost.set(vh.name, { '@type': `${TYPE}PerRouteConfig`, disabled: true });
        continue;
      }
      for (const p of list) providers[p.name] = provider(p, result.diagnostics);
      const names = list.map((p) => p.name).sort();
      // requires_any needs at least two entries (validate rule), hence the single-provider form.
      requirementMap[vh.name] =
        names.length === 1
          ? { provider_name: names[0] }
          : { requires_any: { requirements: names.map((name) => ({ provider_name: name })) } };
      result.perVirtualHost.set(vh.name, { '@type': `${TYPE}PerRouteConfig`, requirement_name: vh.name });
    }
    result.httpFilter = {
      name: JWT_FILTER_NAME,
      typed_config: {
        '@type': `${TYPE}JwtAuthentication`,
        providers: Object.fromEntries(Object.entries(providers).sort(([a], [b]) => a.localeCompare(b))),
        requirement_map: requirementMap,
      },
    };
    return result;
  },
};
