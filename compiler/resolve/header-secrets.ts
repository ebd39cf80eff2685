/**
 * Gloo's headerSecretRef: a request header option that adds every entry of a
 * Secret as a header of that name and value (Gloo's Secret converter reads
 * type gloo.solo.io/header and Opaque Secrets this way). The values are
 * credentials: messages name the Secret and the entry, never the value.
 */
import { fieldError, notFound, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { Ref } from '../kinds/resource.js';
import type { Resource } from '../validate/validate.js';
import { entriesOf } from './extauth/api-key.js';
import { refOf, showRef } from './index.js';
import type { Lookups } from './lookups.js';
import type { OptionReport } from './option-report.js';

export const HEADER_SECRET_TYPE = 'gloo.solo.io/header';
const OPAQUE = 'Opaque';

/** A Secret's entries as headers: `secret` is `namespace/name`, `entries` sorted by name (a Secret's data is a map). */
export interface SecretHeaders {
  secret: string;
  entries: [name: string, value: string][];
}

/** The Secret a headerSecretRef at `path` names, from the resource that holds it; undefined after reporting why not. */
export type HeaderSecretLookup = (path: FieldPath, raw: Ref, report: OptionReport) => SecretHeaders | undefined;

const createHint = (ref: { name: string; namespace: string }) =>
  `kubectl create secret generic ${ref.name} -n ${ref.namespace} --type ${HEADER_SECRET_TYPE} --from-literal=HEADER-NAME=VALUE --dry-run=client -o yaml`;

/** headerSecretRef as `owner` writes it: the namespace defaults to the owner's, and the lookup is recorded (an edit of the Secret recompiles the owner). */
export function headerSecretLookup(
  lookups: Pick<Lookups, 'resource'>,
  owner: Resource,
  diagnostics: Diagnostic[],
): HeaderSecretLookup {
  return (path, raw, report) => {
    const ref = refOf(raw, owner);
    const name = showRef(ref);
    const secret = lookups.resource('Secret', ref);
    if (!secret) {
      report.ok = false;
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            owner.origin,
            path,
            `Secret ${name} not found`,
            `create it with \`${createHint(ref)}\` and add its output to the resources`,
          ),
          `Secret ${name}`,
        ),
      );
      return undefined;
    }
    const type = ((secret.value as { type?: unknown }).type as string | undefined) ?? OPAQUE;
    if (type !== HEADER_SECRET_TYPE && type !== OPAQUE) {
      report.error(
        path,
        `Secret ${name} is of type ${JSON.stringify(type)}: header values come from Secrets of type ${HEADER_SECRET_TYPE} or ${OPAQUE}`,
        `make one with \`${createHint(ref)}\``,
      );
      return undefined;
    }
    const entries = Object.entries(entriesOf(secret)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length === 0) {
      report.error(
        path,
        `Secret ${name} has no entries, so it adds no header`,
        'each entry of the Secret is a header: its name the entry name, its value the entry value',
      );
      return undefined;
    }
    return { secret: name, entries };
  };
}
