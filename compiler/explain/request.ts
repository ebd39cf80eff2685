/**
 * The request as Envoy's filters see it: pseudo-headers (`:method`,
 * `:authority`, `:path`, `:scheme`) next to the lower-cased headers, and the
 * query parameters decoded.
 */
import type { ExplainRequest } from './model.js';

export interface HttpRequest {
  method: string;
  scheme: string;
  /** Host and port as the client sends them in Host / :authority. */
  authority: string;
  /** Explicit port of the URL, if any (picks the listener). */
  port?: number;
  /** `:path`: path and query, as sent (normalized later, as the connection manager does). */
  path: string;
  /** Lower-cased names; a name may repeat. */
  headers: Map<string, string[]>;
}

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

/** One header's value as Envoy's matchers read it: repeated headers joined with ","; pseudo-headers included. */
export function headerValue(req: HttpRequest, name: string): string | undefined {
  const key = name.toLowerCase();
  if (key === ':method') return req.method;
  if (key === ':path') return req.path;
  if (key === ':authority' || key === 'host') return req.authority;
  if (key === ':scheme') return req.scheme;
  return req.headers.get(key)?.join(',');
}

export function pathOnly(path: string): string {
  const q = path.search(/[?#]/);
  return q === -1 ? path : path.slice(0, q);
}

/** Query parameters, decoded; the first value of a repeated name. */
export function queryParams(path: string): Map<string, string> {
  const q = path.indexOf('?');
  const out = new Map<string, string>();
  if (q === -1) return out;
  for (const [k, v] of new URLSearchParams(path.slice(q + 1).split('#')[0])) if (!out.has(k)) out.set(k, v);
  return out;
}

/** Credentials as request headers: a user is HTTP Basic (`NAME:PASSWORD`), a jwt a bearer token. */
export function credentialHeaders(user: string | undefined, jwt: string | undefined): [string, string][] {
  if (user) return [['Authorization', `Basic ${Buffer.from(user, 'utf8').toString('base64')}`]];
  if (jwt) return [['Authorization', `Bearer ${jwt}`]];
  return [];
}
