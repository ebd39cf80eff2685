/** Gloo's earlyHeaderManipulation of a Gateway's connection manager -> IR, checked as headerManipulation's request lists are. */
import type { Diagnostic, FieldPath } from '../diagnostics.js';
import type { EarlyHeadersIR } from '../ir/model.js';
import type { EarlyHeaderManipulationSpec } from '../kinds/early-headers.js';
import type { Resource } from '../validate/validate.js';
import { headerSecretLookup } from './header-secrets.js';
import { headerAdds, headerRemoves } from './header-lists.js';
import type { ResourceIndex } from './index.js';
import { OptionReport } from './option-report.js';

export function earlyHeaders(
  spec: EarlyHeaderManipulationSpec,
  path: FieldPath,
  gateway: Resource,
  index: ResourceIndex,
  diagnostics: Diagnostic[],
): EarlyHeadersIR {
  const report = new OptionReport(gateway.origin, diagnostics);
  // Gateways are resolved on every compile, so their Secret lookups need no recording.
  const secrets = headerSecretLookup({ resource: (kind, ref) => index.get(kind, ref) }, gateway, diagnostics);
  return {
    add: headerAdds(spec.headersToAdd, [...path, 'headersToAdd'], report, secrets),
    remove: headerRemoves(spec.headersToRemove, [...path, 'headersToRemove'], report),
  };
}
