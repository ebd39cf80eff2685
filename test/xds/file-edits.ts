/**
 * Random saves of a folder of resources, as someone editing them while
 * `sluice serve` watches: Upstreams (EDS when their hosts are IPs, DNS
 * otherwise) renamed, re-pointed, or made to override a Service's discovered
 * Upstream; Services removed and added back; VirtualServices added, removed
 * and re-routed; a file deleted, then restored; a save that does not compile
 * (bad YAML, an anchor bomb, an unknown field, a route to nothing) between
 * good ones; several files written in one save.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Random } from '../fuzz/mutate.js';

interface World {
  /** Upstream name -> host ("10.0.0.1" or "u.example"); in file `upstreams-<name's file>.yaml`. */
  upstreams: Map<string, string>;
  services: Set<string>;
  /** Services whose discovered Upstream (sluice-system/default-<service>-8080) an explicit one replaces, with its IP. */
  overrides: Map<string, string>;
  /** VirtualService name -> ['upstream' | 'service', target name]. */
  vhosts: Map<string, ['upstream' | 'service', string]>;
}

const FILES = ['upstreams-a.yaml', 'upstreams-b.yaml', 'services.yaml', 'routes-a.yaml', 'routes-b.yaml'] as const;
type FileName = (typeof FILES)[number];

/** Saves that do not compile, each in its own way. */
const BROKEN = [
  'apiVersion: v1\nkind: Service\nmetadata: {name: broken\n',
  `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n`,
  'apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: odd, namespace: default}\nspec:\n  static: {hosts: [{addr: 10.0.0.1, port: 80}]}\n  statik: {}\n',
  'apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: dangling, namespace: default}\nspec:\n  virtualHost:\n    domains: [dangling.example]\n    routes:\n      - routeAction: {single: {upstream: {name: nowhere, namespace: default}}}\n',
];

const fileOfUpstream = (name: string): FileName =>
  Number(name.slice(1)) % 2 ? 'upstreams-b.yaml' : 'upstreams-a.yaml';
const fileOfVhost = (name: string): FileName => (Number(name.slice(1)) % 2 ? 'routes-b.yaml' : 'routes-a.yaml');

const upstream = (name: string, namespace: string, host: string) =>
  `apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: ${name}, namespace: ${namespace}}\nspec:\n  static: {hosts: [{addr: ${host}, port: 80}]}\n`;

function render(world: World, file: FileName): string {
  const docs: string[] = [];
  if (file.startsWith('upstreams')) {
    for (const [name, host] of [...world.upstreams].sort())
      if (fileOfUpstream(name) === file) docs.push(upstream(name, 'default', host));
    if (file === 'upstreams-a.yaml')
      for (const [service, ip] of [...world.overrides].sort())
        docs.push(upstream(`default-${service}-8080`, 'sluice-system', ip));
  } else if (file === 'services.yaml') {
    for (const name of [...world.services].sort())
      docs.push(
        `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: default}\nspec:\n  ports: [{port: 8080}]\n`,
      );
  } else {
    for (const [name, [kind, target]] of [...world.vhosts].sort()) {
      if (fileOfVhost(name) !== file) continue;
      const destination =
        kind === 'upstream'
          ? `{upstream: {name: ${target}, namespace: default}}`
          : `{kube: {ref: {name: ${target}, namespace: default}, port: 8080}}`;
      docs.push(
        `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: ${name}, namespace: default}\nspec:\n  virtualHost:\n    domains: [${name}.example]\n    routes:\n      - matchers: [{prefix: /}]\n        routeAction: {single: ${destination}}\n`,
      );
    }
  }
  // An empty file is a valid input (no documents).
  return docs.join('---\n');
}

export class FileEditor {
  private readonly world: World = {
    upstreams: new Map([
      ['u0', '10.0.0.1'],
      ['u1', 'u1.example'],
      ['u2', '10.0.0.2'],
    ]),
    services: new Set(['s0', 's1']),
    overrides: new Map(),
    vhosts: new Map([
      ['v0', ['upstream', 'u0']],
      ['v1', ['service', 's0']],
      ['v2', ['upstream', 'u2']],
    ]),
  };
  private nextName = 3;
  /** A file broken or deleted by the last save, to be written again. */
  private damaged: FileName | undefined;
  /** Saves so far, by kind. */
  readonly kinds = new Map<string, number>();

  constructor(
    readonly dir: string,
    private readonly random: Random,
  ) {
    for (const file of FILES) this.write(file);
  }

  private write(file: FileName): void {
    writeFileSync(path.join(this.dir, file), render(this.world, file));
  }

  /** Whether the last save left a file that does not compile (or is missing what others name). */
  get broken(): boolean {
    return this.damaged !== undefined;
  }

  /** One save: the world changed in one or more ways, each changed file written; or a file broken, or deleted. */
  save(): string {
    const w = this.world;
    const r = this.random;
    const touched = new Set<FileName>();
    if (this.damaged) touched.add(this.damaged);
    this.damaged = undefined;
    let kind: string;
    const choice = r.int(10);
    if (choice === 0 && touched.size === 0) {
      const file = r.pick(FILES);
      writeFileSync(path.join(this.dir, file), r.pick(BROKEN));
      this.damaged = file;
      return this.count('a save that does not compile');
    }
    if (choice === 1 && touched.size === 0) {
      const file = r.pick(FILES);
      rmSync(path.join(this.dir, file));
      this.damaged = file;
      return this.count('a file deleted');
    }
    // One to three changes of the world, in one save (several files written at once).
    for (let i = 0, n = 1 + r.int(r.chance(0.3) ? 3 : 1); i < n; i++) {
      const names = [...w.upstreams.keys()];
      const change = r.int(7);
      if (change === 0 && names.length > 1) {
        // An Upstream renamed, and every route to it.
        const from = r.pick(names);
        const to = `u${this.nextName++}`;
        w.upstreams.set(to, w.upstreams.get(from)!);
        w.upstreams.delete(from);
        for (const [v, [k, t]] of w.vhosts) if (k === 'upstream' && t === from) w.vhosts.set(v, ['upstream', to]);
        touched.add(fileOfUpstream(from)).add(fileOfUpstream(to)).add('routes-a.yaml').add('routes-b.yaml');
        kind = 'an Upstream renamed';
      } else if (change === 1) {
        // Re-pointed: another IP (EDS endpoints change), or between IP and DNS name (the cluster changes type).
        const name = r.pick(names);
        w.upstreams.set(name, r.chance(0.6) ? `10.0.${r.int(3)}.${1 + r.int(9)}` : `${name}-${r.int(3)}.example`);
        touched.add(fileOfUpstream(name));
        kind = 'an Upstream re-pointed';
      } else if (change === 2 && w.services.size > 0) {
        // A Service removed, with its routes and its override.
        const name = r.pick([...w.services]);
        w.services.delete(name);
        w.overrides.delete(name);
        for (const [v, [k, t]] of w.vhosts) if (k === 'service' && t === name) w.vhosts.delete(v);
        touched.add('services.yaml').add('upstreams-a.yaml').add('routes-a.yaml').add('routes-b.yaml');
        kind = 'a Service removed';
      } else if (change === 3) {
        const name = `s${r.int(4)}`;
        w.services.add(name);
        touched.add('services.yaml');
        kind = 'a Service added';
      } else if (change === 4 && w.services.size > 0) {
        // The discovered Upstream of a Service replaced by a static one (EDS), or given back (DNS).
        const name = r.pick([...w.services]);
        if (w.overrides.has(name)) w.overrides.delete(name);
        else w.overrides.set(name, `10.1.0.${1 + r.int(9)}`);
        touched.add('upstreams-a.yaml');
        kind = 'a Service overridden by an Upstream, or given back';
      } else if (change === 5 && w.vhosts.size > 1 && r.chance(0.4)) {
        const name = r.pick([...w.vhosts.keys()]);
        w.vhosts.delete(name);
        touched.add(fileOfVhost(name));
        kind = 'a VirtualService removed';
      } else {
        // A VirtualService added or routed elsewhere.
        const name = r.chance(0.3) ? `v${this.nextName++}` : r.pick([...w.vhosts.keys(), 'v0']);
        const target: ['upstream' | 'service', string] =
          w.services.size > 0 && r.chance(0.4) ? ['service', r.pick([...w.services])] : ['upstream', r.pick(names)];
        w.vhosts.set(name, target);
        touched.add(fileOfVhost(name));
        kind = 'a VirtualService routed';
      }
      this.count(kind);
    }
    for (const file of touched) this.write(file);
    return touched.size > 1 ? this.count('several files in one save') : 'one file';
  }

  private count(kind: string): string {
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    return kind;
  }
}
