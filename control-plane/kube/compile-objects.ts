/**
 * A compile of objects held as a list (an admission check's candidate set,
 * tests) through the compiler's cluster entry point, under the keys the
 * cluster source gives them (kinds.ts).
 */
import type { ClusterObjects, Compiler, CompileResult } from '../../compiler/pipeline.js';
import type { KubeObject } from './admission-review.js';
import { objectKey } from './kinds.js';

const keyOf = (o: KubeObject) => objectKey(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name ?? '');

/** One compile of `objects` by `compiler` (incremental when the compiler is kept between calls). */
export function compileObjects(compiler: Compiler, objects: readonly KubeObject[]): CompileResult {
  return compiler.compileObjects(new Map(objects.map((o) => [keyOf(o), o])) as ClusterObjects);
}
