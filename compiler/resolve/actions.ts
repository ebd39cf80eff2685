/** Gloo's route actions that answer without an upstream: redirectAction and directResponseAction. */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { RedirectIR, RouteActionIR } from '../ir/model.js';
import type { DirectResponseSpec, RedirectSpec } from '../kinds/routes.js';

/** Envoy's max_direct_response_body_size_bytes default: a route configuration with a larger body is rejected. */
export const MAX_DIRECT_BODY_BYTES = 4096;

export function redirectAction(
  spec: RedirectSpec,
  path: FieldPath,
  origin: Origin,
  diagnostics: Diagnostic[],
): RedirectIR | undefined {
  if (spec.pathRedirect !== undefined && spec.prefixRewrite !== undefined) {
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        [...path, 'prefixRewrite'],
        'a redirect replaces either the whole path (pathRedirect) or the matched prefix (prefixRewrite), not both',
        'keep one of them',
      ),
    );
    return undefined;
  }
  const rewrite =
    spec.pathRedirect !== undefined
      ? { kind: 'path' as const, value: spec.pathRedirect }
      : spec.prefixRewrite !== undefined
        ? { kind: 'prefix' as const, value: spec.prefixRewrite }
        : undefined;
  return {
    kind: 'redirect',
    ...(spec.hostRedirect !== undefined ? { host: spec.hostRedirect } : {}),
    ...(rewrite ? { path: rewrite } : {}),
    https: spec.httpsRedirect === true,
    // MOVED_PERMANENTLY is Envoy's default too: left out, as Gloo leaves it.
    ...(spec.responseCode !== undefined && spec.responseCode !== 'MOVED_PERMANENTLY'
      ? { responseCode: spec.responseCode }
      : {}),
    stripQuery: spec.stripQuery === true,
  };
}

export function directResponse(
  spec: DirectResponseSpec,
  path: FieldPath,
  origin: Origin,
  diagnostics: Diagnostic[],
): RouteActionIR | undefined {
  const bytes = spec.body === undefined ? 0 : Buffer.byteLength(spec.body);
  if (bytes > MAX_DIRECT_BODY_BYTES) {
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        [...path, 'body'],
        `the body is ${bytes} bytes, and Envoy refuses a route configuration with a direct response body over ${MAX_DIRECT_BODY_BYTES} bytes`,
        'shorten the body, or serve it from an upstream',
      ),
    );
    return undefined;
  }
  return {
    kind: 'direct',
    status: spec.status,
    ...(spec.body !== undefined && spec.body !== '' ? { body: spec.body } : {}),
  };
}
