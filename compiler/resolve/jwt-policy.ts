/**
 * Gloo's JWT options that say what happens to a request whose token is
 * missing or fails: the virtual host's validationPolicy (with the older
 * allowMissingOrFailedJwt) and a provider's attachFailedStatusToMetadata.
 */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { VirtualHostIR } from '../ir/model.js';
import type { VirtualHostOptionsSpec } from '../kinds/virtual-host-options.js';

type JwtSpec = NonNullable<VirtualHostOptionsSpec['jwt']>;

/** What the host lets through besides a valid token; allowMissingOrFailedJwt, when true, wins (Gloo's rule). */
export function allowMissing(jwt: JwtSpec): NonNullable<VirtualHostIR['jwt']>['allowMissing'] {
  if (jwt.allowMissingOrFailedJwt) return 'ALLOW_MISSING_OR_FAILED';
  return jwt.validationPolicy === 'REQUIRE_VALID' ? undefined : jwt.validationPolicy;
}

/**
 * A provider's attachFailedStatusToMetadata as Envoy's failed_status_in_metadata;
 * empty is unset (Gloo). A key where a provider of the virtual host writes its
 * verified payload (its name) is refused: a failure's {code, message} written
 * there would be matched by RBAC as if they were claims.
 */
export function failedStatusKey(
  key: string | undefined,
  payloadKeys: readonly string[],
  origin: Origin,
  at: FieldPath,
  diagnostics: Diagnostic[],
): { failedStatusInMetadata?: string } {
  if (!key) return {};
  if (payloadKeys.includes(key)) {
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        [...at, 'attachFailedStatusToMetadata'],
        `"${key}" is the key where provider ${key} writes the verified token's claims for RBAC; a failure's code and message written there would be read as claims`,
        'use a key that names no provider of the virtual host, e.g. jwt_failure',
      ),
    );
    return {};
  }
  return { failedStatusInMetadata: key };
}
