/**
 * Compiler.compileObjects, the entry point of the Kubernetes provider: the
 * objects of a golden case, as an API server stores them (uid,
 * resourceVersion, generation, managedFields, status), compile to the same
 * xDS as the files; a broken object's diagnostics name it and the field, with
 * no file or line; an edit compiled incrementally equals a fresh compile.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { formatDiagnostic } from './diagnostics.js';
import { Compiler, compileFiles, type ClusterObject } from './pipeline.js';
import { DEFAULT_OPTIONS } from './translate/output.js';

const CASE = 'golden/kube-subsets/input';

/** The case's documents as cluster objects, keyed as the provider keys them. */
function clusterObjects(): Map<string, ClusterObject> {
  const objects = new Map<string, ClusterObject>();
  let revision = 100;
  for (const file of readdirSync(CASE).sort()) {
    for (const doc of loadAll(readFileSync(`${CASE}/${file}`, 'utf8')) as any[]) {
      for (const item of doc.kind === 'List' ? doc.items : [doc]) {
        const metadata = {
          ...item.metadata,
          uid: `uid-${revision}`,
          resourceVersion: String(revision++),
          generation: 1,
          creationTimestamp: '2026-11-27T00:00:00Z',
          managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: item.apiVersion }],
        };
        const object = { ...item, metadata, ...(item.kind === 'VirtualService' ? { status: { statuses: {} } } : {}) };
        objects.set(`${item.apiVersion}|${item.kind}|${metadata.namespace ?? ''}/${metadata.name}`, object);
      }
    }
  }
  return objects;
}

const stable = (value: unknown) => JSON.stringify(value);

test('cluster objects compile to the xDS their files compile to', async () => {
  const fromFiles = await compileFiles([CASE], DEFAULT_OPTIONS);
  const fromObjects = new Compiler(DEFAULT_OPTIONS).compileObjects(clusterObjects());
  expect(fromObjects.diagnostics.filter((d) => d.severity !== 'warning')).toEqual([]);
  expect(fromObjects.xds).toBeDefined();
  expect(stable(fromObjects.xds)).toBe(stable(fromFiles.xds));
  // The same warnings, without file and line.
  expect(fromObjects.diagnostics.map((d) => ({ ...d, file: undefined, line: undefined }))).toEqual(
    fromFiles.diagnostics.map((d) => ({ ...d, file: undefined, line: undefined })),
  );
  expect(fromObjects.diagnostics.every((d) => d.file === undefined && d.line === undefined)).toBe(true);
});

test("a broken object's error names Kind namespace/name and the field, with no file or line", () => {
  const objects = clusterObjects();
  const key = [...objects.keys()].find((k) => k.includes('|VirtualService|'))!;
  const vs = structuredClone(objects.get(key)!) as any;
  vs.spec.virtualHost.routes[0].matchers[0].prefix = 42;
  vs.metadata.resourceVersion = '999';
  objects.set(key, vs);
  const result = new Compiler(DEFAULT_OPTIONS).compileObjects(objects);
  expect(result.xds).toBeUndefined();
  const errors = result.diagnostics.filter((d) => d.severity !== 'warning').map(formatDiagnostic);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /^error\[validate\]: VirtualService gloo-system\/reviews: spec\.virtualHost\.routes\[0\]\.matchers\[0\]\.prefix: /,
  );
});

test('incremental: an edit, an object removed and one added compile to what a fresh Compiler makes', () => {
  const kept = new Compiler(DEFAULT_OPTIONS);
  const objects = clusterObjects();
  kept.compileObjects(objects);
  const podKey = [...objects.keys()].find((k) => k.includes('|Pod|'))!;
  const pod = structuredClone(objects.get(podKey)!) as any;
  pod.metadata.labels = { ...pod.metadata.labels, version: 'v3' };
  pod.metadata.resourceVersion = '500';
  objects.set(podKey, pod);
  const sliceKey = [...objects.keys()].find((k) => k.includes('|EndpointSlice|'))!;
  objects.delete(sliceKey);
  const again = kept.compileObjects(objects);
  const fresh = new Compiler(DEFAULT_OPTIONS).compileObjects(objects);
  expect(stable(again.xds)).toBe(stable(fresh.xds));
  expect(again.diagnostics).toEqual(fresh.diagnostics);
  const before = new Compiler(DEFAULT_OPTIONS).compileObjects(clusterObjects());
  expect(stable(again.xds)).not.toBe(stable(before.xds));
});
