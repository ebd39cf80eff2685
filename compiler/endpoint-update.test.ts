/**
 * The fast path of an endpoint change (endpoint-update.ts) against the full
 * compile: random sequences of EndpointSlice and Pod changes (addresses,
 * conditions, zones, pods named or not, pod labels, slices and pods added and
 * removed, a Service's last slice removed or its first added, a broken slice
 * and its fix, now and then a VirtualService edit), compiled by one
 * long-lived Compiler given what changed, and by a fresh Compiler each time:
 * the same diagnostics, the same IR endpoint sets, the same xDS sets and
 * proxies' sets, and the same snapshot versions. With files as with cluster
 * objects, with VHDS, and with a fleet of proxies.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dump } from 'js-yaml';
import { SnapshotEncoder } from '../control-plane/cache/snapshot.js';
import { formatDiagnostic, isError } from './diagnostics.js';
import { Compiler, compileFiles, type ClusterObject, type CompileResult } from './pipeline.js';
import { DEFAULT_OPTIONS, type CompileOptions, type XdsSet } from './translate/output.js';

/** A small deterministic generator (mulberry32), so a failing seed can be run again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVICES = ['alpha', 'beta', 'gamma', 'delta'];
const PODS = Array.from({ length: 8 }, (_, i) => `pod-${i}`);
const NS = 'shop';

/** An object as the tests make it. */
type KubeObject = ClusterObject & {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; resourceVersion?: string };
};

const keyOf = (o: KubeObject) =>
  `${String(o.apiVersion)}|${String(o.kind)}|${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function service(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: NS },
    spec: { ports: [{ name: 'http', port: 8080, targetPort: 8080 }] },
  };
}

function pod(name: string, pick: () => number): KubeObject {
  const version = ['v1', 'v2', undefined][Math.floor(pick() * 3)];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: 'shop', ...(version ? { version } : {}) } },
    spec: { containers: [{ name: 'shop', image: 'shop:1' }] },
  };
}

function slice(name: string, serviceName: string | undefined, pick: () => number, broken = false): KubeObject {
  const n = Math.floor(pick() * 5);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: NS,
      ...(serviceName ? { labels: { 'kubernetes.io/service-name': serviceName } } : {}),
    },
    addressType: 'IPv4',
    endpoints: Array.from({ length: n }, () => {
      const ready = pick() < 0.7;
      const podName = pick() < 0.8 ? PODS[Math.floor(pick() * (PODS.length + 2))] : undefined;
      const zone = ['', 'zone-a', 'zone-b'][Math.floor(pick() * 3)];
      return {
        addresses: [`10.0.0.${1 + Math.floor(pick() * 12)}`],
        conditions: { ready, serving: ready || pick() < 0.5, terminating: !ready },
        ...(zone ? { zone } : {}),
        ...(podName ? { targetRef: { kind: 'Pod', name: podName, namespace: NS } } : {}),
      };
    }),
    ports: [{ name: 'http', port: broken ? 70000 : 8000 + Math.floor(pick() * 3), protocol: 'TCP' }],
  };
}

function upstream(name: string, kube: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'gloo.solo.io/v1',
    kind: 'Upstream',
    metadata: { name, namespace: 'gloo-system' },
    spec: { kube: { serviceName: 'alpha', serviceNamespace: NS, servicePort: 8080, ...kube } },
  };
}

function virtualService(name: string, prefix: string, upstreams: [string, Record<string, string>?][]): KubeObject {
  return {
    apiVersion: 'gateway.solo.io/v1',
    kind: 'VirtualService',
    metadata: { name, namespace: 'gloo-system' },
    spec: {
      virtualHost: {
        domains: [`${name}.example.com`],
        routes: upstreams.map(([upstreamName, subset], i) => ({
          matchers: [{ prefix: `${prefix}${i}` }],
          routeAction: {
            single: {
              upstream: { name: upstreamName, namespace: 'gloo-system' },
              ...(subset ? { subset: { values: subset } } : {}),
            },
          },
        })),
      },
    },
  };
}

function gateway(name: string, port: number, proxies: string[], virtualServices: string[]): KubeObject {
  return {
    apiVersion: 'gateway.solo.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: 'gloo-system' },
    spec: {
      bindPort: port,
      proxyNames: proxies,
      httpGateway: { virtualServices: virtualServices.map((vs) => ({ name: vs, namespace: 'gloo-system' })) },
    },
  };
}

function initial(pick: () => number, fleet: boolean): KubeObject[] {
  return [
    ...SERVICES.map(service),
    ...PODS.map((p) => pod(p, pick)),
    slice('alpha-1', 'alpha', pick),
    slice('alpha-2', 'alpha', pick),
    slice('beta-1', 'beta', pick),
    slice('gamma-1', 'gamma', pick),
    slice('stray', undefined, pick),
    upstream('alpha-canary', { subsetSpec: { selectors: [{ keys: ['version'] }] } }),
    upstream('alpha-v2', { selector: { app: 'shop', version: 'v2' } }),
    virtualService('front', '/a', [['alpha-canary', { version: 'v1' }], ['alpha-v2'], [`${NS}-beta-8080`]]),
    virtualService('back', '/b', [[`${NS}-gamma-8080`], [`${NS}-delta-8080`]]),
    ...(fleet ? [gateway('outer', 8080, ['outer'], ['front']), gateway('inner', 8081, ['inner'], ['back'])] : []),
  ];
}

/** One random change to `objects` (by key); returns the keys it touched. */
function change(objects: Map<string, KubeObject>, pick: () => number, step: number): string[] {
  const slices = [...objects.values()].filter((o) => o.kind === 'EndpointSlice');
  const pods = [...objects.values()].filter((o) => o.kind === 'Pod');
  const any = <T>(list: T[]) => list[Math.floor(pick() * list.length)]!;
  const put = (o: KubeObject) => {
    o.metadata.resourceVersion = String(1000 + step);
    objects.set(keyOf(o), o);
    return [keyOf(o)];
  };
  const remove = (o: KubeObject) => {
    objects.delete(keyOf(o));
    return [keyOf(o)];
  };
  const r = pick();
  const serviceLabel = (o: KubeObject) => o.metadata.labels?.['kubernetes.io/service-name'];
  const nameOf = (o: KubeObject) => o.metadata.name;
  if (r < 0.4 && slices.length > 0) {
    const s = any(slices);
    return put(slice(nameOf(s), serviceLabel(s), pick));
  }
  if (r < 0.5 && slices.length > 0) return remove(any(slices));
  if (r < 0.6) return put(slice(`${any(SERVICES)}-${step}`, any(SERVICES), pick));
  if (r < 0.75) return put(pod(nameOf(any(pods.length > 0 ? pods : [pod(any(PODS), pick)])), pick));
  if (r < 0.8 && pods.length > 0) return remove(any(pods));
  if (r < 0.87) return put(pod(any(PODS), pick));
  if (r < 0.9 && slices.length > 0) {
    const s = any(slices);
    return put(slice(nameOf(s), serviceLabel(s), pick, true));
  }
  // A VirtualService edit: the full compile's business.
  const vs = virtualService('back', `/b${step}/`, [[`${NS}-gamma-8080`], [`${NS}-delta-8080`]]);
  return put(vs);
}

const entries = (set: XdsSet | undefined) =>
  set && Object.fromEntries(Object.entries(set).map(([kind, map]) => [kind, [...(map as Map<string, unknown>)]]));

/** Everything a compile gives that is served or reported, comparable with toEqual. */
function outcome(result: CompileResult) {
  return {
    diagnostics: result.diagnostics,
    endpoints: JSON.stringify(result.ir?.endpoints),
    xds: entries(result.xds),
    proxies: result.proxies && [...result.proxies].map(([proxy, set]) => [proxy, entries(set)]),
  };
}

/** The snapshot versions of a result's sets, each by a fresh encoder. */
function versions(result: CompileResult): string[] {
  const sets = result.proxies ? [...result.proxies.values()] : result.xds ? [result.xds] : [];
  return sets.map((set) => new SnapshotEncoder().build(set).version);
}

const STEPS = 60;
const CASES: [string, { fleet: boolean; options: CompileOptions; seed: number }][] = [
  ['one gateway', { fleet: false, options: DEFAULT_OPTIONS, seed: 1 }],
  ['VHDS', { fleet: false, options: { ...DEFAULT_OPTIONS, vhds: true }, seed: 2 }],
  ['a fleet of proxies', { fleet: true, options: DEFAULT_OPTIONS, seed: 3 }],
];

describe.each(CASES)('endpoint changes take the fast path and equal a full compile (%s)', (_, c) => {
  test('cluster objects', () => {
    const pick = random(c.seed);
    const objects = new Map(initial(pick, c.fleet).map((o) => [keyOf(o), o]));
    const kept = new Compiler(c.options);
    expect(
      kept.compileObjects(objects, new Set(objects.keys())).diagnostics.filter(isError).map(formatDiagnostic),
    ).toEqual([]);
    const paths = { full: 0, endpoints: 0 };
    for (let step = 1; step <= STEPS; step++) {
      const changed = new Set<string>();
      for (let i = 0, n = 1 + Math.floor(pick() * 2); i < n; i++)
        for (const k of change(objects, pick, step)) changed.add(k);
      const fast = kept.compileObjects(objects, changed);
      paths[kept.lastPath!]++;
      const full = new Compiler(c.options).compileObjects(new Map(objects));
      expect({ step, ...outcome(fast) }).toEqual({ step, ...outcome(full) });
      expect(versions(fast)).toEqual(versions(full));
    }
    // Most steps change endpoints alone; some must go the full way (a Service's last slice, a broken slice, an edit).
    expect(paths.endpoints).toBeGreaterThan(STEPS / 4);
    expect(paths.full).toBeGreaterThan(0);
  });

  test('files', async () => {
    const pick = random(c.seed + 100);
    const dir = mkdtempSync(path.join(tmpdir(), 'sluice-endpoints-'));
    try {
      const objects = new Map(initial(pick, c.fleet).map((o) => [keyOf(o), o]));
      const fileOf = (key: string) => path.join(dir, `${key.replace(/[|/]/g, '_')}.yaml`);
      const write = (key: string) => {
        const o = objects.get(key);
        if (o) writeFileSync(fileOf(key), dump(o));
        else unlinkSync(fileOf(key));
      };
      mkdirSync(dir, { recursive: true });
      for (const key of objects.keys()) write(key);
      const kept = new Compiler(c.options);
      expect((await kept.compile([dir])).diagnostics.filter(isError).map(formatDiagnostic)).toEqual([]);
      const paths = { full: 0, endpoints: 0 };
      for (let step = 1; step <= STEPS / 2; step++) {
        for (const key of change(objects, pick, step)) write(key);
        const fast = await kept.compile([dir]);
        paths[kept.lastPath!]++;
        const full = await compileFiles([dir], c.options);
        expect({ step, ...outcome(fast) }).toEqual({ step, ...outcome(full) });
        expect(versions(fast)).toEqual(versions(full));
      }
      expect(paths.endpoints).toBeGreaterThan(STEPS / 6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("an EndpointSlice change looks at the upstreams of its Service only; a Pod change, at those that read pods' labels too", () => {
  const pick = random(7);
  const many = Array.from({ length: 40 }, (_, i) => `svc-${i}`);
  const objects = new Map(
    [
      ...initial(pick, false),
      ...many.flatMap((name) => [service(name), slice(`${name}-1`, name, () => 0.5)]),
      virtualService(
        'many',
        '/m',
        many.map((name) => [`${NS}-${name}-8080`]),
      ),
    ].map((o) => [keyOf(o), o]),
  );
  const compiler = new Compiler(DEFAULT_OPTIONS);
  expect(compiler.compileObjects(objects, new Set(objects.keys())).diagnostics.filter(isError)).toEqual([]);
  // Every look at an upstream's endpoint set goes through the memo's kept sets.
  const kept = (compiler as any).resolveMemo.endpoints.sets as WeakMap<object, unknown>;
  const looked: string[] = [];
  const get = kept.get.bind(kept);
  kept.get = (upstream: any) => {
    looked.push(upstream.name);
    return get(upstream);
  };
  const put = (o: KubeObject, version: string) => {
    o.metadata.resourceVersion = version;
    objects.set(keyOf(o), o);
    return new Set([keyOf(o)]);
  };
  const moved = slice('svc-7-1', 'svc-7', () => 0.25);
  const first = compiler.compileObjects(objects, put(moved, '2'));
  expect(compiler.lastPath).toBe('endpoints');
  // The first change after a full compile reads every set's warnings once; the next ones only what they touch.
  looked.length = 0;
  const second = compiler.compileObjects(
    objects,
    put(
      slice('svc-7-1', 'svc-7', () => 0.75),
      '3',
    ),
  );
  expect(compiler.lastPath).toBe('endpoints');
  expect(looked).toEqual([`${NS}-svc-7-8080`]);
  expect(second.xds!.endpoints.get(`${NS}-svc-7-8080`)).not.toEqual(first.xds!.endpoints.get(`${NS}-svc-7-8080`));
  expect(outcome(second)).toEqual(outcome(new Compiler(DEFAULT_OPTIONS).compileObjects(new Map(objects))));

  looked.length = 0;
  const relabelled = pod('pod-1', () => 0.1);
  const third = compiler.compileObjects(objects, put(relabelled, '4'));
  expect(compiler.lastPath).toBe('endpoints');
  // The selector's and the subsets' upstreams (of Service alpha), not the forty others.
  expect(looked.sort()).toEqual(['alpha-canary', 'alpha-v2']);
  expect(outcome(third)).toEqual(outcome(new Compiler(DEFAULT_OPTIONS).compileObjects(new Map(objects))));
});
