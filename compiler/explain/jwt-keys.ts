/**
 * The keys a jwt_authn provider verifies with: `local_jwks` as written, a
 * `remote_jwks` fetched only when asked (--fetch-jwks), as Envoy fetches it
 * (through its cluster), and the signature check against them.
 */
import { get } from 'node:http';
import { compactVerify, importJWK, type JWK } from 'jose';
import type { Json } from '../translate/output.js';
import type { ExplainOptions } from './model.js';
import type { Status } from './jwt-token.js';
/** What jwt_authn needs beyond the options: the endpoints (`host:port`) of a cluster, where remote keys are fetched. */
export type JwtOptions = ExplainOptions & { clusterEndpoints?: (cluster: string) => string[] };

const fetched = new Map<string, Promise<Json | undefined>>();

/** GET `path` from `endpoint` (host:port) with `host` as the Host header: an http_uri sent through its cluster. */
function getThrough(endpoint: string, host: string, path: string): Promise<Json | undefined> {
  const colon = endpoint.lastIndexOf(':');
  return new Promise((resolve) => {
    const req = get(
      {
        host: endpoint.slice(0, colon),
        port: Number(endpoint.slice(colon + 1)),
        path,
        headers: { host },
        timeout: 5000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => {
          try {
            resolve(res.statusCode === 200 ? (JSON.parse(body) as Json) : undefined);
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy()).on('error', () => resolve(undefined));
  });
}

/** The remote key set, fetched once per process: an http URL through the first endpoint of its cluster, as Envoy does; otherwise by its URL. */
function fetchJwks(remote: Json, options: JwtOptions): Promise<Json | undefined> {
  const httpUri = remote.http_uri as Json;
  const uri = httpUri.uri as string;
  const endpoint = options.clusterEndpoints?.(httpUri.cluster as string)[0];
  const key = `${uri} ${endpoint ?? ''}`;
  let p = fetched.get(key);
  if (!p) {
    const url = new URL(uri);
    p =
      url.protocol === 'http:' && endpoint
        ? getThrough(endpoint, url.host, `${url.pathname}${url.search}`)
        : fetch(uri, { signal: AbortSignal.timeout(5000) })
            .then(async (r) => (r.ok ? ((await r.json()) as Json) : undefined))
            .catch(() => undefined);
    fetched.set(key, p);
  }
  return p;
}

/** The keys Envoy would use: local_jwks as written, remote_jwks only with --fetch-jwks. */
export async function providerKeys(
  provider: Json,
  options: JwtOptions,
): Promise<{ keys?: JWK[]; source: string; status?: Status }> {
  const local = provider.local_jwks as Json | undefined;
  if (local) {
    try {
      const set = JSON.parse(local.inline_string as string) as { keys?: JWK[] };
      return { keys: set.keys ?? [], source: 'local_jwks' };
    } catch {
      return { source: 'local_jwks', status: 'JwksNoValidKeys' };
    }
  }
  const remote = provider.remote_jwks as Json;
  const uri = (remote.http_uri as Json).uri as string;
  if (!options.fetchJwks) return { source: `remote_jwks ${uri} (not fetched: pass --fetch-jwks)` };
  const set = await fetchJwks(remote, options);
  if (!set) return { source: `remote_jwks ${uri}`, status: 'JwksFetchFail' };
  return { keys: (set.keys as JWK[] | undefined) ?? [], source: `remote_jwks ${uri} (fetched)` };
}

/** verifyJwtWithoutTimeChecking: keys whose kid and alg fit the token are tried; none fitting is a kid/alg mismatch. */
export async function verifySignature(
  token: string,
  header: Json,
  keys: JWK[],
): Promise<{ status: Status; why: string }> {
  const alg = header.alg as string;
  const kid = header.kid as string | undefined;
  const candidates = keys.filter((k) => !(kid && k.kid && k.kid !== kid) && !(k.alg && k.alg !== alg));
  if (candidates.length === 0)
    return { status: 'JwksKidAlgMismatch', why: `no key has kid ${JSON.stringify(kid ?? '(none)')} and alg ${alg}` };
  for (const jwk of candidates) {
    try {
      await compactVerify(token, await importJWK(jwk, alg), { algorithms: [alg] });
      return {
        status: 'Ok',
        why: `signature verified with key ${jwk.kid ? JSON.stringify(jwk.kid) : '(no kid)'} (${alg})`,
      };
    } catch {
      // Not this key: Envoy tries the next one.
    }
  }
  return {
    status: 'JwtVerificationFail',
    why: `no key with a fitting kid and alg verifies the signature (${candidates.length} tried)`,
  };
}
