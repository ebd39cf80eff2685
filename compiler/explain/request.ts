/**
 * The request `sluice explain` and `sluice test` send through the
 * configuration: a URL, headers and credentials, as curl would send them,
 * made into the request Envoy's filters see (../envoy/request.ts).
 */
import type { HttpRequest } from '../envoy/request.js';
import type { ExplainRequest } from './model.js';

/** The request a client would send for `request` (curl's Host: the URL's host and port, unless -H Host says otherwise). */
export function toHttpRequest(request: ExplainRequest): HttpRequest {
  // Split by hand: URL would resolve `..` and `//` in the path, which is the connection manager's job to show.
  const m = /^(https?):\/\/([^/?#]+)([^#]*)/i.exec(request.url);
  let url: URL;
  try {
    if (!m) throw new Error();
    url = new URL(`${m[1]}://${m[2]}/`);
  } catch {
    throw new Error(`"${request.url}" is not an http:// or https:// URL: write it as http://HOST[:PORT]/PATH`);
  }
  const target = m[3] || '/';
  const headers = new Map<string, string[]>();
  for (const [name, value] of request.headers) {
    const key = name.trim().toLowerCase();
    headers.set(key, [...(headers.get(key) ?? []), value.trim()]);
  }
  const host = headers.get('host')?.[0] ?? url.host;
  headers.delete('host');
  // URL drops a default port (80 for http), which curl would not send either.
  return {
    method: request.method.toUpperCase(),
    scheme: url.protocol.slice(0, -1),
    authority: host,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: target.startsWith('/') ? target : `/${target}`,
    headers,
  };
}

/** Credentials as request headers: a user is HTTP Basic (`NAME:PASSWORD`), a jwt a bearer token. */
export function credentialHeaders(user: string | undefined, jwt: string | undefined): [string, string][] {
  if (user) return [['Authorization', `Basic ${Buffer.from(user, 'utf8').toString('base64')}`]];
  if (jwt) return [['Authorization', `Bearer ${jwt}`]];
  return [];
}
