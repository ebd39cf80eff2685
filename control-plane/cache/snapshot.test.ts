import { discoveryTypes } from '../../contract/discovery.js';
import { TYPE_URL } from '../../contract/names.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { SnapshotEncoder, sotwBody } from './snapshot.js';

test("a SotW response carries each resource's bytes, and the resource then keeps a view of them in the response entry, not a copy", async () => {
  const result = await compileFiles(['golden/single-route/input'], DEFAULT_OPTIONS);
  const snapshot = new SnapshotEncoder().build(result.xds!);
  const clusters = [...snapshot.type(TYPE_URL.cluster)!.resources.values()];
  const before = clusters.map((r) => Buffer.from(r.value));
  const body = sotwBody('v1', TYPE_URL.cluster, clusters);
  const { DiscoveryResponse } = discoveryTypes();
  const decoded = DiscoveryResponse.decode(body) as unknown as { resources: { type_url: string; value: Uint8Array }[] };
  expect(decoded.resources.map((a) => Buffer.from(a.value))).toEqual(before);
  expect(decoded.resources.every((a) => a.type_url === TYPE_URL.cluster)).toBe(true);
  clusters.forEach((r, i) => {
    expect(Buffer.from(r.value)).toEqual(before[i]);
    // The same memory: the value's bytes are the entry's last ones (small buffers share a pool, so the buffer alone would not tell).
    expect(r.value.buffer).toBe(r.sotwEntry!.buffer);
    expect(r.value.byteOffset + r.value.length).toBe(r.sotwEntry!.byteOffset + r.sotwEntry!.length);
  });
  // Asked again: the same entries, the same bytes.
  expect(sotwBody('v1', TYPE_URL.cluster, clusters)).toEqual(body);
});
