/**
 * A compile of objects as the admission check and the status tests hold
 * them (a list), through the compiler's cluster entry point (a map under a
 * key that stays the same across an object's versions).
 */
import type { ClusterObjects, Compiler, CompileResult } from '../../compiler/pipeline.js';
import type { KubeObject } from './admission-review.js';

export const objectKey = (o: KubeObject): string =>
  `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;

/** One compile of `objects` by `compiler` (incremental when the compiler is kept between calls). */
export function compileObjects(compiler: Compiler, objects: readonly KubeObject[]): CompileResult {
  return compiler.compileObjects(new Map(objects.map((o) => [objectKey(o), o])) as ClusterObjects);
}
