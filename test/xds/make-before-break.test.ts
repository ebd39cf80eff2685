/**
 * Make before break: an Envoy-like ADS client (watcher.ts) follows a series
 * of edits that add, rename and remove clusters, some arriving while the
 * previous one is still being pushed; after every response it receives, no
 * route it holds may name a cluster, or the endpoints of an EDS cluster, it
 * does not have. SotW and delta, on snapshots set directly and on a running
 * `serve` whose files are saved as someone editing them would
 * (test/xds/file-edits.ts). XDS_EDITS sets the number of random edits
 * (default 40 on snapshots, 30 saves on files), XDS_SEED another series.
 */
import { jest } from '@jest/globals';
import { once } from 'node:events';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { tempDir } from '../../harness/temp-dir.js';
import { FileEditor } from './file-edits.js';
import { Random } from '../fuzz/mutate.js';
import { until } from '../extauth/helpers.js';
import { TYPE_URL, snapshotOf, startServer, type Shape } from './fixtures.js';
import { EnvoyWatcher } from './watcher.js';
import type { XdsServer } from '../../control-plane/server/server.js';
import type { SnapshotCache } from '../../control-plane/cache/cache.js';
import { testLogger } from '../../harness/log-check.js';

const EDITS = Number(process.env.XDS_EDITS ?? 40);
const SAVES = Number(process.env.XDS_EDITS ?? 30);
const SEED = Number(process.env.XDS_SEED ?? 0);
jest.setTimeout(120_000 + EDITS * 200);

let server: XdsServer;
let cache: SnapshotCache;
let port: number;
let watcher: EnvoyWatcher | undefined;

beforeEach(async () => {
  ({ server, cache, port } = await startServer());
});

afterEach(async () => {
  watcher?.close();
  watcher = undefined;
  await server.close();
});

/** Renames, removals and swaps first, then random sets of clusters (EDS or DNS) and routes to them. */
function edits(count: number, seed: number): Shape[] {
  const fixed: Shape[] = [
    { vhosts: { a: ['/', 'web'] }, clusters: { web: '10.0.0.1:80', dns: 'dns.example:80' } },
    { vhosts: { a: ['/', 'web2'] }, clusters: { web2: '10.0.0.1:80', dns: 'dns.example:80' } },
    { vhosts: { a: ['/', 'dns'] }, clusters: { dns: 'dns.example:80' } },
    { vhosts: { a: ['/', 'web'], b: ['/b', 'dns2'] }, clusters: { web: '10.0.0.2:80', dns2: 'dns2.example:80' } },
    { vhosts: { a: ['/', 'dns2'], b: ['/b', 'web'] }, clusters: { web: '10.0.0.3:80', dns2: 'dns2.example:80' } },
    { vhosts: { a: ['/', 'web3'] }, clusters: { web3: 'web3.example:80' } },
  ];
  const random = new Random(seed);
  const pool = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];
  const shapes = [...fixed];
  for (let i = 0; i < count; i++) {
    const clusters: Record<string, string> = {};
    for (const name of pool)
      if (random.chance(0.4))
        clusters[name] = random.chance(0.6)
          ? `10.0.${random.int(4)}.${1 + random.int(9)}:80`
          : `${name}-${random.int(3)}.example:80`;
    if (Object.keys(clusters).length === 0) clusters[random.pick(pool)] = '10.0.0.9:80';
    const names = Object.keys(clusters);
    const vhosts: Shape['vhosts'] = {};
    for (let v = 0, n = 1 + random.int(3); v < n; v++) vhosts[`v${v}`] = [`/${v}`, random.pick(names)];
    shapes.push({ vhosts, clusters });
  }
  return shapes;
}

async function run(protocol: 'sotw' | 'delta', seed: number): Promise<void> {
  const shapes = edits(EDITS, seed + SEED);
  const random = new Random(seed + SEED + 1);
  cache.setSnapshot(snapshotOf(shapes[0]));
  const w = (watcher = new EnvoyWatcher(port, protocol, 'watcher', (name) =>
    cache.current!.type(TYPE_URL.endpoint)!.resources.has(name),
  ));
  await until(() => w.syncedWith(cache.current!));
  for (const shape of shapes.slice(1)) {
    cache.setSnapshot(snapshotOf(shape));
    // The next edit lands at once, or after 1-3 responses of this one, or once it is all applied: pushes overlap edits.
    const wait = random.int(5);
    const from = w.received;
    if (wait > 0) await until(() => w.syncedWith(cache.current!) || (wait < 4 && w.received >= from + wait));
  }
  await until(() => w.syncedWith(cache.current!));
  expect(w.violations).toEqual([]);
  // Nothing kept for old routes once they are gone: exactly the last snapshot's clusters.
  expect([...w.state.get(TYPE_URL.cluster)!.keys()].sort()).toEqual(Object.keys(shapes.at(-1)!.clusters).sort());
  expect(w.received).toBeGreaterThan(shapes.length);
}

test('SotW: no route ever names a cluster, or endpoints, the client does not have', async () => {
  await run('sotw', 14);
});

test('delta: no route ever names a cluster, or endpoints, the client does not have', async () => {
  await run('delta', 41);
});

/** `serve` on a folder, saved SAVES times; the watcher checks its view after every response. */
async function runOnFiles(protocol: 'sotw' | 'delta', seed: number): Promise<void> {
  const random = new Random(seed + SEED);
  const editor = new FileEditor(tempDir('make-before-break'), random);
  const serving: Serving = await startServe({
    paths: [editor.dir],
    compileOptions: { ...DEFAULT_OPTIONS, listenerAddress: '127.0.0.1' },
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
  });
  try {
    expect(serving.firstCompile).toMatchObject({ ok: true });
    const current = () => serving.control.cache.current!;
    const w = (watcher = new EnvoyWatcher(serving.xdsPort, protocol, 'watcher', (name) =>
      current().type(TYPE_URL.endpoint)!.resources.has(name),
    ));
    await until(() => w.syncedWith(current()));
    for (let i = 0; i < SAVES; i++) {
      const compiled = once(serving.control, 'compiled');
      editor.save();
      // The next save lands at once (the watcher may take both as one), or once this one is compiled and
      // 1-3 responses are in, or once it is all applied.
      const wait = random.int(5);
      if (wait === 0) continue;
      await compiled;
      const from = w.received;
      await until(() => w.syncedWith(current()) || (wait < 4 && w.received >= from + wait));
    }
    if (editor.broken) {
      const compiled = once(serving.control, 'compiled');
      editor.save();
      await compiled;
    }
    await until(() => w.syncedWith(current()));
    expect(w.violations).toEqual([]);
    expect([...w.state.get(TYPE_URL.cluster)!.keys()].sort()).toEqual(
      [...current().type(TYPE_URL.cluster)!.resources.keys()].sort(),
    );
    // Every kind of save was made (the counts show in a failure).
    expect([...editor.kinds.keys()].sort()).toEqual([
      'a Service added',
      'a Service overridden by an Upstream, or given back',
      'a Service removed',
      'a VirtualService removed',
      'a VirtualService routed',
      'a file deleted',
      'a save that does not compile',
      'an Upstream re-pointed',
      'an Upstream renamed',
      'several files in one save',
    ]);
  } finally {
    watcher?.close();
    watcher = undefined;
    await serving.close();
  }
}

test('SotW on a running serve: saves of every kind, none of which shows a route without its cluster or endpoints', async () => {
  await runOnFiles('sotw', 29);
});

test('delta on a running serve: saves of every kind, none of which shows a route without its cluster or endpoints', async () => {
  await runOnFiles('delta', 92);
});
