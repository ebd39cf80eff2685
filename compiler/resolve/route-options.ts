/** A route's own `options` that change how Envoy forwards it: prefixRewrite, hostRewrite, timeout. */
import { parseDuration } from '../../protos/proto3-json.js';
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { RouteOptionsIR } from '../ir/model.js';

export interface RouteOptionsSpec {
  prefixRewrite?: string;
  hostRewrite?: string;
  timeout?: string;
}

/** The options as IR (undefined: none set), or undefined after reporting a problem via `ok: false`. */
export function routeOptions(spec: RouteOptionsSpec | undefined, forwards: boolean, path: FieldPath, origin: Origin, diagnostics: Diagnostic[]): { ok: boolean; options?: RouteOptionsIR } {
  const set = (Object.keys(spec ?? {}) as (keyof RouteOptionsSpec)[]).filter((k) => spec![k] !== undefined);
  if (set.length === 0) return { ok: true };
  // Each changes the request Envoy forwards: a redirect, direct response or GraphQL route forwards none of its own.
  if (!forwards) {
    diagnostics.push(fieldError('resolve', origin, [...path, set[0]!], `${set[0]} applies only to a route with routeAction (it changes the request forwarded to the upstream)`, `remove ${set[0]}`));
    return { ok: false };
  }
  const s = spec!;
  if (s.timeout !== undefined) {
    const nanos = parseDuration(s.timeout);
    if (nanos === undefined || nanos < 0n) {
      diagnostics.push(fieldError('resolve', origin, [...path, 'timeout'], `"${s.timeout}" is not a duration`, 'write seconds with an "s", e.g. "15s" or "0.250s" ("0s": no timeout)'));
      return { ok: false };
    }
  }
  return { ok: true, options: { ...(s.prefixRewrite !== undefined ? { prefixRewrite: s.prefixRewrite } : {}), ...(s.hostRewrite !== undefined ? { hostRewrite: s.hostRewrite } : {}), ...(s.timeout !== undefined ? { timeout: s.timeout } : {}) } };
}
