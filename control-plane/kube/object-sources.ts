/**
 * Objects from the cluster as the compiler's sources: one JSON text each,
 * named `apiVersion Kind namespace/name`, without what the compiler never
 * reads (status, resourceVersion, managedFields). So a status write, which
 * changes only those, leaves the text as it was and the incremental compiler
 * skips the object.
 */
import type { Compiler, CompileResult } from '../../compiler/pipeline.js';
import type { KubeObject } from './admission-review.js';

export const sourceName = (o: KubeObject): string =>
  `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;

/** The object as the compiler reads it. */
export function compiledPart(o: KubeObject): Record<string, unknown> {
  const { status: _status, metadata, ...rest } = o;
  const { managedFields: _m, resourceVersion: _r, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

export function objectSources(objects: readonly KubeObject[]): Map<string, string> {
  return new Map(objects.map((o) => [sourceName(o), JSON.stringify(compiledPart(o))]));
}

/** One compile of `objects` by `compiler` (incremental when the compiler is kept between calls). */
export function compileObjects(compiler: Compiler, objects: readonly KubeObject[]): CompileResult {
  return compiler.compileSources(objectSources(objects));
}
