/**
 * The incremental compiler against a full compile, byte for byte: a seeded
 * generator applies random edits to a few resource files (add, change,
 * delete, move a resource to another file, rename a file, break and fix) and
 * after each one the snapshot a kept Compiler + SnapshotEncoder make must
 * equal a fresh one's, and so must the diagnostics. Replay a failure with
 * SLUICE_PROPERTY_SEED=<seed>; SLUICE_PROPERTY_STEPS gives more steps.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Random } from '../test/fuzz/mutate.js';
import { formatDiagnostic } from './diagnostics.js';
import { Compiler } from './pipeline.js';
import { DEFAULT_OPTIONS } from './translate/output.js';
import { settledMemory } from '../harness/memory.js';
import { SnapshotEncoder, type Snapshot } from '../control-plane/cache/snapshot.js';

const SEED = Number(process.env.SLUICE_PROPERTY_SEED ?? 20261123);
const STEPS = Number(process.env.SLUICE_PROPERTY_STEPS ?? 60);

const JWK = JSON.stringify(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }));

/** The GraphQL APIs of a golden case: two executable APIs, stitched APIs over them, a remote one. */
const GRAPHQL = readFileSync('golden/graphql-stitched/input/resources.yaml', 'utf8')
  .split(/^---$/m)
  .map((d) => d.trim())
  .filter((d) => d.includes('kind:'));

/** One resource document, by a stable key; `text` is re-rendered on change. */
interface Doc {
  key: string;
  text: string;
}

/**
 * Random resources over a small name space, so references hit, miss and clash.
 * RouteTables and delegating routes draw from `rt`, their own generator, and
 * the cluster's state (EndpointSlices, Pods, kube Upstreams' selectors and
 * subsets) from `ep`, so the other resources' random sequence stays what it
 * was before they existed.
 */
function render(rng: Random, kind: string, i: number, rt: Random, ep: Random): string {
  switch (kind) {
    case 'EndpointSlice': {
      // The slices of svc-0 and svc-1: ready, draining or left-out endpoints of pod-0..3, in two zones or none.
      const endpoints = Array.from({ length: ep.int(4) }, (_, k) => {
        const conditions = ep.pick([
          '{ready: true}',
          '{ready: false, serving: true, terminating: true}',
          '{ready: false, serving: false}',
        ]);
        const zone = ep.pick(['', '\n  zone: z1', '\n  zone: z2']);
        return `- addresses: [10.1.${i}.${ep.int(3) + 1}]\n  conditions: ${conditions}${zone}\n  targetRef: {kind: Pod, name: pod-${(k + ep.int(4)) % 4}, namespace: default}`;
      }).join('\n');
      const ports = ep.chance(0.9)
        ? `[{name: "", port: ${3000 + ep.int(2)}}]`
        : '[{name: a, port: 3000}, {name: b, port: 3001}]';
      return `apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: svc-${i}-slice, namespace: default, labels: {kubernetes.io/service-name: svc-${i}}}\naddressType: IPv4\nendpoints:${endpoints ? `\n${endpoints}` : ' []'}\nports: ${ports}`;
    }
    case 'Pod':
      return `apiVersion: v1\nkind: Pod\nmetadata: {name: pod-${i}, namespace: default, labels: {app: a${ep.chance(0.8) ? `, version: v${ep.int(2) + 1}` : ''}}}\nspec: {containers: [{name: c, image: example}]}`;
    case 'RouteTable': {
      // Paths under the delegated /d (written or inherited), now and then outside it or nested (refs may cycle).
      const routes = Array.from({ length: 1 + rt.int(2) }, () =>
        rt.chance(0.08)
          ? `  - inheritablePathMatchers: true\n    delegateAction: {ref: {name: rt-${rt.int(4)}}}`
          : `  - ${rt.chance(0.03) ? 'matchers: [{prefix: /x}]' : rt.chance(0.4) ? 'inheritablePathMatchers: true' : `matchers: [{prefix: /d/x${rt.int(3)}}]`}\n    routeAction: {single: {upstream: {name: up-${rt.int(3)}}}}`,
      ).join('\n');
      return `apiVersion: gateway.gateway.example/v1\nkind: RouteTable\nmetadata: {name: rt-${i}, namespace: default, labels: {team: t${rt.int(2)}}}\nspec:\n  weight: ${rt.int(3)}\n  routes:\n${routes}`;
    }
    case 'Service':
      return `apiVersion: v1\nkind: Service\nmetadata: {name: svc-${i}, namespace: default}\nspec:\n  ports: [${rng.chance(0.7) ? '{port: 8080}' : '{port: 8080}, {port: 9090}'}]`;
    case 'Upstream':
      return rng.chance(0.5)
        ? `apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: up-${i}, namespace: default}\nspec:\n  static: {hosts: [{addr: 10.0.0.${rng.int(4) + 1}, port: 80}]}`
        : `apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: up-${i}, namespace: default}\nspec:\n  kube: {${kubeChoice(rng.int(4), ep)}}`;
    case 'Secret':
      return `apiVersion: v1\nkind: Secret\nmetadata: {name: sec-${i}, namespace: default}\nstringData:\n  username: cn=reader-${rng.int(3)},dc=example,dc=org\n${rng.chance(0.85) ? `  password: pw-${rng.int(3)}\n` : ''}`;
    case 'AuthConfig':
      return `apiVersion: enterprise.gateway.example/v1\nkind: AuthConfig\nmetadata: {name: ac-${i}, namespace: default}\nspec:\n  configs:\n    - ldap:\n        address: ldap://ldap-${rng.int(2)}:389\n        userDnTemplate: uid=%s,ou=people,dc=example,dc=org\n        allowedGroups: ['cn=devs,ou=groups,dc=example,dc=org']\n${
        rng.chance(0.5)
          ? `        groupLookupSettings: {checkGroupsWithServiceAccount: true, credentialsSecretRef: {name: sec-${rng.int(3)}}}\n`
          : ''
      }`;
    default: {
      const target = rng.pick([
        () => `routeAction: {single: {kube: {ref: {name: svc-${rng.int(4)}}, port: ${rng.chance(0.8) ? 8080 : 9090}}}}`,
        () => `routeAction: {single: {upstream: {name: up-${rng.int(3)}}}}`,
        () => `graphqlApiRef: {name: ${rng.pick(['user-api', 'shop-api', 'storefront-api'])}}`,
      ])();
      const delegating = rt.chance(0.3)
        ? `\n      - matchers: [{prefix: /d}]\n        delegateAction: ${rt.chance(0.5) ? `{ref: {name: rt-${rt.int(4)}}}` : `{selector: {labels: {team: t${rt.int(2)}}}}`}`
        : '';
      const routes =
        Array.from(
          { length: 1 + rng.int(2) },
          (_, r) => `      - matchers: [{prefix: /r${r}-${rng.int(3)}}]\n        ${target}`,
        ).join('\n') + delegating;
      const options: string[] = [];
      if (rng.chance(0.5)) {
        options.push(
          `      jwt:\n        providers:\n          main:\n            issuer: https://issuer-${rng.int(2)}.example\n            jwks: {local: {key: '${JWK}'}}`,
        );
        if (rng.chance(0.7))
          options.push(
            `      rbac:\n        policies:\n          readers:\n            permissions: {methods: [GET]}\n            principals: [{jwtPrincipal: {claims: {role: r${rng.int(2)}}}}]`,
          );
      }
      if (rng.chance(0.3)) options.push(`      extauth: {configRef: {name: ac-${rng.int(3)}}}`);
      // A domain taken by another VirtualService now and then: an error, until the edit that moves it away.
      const domain = rng.chance(0.04) ? 'shared.example' : `vs-${i}.example`;
      return `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: vs-${i}, namespace: default}\nspec:\n  virtualHost:\n    domains: [${domain}]\n    routes:\n${routes}${options.length ? `\n    options:\n${options.join('\n')}` : ''}`;
    }
  }
}

/** A kube Upstream of svc-<service>, or now and then of svc-0 or svc-1 (the Services with EndpointSlices) with a selector or subsets. */
function kubeChoice(service: number, ep: Random): string {
  if (ep.chance(0.5)) return `serviceName: svc-${service}, servicePort: 8080`;
  const choice = ep.chance(0.4)
    ? 'selector: {version: v1}'
    : `subsetSpec: {selectors: [{keys: [version]}]${ep.chance(0.5) ? ', fallbackPolicy: NO_FALLBACK' : ''}}`;
  return `serviceName: svc-${ep.int(2)}, servicePort: 8080, ${choice}`;
}

/** How many of each kind the others reference (svc-0..3, up-0..2, ...): the kinds' initial counts. */
const REFERENCED: Record<string, number> = { Service: 4, Upstream: 3, Secret: 3, AuthConfig: 3, VirtualService: 8 };
/** The EndpointSlices of svc-0 and svc-1 and the pods they name: only editClusterState adds, changes or deletes them. */
const CLUSTER_STATE: Record<string, number> = { EndpointSlice: 2, Pod: 4 };

class World {
  /** file name -> its documents */
  readonly files = new Map<string, Doc[]>();
  /** file name -> text that replaces it while it is broken */
  readonly broken = new Map<string, string>();
  private nextFile = 0;
  /** RouteTables' own generator (see render). */
  private readonly rt: Random;
  /** The cluster state's own generator (see render). */
  private readonly ep: Random;

  constructor(
    readonly dir: string,
    private readonly rng: Random,
    seed: number,
  ) {
    this.rt = new Random(seed + 1);
    this.ep = new Random(seed + 2);
    for (let f = 0; f < 3; f++) this.files.set(this.newFileName(), []);
    for (const [kind, n] of Object.entries(REFERENCED))
      for (let i = 0; i < n; i++) this.add({ key: `${kind}/${i}`, text: render(rng, kind, i, this.rt, this.ep) });
    GRAPHQL.forEach((text, i) => this.add({ key: `graphql/${i}`, text }));
    for (let i = 0; i < 3; i++)
      this.files
        .get(this.rt.pick([...this.files.keys()]))!
        .push({ key: `RouteTable/${i}`, text: render(this.rt, 'RouteTable', i, this.rt, this.ep) });
    for (const [kind, n] of Object.entries(CLUSTER_STATE))
      for (let i = 0; i < n; i++)
        this.files
          .get(this.ep.pick([...this.files.keys()]))!
          .push({ key: `${kind}/${i}`, text: render(this.ep, kind, i, this.rt, this.ep) });
  }

  private newFileName(): string {
    return `resources-${this.nextFile++}.yaml`;
  }

  private add(doc: Doc): void {
    this.rng.pick([...this.files.values()]).push(doc);
  }

  private all(): { file: string; doc: Doc; index: number }[] {
    return [...this.files].flatMap(([file, docs]) => docs.map((doc, index) => ({ file, doc, index })));
  }

  /** One random edit, now and then with a RouteTable edit too, or a repair; returns what it did, for the failure message. */
  edit(): string {
    if (this.rng.chance(0.2)) return this.heal();
    const other = this.editOther();
    const withTable = this.rt.chance(0.3) ? `${other}; ${this.editRouteTable()}` : other;
    return this.ep.chance(0.4) ? `${withTable}; ${this.editClusterState()}` : withTable;
  }

  /**
   * Repairs the world in one edit: duplicates and broken files go, every
   * resource the others reference is there, and what names a missing port,
   * a shared domain, a cycle or a path outside its prefix is written out.
   * Random edits pile errors up faster than they undo them; without this the
   * world soon never compiles and the snapshots are never compared.
   */
  private heal(): string {
    this.broken.clear();
    const seen = new Set<string>();
    for (const [file, docs] of this.files)
      this.files.set(
        file,
        docs.filter((d) => !seen.has(d.key) && Boolean(seen.add(d.key))),
      );
    const missing = [
      ...Object.entries(REFERENCED).flatMap(([kind, n]) => Array.from({ length: n }, (_, i) => `${kind}/${i}`)),
      ...GRAPHQL.map((_, i) => `graphql/${i}`),
      ...Array.from({ length: 4 }, (_, i) => `RouteTable/${i}`),
      ...Object.entries(CLUSTER_STATE).flatMap(([kind, n]) => Array.from({ length: n }, (_, i) => `${kind}/${i}`)),
    ].filter((key) => !seen.has(key));
    for (const key of missing) {
      const [kind, i] = key.split('/');
      this.add({
        key,
        text:
          kind === 'graphql'
            ? GRAPHQL[Number(i)]!
            : kind === 'RouteTable'
              ? ''
              : render(this.rng, kind!, Number(i), this.rt, this.ep),
      });
    }
    for (const { doc } of this.all()) {
      const [kind, i] = doc.key.split('/');
      if (kind === 'RouteTable')
        doc.text = `apiVersion: gateway.gateway.example/v1\nkind: RouteTable\nmetadata: {name: rt-${i}, namespace: default, labels: {team: t${Number(i) % 2}}}\nspec:\n  routes:\n  - matchers: [{prefix: /d/x${i}}]\n    routeAction: {single: {upstream: {name: up-0}}}`;
      if (kind === 'VirtualService')
        doc.text = doc.text.replace('shared.example', `vs-${i}.example`).replaceAll('port: 9090}', 'port: 8080}');
      // A selector or subsets choose pods only of the Services with an EndpointSlice (svc-0, svc-1).
      if (kind === 'Upstream' && !/serviceName: svc-[01],/.test(doc.text))
        doc.text = doc.text.replace(/(servicePort: 8080).*$/m, '$1}');
      if (kind === 'Secret' && !doc.text.includes('password:')) doc.text += '  password: pw-0\n';
      if (kind === 'graphql') doc.text = doc.text.replace('FetchUser(', 'GetUser(');
    }
    return `heal (${missing.length ? `add ${missing.join(', ')}` : 'nothing missing'})`;
  }

  /** An endpoint or a pod's labels change, a slice or pod goes or comes back, or a kube Upstream takes or drops a selector or subsets. */
  private editClusterState(): string {
    const ep = this.ep;
    const kube = this.all().filter((d) => d.doc.key.startsWith('Upstream/') && d.doc.text.includes('kube: {'));
    if (kube.length > 0 && ep.chance(0.3)) {
      const { doc } = ep.pick(kube);
      doc.text = doc.text.replace(/kube: \{.*\}$/m, `kube: {${kubeChoice(ep.int(4), ep)}}`);
      return `change ${doc.key}'s kube target`;
    }
    const kind = ep.pick(Object.keys(CLUSTER_STATE));
    const i = ep.int(CLUSTER_STATE[kind]!);
    const at = this.all().find((d) => d.doc.key === `${kind}/${i}`);
    if (at && ep.chance(0.15)) {
      this.files.get(at.file)!.splice(at.index, 1);
      return `delete ${kind}/${i}`;
    }
    const text = render(ep, kind, i, this.rt, ep);
    if (at) at.doc.text = text;
    else this.files.get(ep.pick([...this.files.keys()]))!.push({ key: `${kind}/${i}`, text });
    return `${at ? 'change' : 'add'} ${kind}/${i}`;
  }

  private editRouteTable(): string {
    const rt = this.rt;
    const i = rt.int(4);
    const at = this.all().find((d) => d.doc.key === `RouteTable/${i}`);
    if (at && rt.chance(0.3)) {
      this.files.get(at.file)!.splice(at.index, 1);
      return `delete RouteTable/${i}`;
    }
    const text = render(rt, 'RouteTable', i, rt, this.ep);
    if (at) at.doc.text = text;
    else this.files.get(rt.pick([...this.files.keys()]))!.push({ key: `RouteTable/${i}`, text });
    return `${at ? 'change' : 'add'} RouteTable/${i}`;
  }

  private editOther(): string {
    const rng = this.rng;
    const docs = this.all().filter((d) => !d.doc.key.startsWith('RouteTable/'));
    const what = rng.pick(['change', 'change', 'change', 'add', 'delete', 'move', 'rename', 'break', 'graphql']);
    if (this.broken.size > 0 && rng.chance(0.5)) {
      const file = [...this.broken.keys()][0]!;
      this.broken.delete(file);
      return `fix ${file}`;
    }
    const renamed = docs.find((d) => d.doc.text.includes('FetchUser('));
    if (renamed && rng.chance(0.5)) {
      renamed.doc.text = renamed.doc.text.replace('FetchUser(', 'GetUser(');
      return 'graphql: rename the user API query back';
    }
    const one = rng.pick(docs);
    switch (what) {
      case 'add': {
        const kind = rng.pick(['Service', 'Upstream', 'Secret', 'AuthConfig', 'VirtualService']);
        // Mostly one that is missing among those others reference (a fix after a delete); now and then any, a duplicate if it exists.
        const missing = Array.from({ length: REFERENCED[kind]! }, (_, i) => i).filter(
          (i) => !docs.some((d) => d.doc.key === `${kind}/${i}`),
        );
        const i = missing.length > 0 && rng.chance(0.8) ? rng.pick(missing) : rng.int(12);
        this.add({ key: `${kind}/${i}`, text: render(rng, kind, i, this.rt, this.ep) });
        return `add ${kind}/${i} (a duplicate if it exists)`;
      }
      case 'delete':
        this.files.get(one.file)!.splice(one.index, 1);
        return `delete ${one.doc.key} from ${one.file}`;
      case 'move': {
        const to = rng.pick([...this.files.keys()]);
        this.files.get(one.file)!.splice(one.index, 1);
        this.files.get(to)!.push(one.doc);
        return `move ${one.doc.key} from ${one.file} to ${to}`;
      }
      case 'rename': {
        const to = this.newFileName();
        this.files.set(to, this.files.get(one.file)!);
        this.files.delete(one.file);
        this.broken.delete(one.file);
        return `rename ${one.file} to ${to}`;
      }
      case 'break': {
        const file = one.file;
        this.broken.set(
          file,
          rng.chance(0.5) ? 'kind: [unclosed\n' : this.text(file).replace(/kind: (\w+)/, 'kind: $1\nspec: 7'),
        );
        return `break ${file}`;
      }
      case 'graphql': {
        const api = docs.find((d) => d.doc.key.startsWith('graphql/') && d.doc.text.includes('name: user-api'));
        if (!api) return 'graphql: user-api is gone';
        // The stitched APIs merge User through GetUser: renaming it breaks them, renaming it back fixes them.
        api.doc.text = api.doc.text.includes('GetUser(')
          ? api.doc.text.replace('GetUser(', 'FetchUser(')
          : api.doc.text.replace('FetchUser(', 'GetUser(');
        return 'graphql: rename the user API query';
      }
      default: {
        if (one.doc.key.startsWith('graphql/')) return 'change nothing';
        const [kind, i] = one.doc.key.split('/');
        one.doc.text = render(rng, kind!, Number(i), this.rt, this.ep);
        return `change ${one.doc.key}`;
      }
    }
  }

  private text(file: string): string {
    return `${this.files
      .get(file)!
      .map((d) => d.text)
      .join('\n---\n')}\n`;
  }
}

/** Writes every file of the world into `dir` (removing files no longer there). */
function writeWorld(world: World, written: Set<string>): void {
  for (const file of written) if (!world.files.has(file)) rmSync(path.join(world.dir, file), { force: true });
  written.clear();
  for (const [file, docs] of world.files) {
    const text = world.broken.get(file) ?? `${docs.map((d) => d.text).join('\n---\n')}\n`;
    writeFileSync(path.join(world.dir, file), text);
    written.add(file);
  }
}

function summary(snapshot: Snapshot): string[] {
  const out = [`snapshot ${snapshot.version}`];
  for (const [url, type] of snapshot.types) {
    out.push(`${url} ${type.version}`);
    for (const r of type.resources.values())
      out.push(`  ${r.name} ${r.version} ${Buffer.from(r.value).toString('base64')}`);
  }
  return out;
}

async function outcome(compiler: Compiler, encoder: SnapshotEncoder, dir: string): Promise<string[]> {
  const result = await compiler.compile([dir]);
  const diagnostics = result.diagnostics.map(formatDiagnostic);
  if (result.proxies)
    return [
      ...diagnostics,
      ...[...result.proxies].flatMap(([proxy, set]) => [`proxy ${proxy}`, ...summary(encoder.build(set))]),
    ];
  return result.xds ? [...diagnostics, ...summary(encoder.build(result.xds))] : ['failed', ...diagnostics];
}

// Served as it is, and with VHDS (virtual hosts split from their route configurations); the full compile is a one-shot one, which keeps no memos.
test.each([
  ['', DEFAULT_OPTIONS],
  [' (VHDS)', { ...DEFAULT_OPTIONS, vhds: true }],
])(
  `incremental compiles equal full compiles after each of ${STEPS} random edits (seed ${SEED})%s`,
  async (_, options) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sluice-incremental-'));
    try {
      const world = new World(dir, new Random(SEED), SEED);
      const written = new Set<string>();
      const kept = new Compiler(options);
      const encoder = new SnapshotEncoder();
      const history: string[] = [];
      let succeeded = 0;
      for (let step = 0; step <= STEPS; step++) {
        if (step > 0) history.push(world.edit());
        writeWorld(world, written);
        const incremental = await outcome(kept, encoder, dir);
        const full = await outcome(new Compiler(options, { incremental: false }), new SnapshotEncoder(), dir);
        if (incremental[0] !== 'failed') succeeded++;
        // The edits so far are in the message, so a failure can be read without replaying it.
        expect({ history, result: incremental }).toEqual({ history, result: full });
      }
      // The generator must reach both outcomes, or the test proves little.
      expect(succeeded).toBeGreaterThan(STEPS / 4);
      expect(succeeded).toBeLessThan(STEPS + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('an unchanged resource keeps its Resource (version and bytes) from one snapshot to the next; an edit changes only what it touches', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-incremental-'));
  try {
    const vs = (name: string, prefix: string) =>
      `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: ${name}, namespace: default}\nspec:\n  virtualHost:\n    domains: [${name}.example]\n    routes:\n      - matchers: [{prefix: ${prefix}}]\n        routeAction: {single: {upstream: {name: ${name}}}}\n`;
    const up = (name: string, addr: string) =>
      `apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: ${name}, namespace: default}\nspec:\n  static: {hosts: [{addr: ${addr}, port: 80}]}\n`;
    writeFileSync(path.join(dir, 'a.yaml'), `${vs('a', '/a')}---\n${up('a', '10.0.0.1')}`);
    writeFileSync(path.join(dir, 'b.yaml'), `${vs('b', '/b')}---\n${up('b', '10.0.0.2')}`);
    const compiler = new Compiler(DEFAULT_OPTIONS);
    const encoder = new SnapshotEncoder();
    const first = encoder.build((await compiler.compile([dir])).xds!);
    writeFileSync(path.join(dir, 'b.yaml'), `${vs('b', '/b2')}---\n${up('b', '10.0.0.3')}`);
    const second = encoder.build((await compiler.compile([dir])).xds!);
    const same = (url: string, name: string) =>
      first.type(url)!.resources.get(name) === second.type(url)!.resources.get(name);
    const T = (kind: string) => [...first.types.keys()].find((u) => u.endsWith(kind))!;
    expect([
      same(T('.Cluster'), 'a'),
      same(T('.Cluster'), 'b'),
      same(T('.ClusterLoadAssignment'), 'a'),
      same(T('.ClusterLoadAssignment'), 'b'),
      same(T('.Listener'), 'http-8080'),
    ]).toEqual([true, true, true, false, true]);
    expect(same(T('.RouteConfiguration'), 'http-8080')).toBe(false);
    expect(first.type(T('.Cluster'))!.version).toBe(second.type(T('.Cluster'))!.version);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a Service scaled up and down, and a pod's label change, change its ClusterLoadAssignment only", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-incremental-'));
  try {
    const routes = `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: {name: reviews, namespace: default}
spec:
  kube: {serviceName: reviews, servicePort: 80, subsetSpec: {selectors: [{keys: [version]}]}}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: reviews, namespace: default}
spec:
  virtualHost:
    domains: [reviews.example]
    routes:
      - matchers: [{prefix: /}]
        routeAction: {single: {upstream: {name: reviews}, subset: {values: {version: v2}}}}
`;
    const service =
      'apiVersion: v1\nkind: Service\nmetadata: {name: reviews, namespace: default}\nspec: {ports: [{port: 80}]}\n';
    const slice = (pods: number) =>
      `apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: reviews-1, namespace: default, labels: {kubernetes.io/service-name: reviews}}\naddressType: IPv4\nports: [{port: 8080}]\nendpoints:\n${Array.from({ length: pods }, (_, i) => `- {addresses: [10.0.0.${i + 1}], conditions: {ready: true}, targetRef: {kind: Pod, name: p${i}, namespace: default}}`).join('\n')}\n`;
    const pods = (v2: number) =>
      Array.from(
        { length: 3 },
        (_, i) =>
          `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}, namespace: default, labels: {version: v${i === v2 ? 2 : 1}}}\nspec: {containers: []}\n`,
      ).join('---\n');
    writeFileSync(path.join(dir, 'routes.yaml'), routes);
    writeFileSync(path.join(dir, 'service.yaml'), service);
    writeFileSync(path.join(dir, 'pods.yaml'), pods(0));
    writeFileSync(path.join(dir, 'slice.yaml'), slice(2));
    const compiler = new Compiler(DEFAULT_OPTIONS);
    const encoder = new SnapshotEncoder();
    const snapshot = async () => encoder.build((await compiler.compile([dir])).xds!);
    const T = (s: Snapshot, kind: string) => [...s.types.keys()].find((u) => u.endsWith(kind))!;
    /** The endpoints of cluster reviews, each with its version label. */
    const endpoints = (s: Snapshot) => {
      const bytes = Buffer.from(s.type(T(s, '.ClusterLoadAssignment'))!.resources.get('reviews')!.value).toString(
        'latin1',
      );
      return [...bytes.matchAll(/(10\.0\.0\.\d)[\s\S]*?version[\s\S]{2,4}(v\d)/g)].map((m) => `${m[1]} ${m[2]}`);
    };
    /** Which resources of `b` are the very ones of `a` (unchanged), by type. */
    const unchanged = (a: Snapshot, b: Snapshot) =>
      Object.fromEntries(
        ['.Cluster', '.ClusterLoadAssignment', '.Listener', '.RouteConfiguration'].map((k) => [
          k,
          [...a.type(T(a, k))!.resources].every(([name, r]) => b.type(T(b, k))!.resources.get(name) === r),
        ]),
      );
    const first = await snapshot();
    expect(endpoints(first)).toEqual(['10.0.0.1 v2', '10.0.0.2 v1']);
    writeFileSync(path.join(dir, 'slice.yaml'), slice(3));
    const scaledUp = await snapshot();
    expect(endpoints(scaledUp)).toEqual(['10.0.0.1 v2', '10.0.0.2 v1', '10.0.0.3 v1']);
    expect(unchanged(first, scaledUp)).toEqual({
      '.Cluster': true,
      '.ClusterLoadAssignment': false,
      '.Listener': true,
      '.RouteConfiguration': true,
    });
    writeFileSync(path.join(dir, 'slice.yaml'), slice(1));
    const scaledDown = await snapshot();
    expect(endpoints(scaledDown)).toEqual(['10.0.0.1 v2']);
    expect(unchanged(scaledUp, scaledDown)).toEqual({
      '.Cluster': true,
      '.ClusterLoadAssignment': false,
      '.Listener': true,
      '.RouteConfiguration': true,
    });
    // p0 leaves subset v2, p1 (not an endpoint now) joins it: only the assignment changes.
    writeFileSync(path.join(dir, 'slice.yaml'), slice(2));
    await snapshot();
    writeFileSync(path.join(dir, 'pods.yaml'), pods(1));
    const relabelled = await snapshot();
    expect(endpoints(relabelled)).toEqual(['10.0.0.1 v1', '10.0.0.2 v2']);
    expect(unchanged(scaledDown, relabelled)).toEqual({
      '.Cluster': true,
      '.ClusterLoadAssignment': false,
      '.Listener': true,
      '.RouteConfiguration': true,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file renamed over by an editor (write, rename) is read again', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-incremental-'));
  try {
    const svc = (port: number) =>
      `apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: default}\nspec:\n  ports: [{port: ${port}}]\n`;
    const vs = `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: default}\nspec:\n  virtualHost:\n    domains: [v.example]\n    routes:\n      - routeAction: {single: {kube: {ref: {name: s}, port: 81}}}\n`;
    writeFileSync(path.join(dir, 'vs.yaml'), vs);
    writeFileSync(path.join(dir, 'svc.yaml'), svc(80));
    const compiler = new Compiler(DEFAULT_OPTIONS);
    expect((await compiler.compile([dir])).diagnostics.map((d) => d.message)).toEqual([
      'Service default/s has no port 81',
    ]);
    // A Service's port change reaches the route that uses it, though the VirtualService's file did not change.
    writeFileSync(path.join(dir, '.svc.yaml.tmp'), svc(81));
    renameSync(path.join(dir, '.svc.yaml.tmp'), path.join(dir, 'svc.yaml'));
    const result = await compiler.compile([dir]);
    expect(result.diagnostics).toEqual([]);
    expect([...result.xds!.clusters.keys()]).toEqual(['default-s-81']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('identical documents in one file stay two resources across an edit of that file, each at its own line', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-incremental-'));
  try {
    const svc = (name: string) =>
      `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: default}\nspec:\n  ports: [{port: 80}]\n`;
    const file = path.join(dir, 'svc.yaml');
    const compiler = new Compiler(DEFAULT_OPTIONS);
    const duplicates = async () =>
      (await compiler.compile([dir])).diagnostics
        .filter((d) => d.message.startsWith('duplicate'))
        .map((d) => `${d.line} ${d.message}`);
    writeFileSync(file, `${svc('a')}---\n${svc('s')}---\n${svc('s')}`);
    const before = await duplicates();
    expect(before).toHaveLength(1);
    expect(before[0]).toMatch(/^15 duplicate Service "s".*svc.yaml:7$/);
    // The first document changes: the two copies are found again by their text, and keep their lines.
    writeFileSync(path.join(dir, '.svc.yaml.tmp'), `${svc('b')}---\n${svc('s')}---\n${svc('s')}`);
    renameSync(path.join(dir, '.svc.yaml.tmp'), file);
    expect(await duplicates()).toEqual(before);
    // One line added above them moves both.
    writeFileSync(path.join(dir, '.svc.yaml.tmp'), `# services\n${svc('b')}---\n${svc('s')}---\n${svc('s')}`);
    renameSync(path.join(dir, '.svc.yaml.tmp'), file);
    expect((await duplicates())[0]).toMatch(/^16 duplicate Service "s".*svc.yaml:8$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('edits to different documents of one large file do not keep its earlier texts alive', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-incremental-'));
  const retained = async () => (await settledMemory()).heapUsed;
  try {
    const vs = (i: number, prefix: string) =>
      `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: vs-${i}, namespace: default}\nspec:\n  virtualHost:\n    domains: [vs-${i}.example]\n    routes:\n      - matchers: [{prefix: ${prefix}}]\n        routeAction: {single: {upstream: {name: up}}}\n`;
    const upstream =
      'apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: up, namespace: default}\nspec:\n  static: {hosts: [{addr: 10.0.0.1, port: 80}]}\n';
    const file = path.join(dir, 'all.yaml');
    const text = (edited: number) =>
      [upstream, ...Array.from({ length: 1000 }, (_, i) => vs(i, i === edited ? `/edited-${i}` : '/'))].join('---\n');
    writeFileSync(file, text(-1));
    const compiler = new Compiler(DEFAULT_OPTIONS);
    expect((await compiler.compile([dir])).xds).toBeDefined();
    const before = await retained();
    const edits = 100;
    for (let e = 0; e < edits; e++) {
      writeFileSync(path.join(dir, '.all.yaml.tmp'), text(e));
      renameSync(path.join(dir, '.all.yaml.tmp'), file);
      expect((await compiler.compile([dir])).xds).toBeDefined();
    }
    // Keeping each earlier text would cost the file's size per edit; what an edit itself leaves (memo entries) is far less.
    const fileBytes = text(-1).length;
    expect((await retained()) - before).toBeLessThan((edits * fileBytes) / 4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
