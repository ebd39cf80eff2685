/** Diagnostics as the cluster shows them: in a resource's status and in the admission webhook's answers. */
import { renderDiagnostics, type Diagnostic } from '../../compiler/diagnostics.js';

/** `Kind namespace/name`: how diagnostics name a resource (compiler/load/load.ts describeResource). */
export const resourceName = (kind: string, namespace: string, name: string): string => `${kind} ${namespace}/${name}`;

/**
 * Diagnostics as the status and the admission webhook show them: the CLI's
 * lines with the object's name and field and without file and line (an
 * object in the cluster has no lines a user could open), at most
 * REPORT_LIMIT of them.
 */
export function clusterLines(diagnostics: readonly Diagnostic[]): string[] {
  return renderDiagnostics(diagnostics.map((d) => ({ ...d, file: undefined, line: undefined })));
}
