import type { Diagnostic, FieldPath } from '../../diagnostics.js';
import type { OidcIR } from '../../ir/oidc.js';
import type { Resource } from '../../validate/validate.js';
import type { Lookups } from '../lookups.js';

export function resolveOidc(
  _ac: Resource,
  _path: FieldPath,
  _spec: never,
  _lookups: Lookups,
  _diagnostics: Diagnostic[],
): OidcIR | undefined {
  return undefined;
}
