/** Gloo's route actions that answer without an upstream: redirectAction and directResponseAction. */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { RedirectIR, RouteActionIR } from '../ir/model.js';
import type { DirectResponseSpec, RedirectSpec } from '../kinds/routes.js';

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

/** The body's length is checked against each route configuration that serves it (./route-configuration.ts). */
export function directResponse(spec: DirectResponseSpec, path: FieldPath, origin: Origin): RouteActionIR {
  return {
    kind: 'direct',
    status: spec.status,
    ...(spec.body !== undefined && spec.body !== ''
      ? { body: spec.body, bodyAt: { origin, path: [...path, 'body'] } }
      : {}),
  };
}
