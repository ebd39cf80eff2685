/** Gloo's WeightedDestinationOptions of one weighted destination -> IR, checked as a route's own options are. */
import type { Diagnostic, FieldPath } from '../diagnostics.js';
import type { DestinationOptionsIR } from '../ir/destination-options.js';
import type { WeightedDestinationOptionsSpec } from '../kinds/destination-options.js';
import type { Resource } from '../validate/validate.js';
import { bufferPerRoute } from './gateway-http-options.js';
import { headerSecretLookup } from './header-secrets.js';
import type { Lookups } from './lookups.js';
import { OptionReport } from './option-report.js';
import { headerManipulation } from './header-lists.js';
import { csrf } from './route-options.js';

/** The destination's options, or undefined when it has none or after reporting a problem (`ok: false`). */
export function destinationOptions(
  spec: WeightedDestinationOptionsSpec | undefined,
  owner: Resource,
  path: FieldPath,
  diagnostics: Diagnostic[],
  lookups: Lookups,
): { ok: boolean; options?: DestinationOptionsIR } {
  if (!spec) return { ok: true };
  const report = new OptionReport(owner.origin, diagnostics);
  const options: DestinationOptionsIR = {
    ...(spec.headerManipulation
      ? {
          headers: headerManipulation(
            spec.headerManipulation,
            [...path, 'headerManipulation'],
            report,
            headerSecretLookup(lookups, owner, diagnostics),
          ),
        }
      : {}),
    ...(spec.csrf ? { csrf: csrf(spec.csrf, [...path, 'csrf'], report) } : {}),
    ...(spec.bufferPerRoute ? { buffer: bufferPerRoute(spec.bufferPerRoute) } : {}),
  };
  if (!report.ok) return { ok: false };
  return Object.keys(options).length > 0 ? { ok: true, options } : { ok: true };
}
