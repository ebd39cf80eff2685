/**
 * Gloo's statefulSession as Envoy's stateful_session settings, with the
 * checks the schema cannot make: the cookie and header names are HTTP tokens
 * (Envoy writes them into Set-Cookie and response headers as they are).
 */
import { fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { StatefulSessionIR } from '../ir/listener-options.js';
import type { StatefulSessionSpec } from '../kinds/stateful-session.js';

// RFC 9110 token characters (a cookie name is a token too, RFC 6265).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function statefulSession(
  spec: StatefulSessionSpec,
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): StatefulSessionIR | undefined {
  const strict = spec.strict ?? false;
  const token = (name: string, at: FieldPath, what: string): boolean => {
    if (TOKEN.test(name)) return true;
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        [...path, ...at],
        `${what} ${quote(name)} is not an HTTP token (Envoy would write it into the answer's headers as it is)`,
        'use letters, digits and !#$%&\'*+-.^_`|~ only, no spaces, ":" or "="',
      ),
    );
    return false;
  };
  if (spec.cookieBased) {
    const { name, path: cookiePath, ttl } = spec.cookieBased.cookie;
    if (!token(name, ['cookieBased', 'cookie', 'name'], 'the cookie name')) return undefined;
    // A ";" would end the Path attribute and start another of the client's choosing.
    if (cookiePath !== undefined && cookiePath.includes(';')) {
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...path, 'cookieBased', 'cookie', 'path'],
          `the cookie path ${quote(cookiePath)} holds ";", which would end the cookie's Path attribute`,
          'write a path without ";"',
        ),
      );
      return undefined;
    }
    return { state: { kind: 'cookie', name, ...(cookiePath !== undefined ? { path: cookiePath } : {}), ttl }, strict };
  }
  const name = spec.headerBased!.headerName;
  if (!token(name, ['headerBased', 'headerName'], 'the header name')) return undefined;
  return { state: { kind: 'header', name: name.toLowerCase() }, strict };
}
