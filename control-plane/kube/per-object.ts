/**
 * A compile's diagnostics sorted out per cluster object, for status writing:
 * each diagnostic names its resource as `Kind namespace/name`, which the
 * object of either API group (Sluice's or Gloo's) may be.
 */
import type { Diagnostic } from '../../compiler/diagnostics.js';
import { describeResource } from '../../compiler/load/load.js';
import type { ClusterObjects } from '../../compiler/pipeline.js';

export interface PerObject {
  /** Every object of the compile, by its key, with the diagnostics that name it (none: accepted as is). */
  byObject: Map<string, Diagnostic[]>;
  /** Diagnostics that name no object of the set (a proxy no Gateway names, a compile failure). */
  unattributed: Diagnostic[];
}

export function diagnosticsPerObject(objects: ClusterObjects, diagnostics: readonly Diagnostic[]): PerObject {
  const byObject = new Map<string, Diagnostic[]>();
  const keysOf = new Map<string, string[]>();
  for (const [key, object] of objects) {
    byObject.set(key, []);
    const resource = describeResource(object);
    keysOf.set(resource, [...(keysOf.get(resource) ?? []), key]);
  }
  const unattributed: Diagnostic[] = [];
  for (const diagnostic of diagnostics) {
    const keys = diagnostic.resource === undefined ? undefined : keysOf.get(diagnostic.resource);
    if (!keys) unattributed.push(diagnostic);
    else for (const key of keys) byObject.get(key)!.push(diagnostic);
  }
  return { byObject, unattributed };
}
