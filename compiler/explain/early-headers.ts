/**
 * The connection manager's early_header_mutation_extensions (Envoy's
 * header_mutation extension): the request's headers changed before the
 * virtual host and route are chosen and before any HTTP filter, so a header
 * added here can decide the route.
 */
import type { HttpRequest } from '../envoy/request.js';
import type { Json } from '../translate/output.js';
import type { Step } from './model.js';
import { shownHeader, type SecretHeaderValues } from './secret-headers.js';

const EXTENSION = 'envoy.http.early_header_mutation.header_mutation';
const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: early header mutation';

/** The step of the connection manager's early header mutations, applied to `req`; undefined when it has none. */
export function evaluateEarlyHeaders(hcm: Json, req: HttpRequest, secrets: SecretHeaderValues): Step | undefined {
  const extensions = (hcm.early_header_mutation_extensions as Json[] | undefined) ?? [];
  if (extensions.length === 0) return undefined;
  const set: string[] = [];
  const removed: string[] = [];
  for (const e of extensions) {
    const typed = e.typed_config as Json;
    if (!String(typed['@type']).endsWith('.header_mutation.v3.HeaderMutation'))
      throw new Error(`early header mutation ${String(e.name)} is not one explain knows (only ${EXTENSION})`);
    for (const m of (typed.mutations as Json[] | undefined) ?? []) {
      if (typeof m.remove === 'string') {
        const name = m.remove.toLowerCase();
        if (req.headers.delete(name)) removed.push(name);
        continue;
      }
      const option = m.append as Json;
      const header = option.header as Json;
      const name = (header.key as string).toLowerCase();
      const value = header.value as string;
      const before = req.headers.get(name);
      // APPEND_IF_EXISTS_OR_ADD (Envoy's default) adds a value; OVERWRITE_IF_EXISTS_OR_ADD replaces the header's.
      req.headers.set(
        name,
        option.append_action === 'OVERWRITE_IF_EXISTS_OR_ADD' || !before ? [value] : [...before, value],
      );
      set.push(shownHeader(name, value, secrets));
    }
  }
  const parts = [
    ...(set.length > 0 ? [`set ${set.join('; ')}`] : []),
    ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
  ];
  return {
    stage: 'early headers',
    summary: `${parts.join('; ') || 'nothing to remove'} (before routing and the HTTP filters)`,
    details: [],
    cite: CITE,
  };
}
