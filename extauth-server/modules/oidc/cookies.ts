/** The Cookie request header read, and Set-Cookie values written with the configured attributes (RFC 6265). */
import type { CookieSettings } from './settings.js';

/** One cookie of a Cookie header (the first of that name, as browsers send the most specific first). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value; maxAgeSeconds 0 for none, -1 to clear the cookie. */
export function setCookie(c: CookieSettings, name: string, value: string, maxAgeSeconds: number): string {
  const parts = [`${name}=${value}`];
  if (c.path) parts.push(`Path=${c.path}`);
  if (c.domain) parts.push(`Domain=${c.domain}`);
  if (maxAgeSeconds > 0) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (maxAgeSeconds < 0) parts.push('Max-Age=0');
  if (c.secure) parts.push('Secure');
  if (c.httpOnly) parts.push('HttpOnly');
  if (c.sameSite) parts.push(`SameSite=${c.sameSite}`);
  return parts.join('; ');
}

/** RFC 6265 5.1.3: the host is the domain or one of its subdomains. */
export function domainMatches(host: string, domain: string): boolean {
  const h = host.replace(/:\d+$/, '').toLowerCase();
  const d = domain.replace(/^\./, '');
  return h === d || h.endsWith(`.${d}`);
}
