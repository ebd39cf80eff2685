/**
 * The request as Envoy's filters see it: pseudo-headers (`:method`,
 * `:authority`, `:path`, `:scheme`) next to the lower-cased headers, and the
 * query parameters decoded.
 */
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
