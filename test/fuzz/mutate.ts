/**
 * A seeded mutation generator for the compiler's input: each case starts from
 * the resources of one golden case and breaks them the ways a hostile user or
 * an unlucky operator would (fields dropped, duplicated, retyped; huge and odd
 * strings; deep nesting; broken references; duplicate names; odd files and
 * paths). The same seed always writes the same case.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORE_SCHEMA, dump, loadAll } from 'js-yaml';

/** mulberry32: small, fast, and good enough to pick mutations. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The seed of case `index` of a run seeded `seed`: any case can be replayed alone. */
export function caseSeed(seed: number, index: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface GoldenInput {
  name: string;
  documents: Json[];
}

/** Every golden case's input documents (all files of a case together). */
export function readGoldenInputs(root = 'golden'): GoldenInput[] {
  const inputs: GoldenInput[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const name = entry.name;
    const dir = path.join(root, name, 'input');
    if (!entry.isDirectory() || !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
    const documents: Json[] = [];
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
      if (!/\.(ya?ml|json)$/.test(file)) continue;
      try {
        documents.push(
          ...(loadAll(readFileSync(path.join(dir, file), 'utf8'), undefined, { schema: CORE_SCHEMA }) as Json[]).filter(
            (d) => d !== null,
          ),
        );
      } catch {
        // A golden case of malformed input has nothing to mutate structurally.
      }
    }
    if (documents.length > 0) inputs.push({ name, documents });
  }
  return inputs.sort((a, b) => a.name.localeCompare(b.name));
}

const MB = 1 << 20;

/** Strings that have broken or could break a stage, alone or spliced into the original value. */
const ODD: readonly (() => string)[] = [
  () => '',
  () => ' ',
  () => '\0',
  () => '\n',
  () => '\r\n',
  () => '\t',
  () => '\u001b[31m',
  () => '\u007f',
  () => '\u0085',
  () => '\u202e',
  () => '\ufeff',
  () => '\u200b',
  () => '\u2028',
  () => '\ufeff\u202e',
  () => '\ud800',
  () => '😀',
  () => 'bücher.example',
  () => 'xn--bcher-kva.example',
  () => 'UPPER.Example.COM',
  () => '*',
  () => '*.*',
  () => 'a*b',
  () => 'example.com:8080',
  () => '[::1]:80',
  () => '..',
  () => '/',
  () => '//',
  () => '/a b',
  () => '/é',
  () => '%s',
  () => '{$args.x}',
  () => '{$',
  () => '../../etc/passwd',
  () => '(uid=%s',
  () => 'cn=a,dc=b',
  () => 'ldap://',
  () => 'http://',
  () => 'https://a b/',
  () => 'ftp://x',
  () => '0',
  () => 'true',
  () => '-',
  () => '.',
  () => 'x'.repeat(64),
  () => 'a'.repeat(254),
  () => 'a'.repeat(300),
  () => 'é'.repeat(70_000),
  () => 'a'.repeat(MB),
  () => `${'a.'.repeat(200)}com`,
  () => 'type Query { a: String }',
  () => '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n',
];

function oddString(rng: Random, original?: string): string {
  const odd = rng.pick(ODD)();
  if (original === undefined || rng.chance(0.5)) return odd;
  // Spliced: `api.example.com` becomes `api.exa\0mple.com`, the form a typo or an attack takes.
  const at = rng.int(original.length + 1);
  return original.slice(0, at) + odd + original.slice(at);
}

function randomScalar(rng: Random): Json {
  return rng.pick<() => Json>([
    () => null,
    () => true,
    () => false,
    () => 0,
    () => -1,
    () => 65536,
    () => 1.5,
    () => 2 ** 53 + 2,
    () => 1e308,
    () => -0,
    () => oddString(rng),
    () => [],
    () => ({}),
    () => [oddString(rng)],
    () => ({ [oddString(rng)]: oddString(rng) }),
  ])();
}

/**
 * Deep nesting is written as text: a placeholder in the documents becomes
 * `[[[…]]]` or `{"a":{"a":…}}` (valid YAML flow and JSON alike) once they are
 * serialised, since the serialisers recurse once per level.
 */
const DEEP = /"?__deep_(\d+)_(list|map)__"?/g;

function deepText(depth: number, kind: string): string {
  return kind === 'list'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a": '.repeat(depth)}1${'}'.repeat(depth)}`;
}

interface Slot {
  parent: Json[] | { [key: string]: Json };
  key: string | number;
  path: (string | number)[];
}

/** Every place in the documents a value sits, with its path (the document index first). */
function slots(documents: Json[]): Slot[] {
  const out: Slot[] = [];
  const visit = (parent: Slot['parent'], key: string | number, pathSoFar: (string | number)[], depth: number) => {
    out.push({ parent, key, path: pathSoFar });
    const value = (parent as Record<string | number, Json>)[key];
    if (depth > 40 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) value.forEach((_, i) => visit(value, i, [...pathSoFar, i], depth + 1));
    else for (const k of Object.keys(value)) visit(value, k, [...pathSoFar, k], depth + 1);
  };
  documents.forEach((_, i) => visit(documents, i, [i], 0));
  return out;
}

const REF_KEYS = new Set(['ref', 'upstream', 'upstreamRef', 'configRef', 'graphqlApiRef', 'credentialsSecretRef']);

type Mutation = (rng: Random, documents: Json[]) => string | undefined;

function get(slot: Slot): Json {
  return (slot.parent as Record<string | number, Json>)[slot.key];
}
function set(slot: Slot, value: Json): void {
  (slot.parent as Record<string | number, Json>)[slot.key] = value;
}
function show(slot: Slot): string {
  return slot.path.join('.').slice(0, 120);
}

const MUTATIONS: Record<string, Mutation> = {
  drop(rng, docs) {
    const slot = rng.pick(slots(docs).filter((s) => s.path.length > 1));
    if (!slot) return undefined;
    if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
    else delete slot.parent[slot.key as string];
    return `drop ${show(slot)}`;
  },
  duplicate(rng, docs) {
    const lists = slots(docs).filter((s) => Array.isArray(get(s)) && (get(s) as Json[]).length > 0);
    if (lists.length === 0 || rng.chance(0.3)) {
      const doc = rng.pick(docs);
      docs.push(structuredClone(doc));
      return 'duplicate a document';
    }
    const slot = rng.pick(lists);
    const list = get(slot) as Json[];
    list.push(structuredClone(rng.pick(list)));
    return `duplicate an item of ${show(slot)}`;
  },
  retype(rng, docs) {
    const slot = rng.pick(slots(docs));
    set(slot, randomScalar(rng));
    return `retype ${show(slot)}`;
  },
  oddString(rng, docs) {
    const strings = slots(docs).filter((s) => typeof get(s) === 'string');
    const slot = rng.pick(strings.length > 0 && rng.chance(0.8) ? strings : slots(docs));
    const value = get(slot);
    set(slot, oddString(rng, typeof value === 'string' ? value : undefined));
    return `odd string at ${show(slot)}`;
  },
  oddKey(rng, docs) {
    const maps = slots(docs).filter((s) => {
      const v = get(s);
      return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
    });
    if (maps.length === 0) return undefined;
    const slot = rng.pick(maps);
    const map = get(slot) as Record<string, Json>;
    const key = rng.pick(Object.keys(map));
    const renamed = oddString(rng, key);
    map[renamed] = map[key];
    if (renamed !== key) delete map[key];
    return `odd key at ${show(slot)}.${key.slice(0, 40)}`;
  },
  deepNesting(rng, docs) {
    const slot = rng.pick(slots(docs));
    set(slot, `__deep_${rng.pick([20, 200, 2000, 5000, 100_000])}_${rng.pick(['list', 'map'])}__`);
    return `deep nesting at ${show(slot)}`;
  },
  brokenReference(rng, docs) {
    const refs = slots(docs).filter(
      (s) => REF_KEYS.has(String(s.key)) && get(s) !== null && typeof get(s) === 'object',
    );
    const subschemas = slots(docs).filter((s) => s.key === 'subschemas' && Array.isArray(get(s)));
    const slot = rng.pick([...refs, ...subschemas]);
    if (!slot) return undefined;
    const target = (Array.isArray(get(slot)) ? rng.pick(get(slot) as Json[]) : get(slot)) as Record<
      string,
      Json
    > | null;
    if (!target || typeof target !== 'object') return undefined;
    const names = docs.flatMap((d) => {
      const n = (d as { metadata?: { name?: unknown } })?.metadata?.name;
      return typeof n === 'string' ? [n] : [];
    });
    if (rng.chance(0.4)) target.name = rng.pick(['nowhere', 'a'.repeat(253), ...names]);
    else if (rng.chance(0.5)) target.namespace = rng.pick(['other', 'default', 'gloo-system', 'x'.repeat(63)]);
    else delete target.name;
    return `broken reference at ${show(slot)}`;
  },
  duplicateName(rng, docs) {
    const named = docs.filter((d) => typeof (d as { metadata?: { name?: unknown } })?.metadata?.name === 'string') as {
      kind?: Json;
      metadata: { name: string };
    }[];
    if (named.length < 2) return undefined;
    const a = rng.pick(named);
    const b = rng.pick(named.filter((d) => d !== a && (rng.chance(0.5) || d.kind === a.kind)));
    if (!b) return undefined;
    a.metadata.name = b.metadata.name;
    return `duplicate name ${b.metadata.name}`;
  },
  swapKind(rng, docs) {
    const doc = rng.pick(docs) as Record<string, Json>;
    if (!doc || typeof doc !== 'object') return undefined;
    const kinds: [string, string][] = [
      ['gateway.gateway.example/v1', 'VirtualService'],
      ['enterprise.gateway.example/v1', 'AuthConfig'],
      ['gloo.gateway.example/v1', 'Upstream'],
      ['graphql.gateway.example/v1beta1', 'GraphQLApi'],
      ['v1', 'Service'],
      ['v1', 'Secret'],
    ];
    const [apiVersion, kind] = rng.pick(kinds);
    if (rng.chance(0.7)) doc.kind = kind;
    else doc.apiVersion = apiVersion;
    return `kind or apiVersion swapped to ${kind}`;
  },
};

/** Odd strings are what most often slip through to the output, so they are picked most. */
const WEIGHTED = Object.entries({
  oddString: 6,
  retype: 2,
  drop: 2,
  oddKey: 2,
  duplicate: 1,
  deepNesting: 1,
  brokenReference: 1,
  duplicateName: 1,
  swapKind: 1,
}).flatMap(([name, weight]) => Array<string>(weight).fill(name));

/** A YAML alias bomb: a few lines that expand to billions of nodes when walked as a tree. */
function aliasBomb(): string {
  const lines = ['apiVersion: v1', 'kind: Service', 'metadata: {name: bomb}', 'spec:', '  selector: &a0 {k: v}'];
  for (let i = 1; i < 30; i++) lines.push(`  l${i}: &a${i} [*a${i - 1}, *a${i - 1}]`);
  return `${lines.join('\n')}\n`;
}

function serialize(rng: Random, documents: Json[]): { text: string; ext: string }[] {
  const files: { text: string; ext: string }[] = [];
  let rest = documents;
  while (rest.length > 0) {
    const take = 1 + rng.int(rest.length);
    const chunk = rest.slice(0, take);
    rest = rest.slice(take);
    const json = rng.chance(0.2);
    const text = json
      ? chunk.map((d) => JSON.stringify(d, null, rng.chance(0.5) ? 2 : undefined)).join('\n---\n')
      : chunk.map((d) => dump(d, { noRefs: true, lineWidth: -1, skipInvalid: true })).join('---\n');
    files.push({
      text: text.replace(DEEP, (_, depth: string, kind: string) => deepText(Number(depth), kind)),
      ext: json ? 'json' : 'yaml',
    });
  }
  return files;
}

/** Byte-level damage to a file's text: what a truncated copy or an editor accident leaves. */
function damageText(rng: Random, text: string): [string, string] {
  const at = rng.int(text.length + 1);
  return rng.pick<() => [string, string]>([
    () => [text.slice(0, at), `truncated at ${at}`],
    () => [
      text.slice(0, at) +
        rng.pick(['\t', '\0', ':', '{', '- ', '&x ', '*x', '!!binary ', '<<: *x', '\ufeff', '\r', '"']) +
        text.slice(at),
      `character inserted at ${at}`,
    ],
    () => [`\ufeff${text}`, 'byte order mark'],
    () => [text.replace(/\n/g, '\r\n'), 'CRLF line ends'],
    () => [`${text}\n---\n---\n...\n`, 'empty documents'],
  ])();
}

/** Files and paths the loader must survive; each returns what it did. */
const TREE: Record<string, (rng: Random, dir: string) => string> = {
  longName(rng, dir) {
    writeFileSync(
      path.join(dir, `${'n'.repeat(250)}.yaml`),
      'apiVersion: v1\nkind: Service\nmetadata: {name: long-name}\nspec: {}\n',
    );
    return 'a 255-byte file name';
  },
  pastPathMax(rng, dir) {
    const long = 'l'.repeat(255);
    for (let i = 0; i < 18; i++) {
      mkdirSync(path.join(dir, `d${i}`));
      if (i < 17) symlinkSync(path.join('..', `d${i + 1}`), path.join(dir, `d${i}`, long));
    }
    writeFileSync(path.join(dir, 'd17', 'deep.yaml'), 'kind: X\n');
    return 'a path longer than PATH_MAX through links';
  },
  danglingLink(rng, dir) {
    symlinkSync('nowhere.yaml', path.join(dir, 'dangling.yaml'));
    return 'a dangling link';
  },
  linkLoop(rng, dir) {
    symlinkSync('loop.yaml', path.join(dir, 'loop.yaml'));
    symlinkSync('.', path.join(dir, 'here'));
    return 'link loops';
  },
  namedPipe(rng, dir) {
    execFileSync('mkfifo', [path.join(dir, 'pipe.yaml')]);
    return 'a named pipe';
  },
  oddFileName(rng, dir) {
    writeFileSync(
      path.join(dir, `odd\n\u202e\u001b[31m.yaml`),
      'apiVersion: v1\nkind: Service\nmetadata: {name: Bad}\n',
    );
    return 'a file name with a newline, a bidi override and an escape';
  },
  notUtf8(rng, dir) {
    writeFileSync(
      path.join(dir, 'latin1.yaml'),
      Buffer.from('apiVersion: v1\nkind: Service\nmetadata: {name: caf\xe9}\nspec: {}\n', 'latin1'),
    );
    return 'a file that is not UTF-8';
  },
  aliasBomb(rng, dir) {
    writeFileSync(path.join(dir, 'bomb.yaml'), aliasBomb());
    return 'a YAML alias bomb';
  },
  manyErrors(rng, dir) {
    const doc = (i: number) =>
      `apiVersion: v1\nkind: Service\nmetadata: {name: Bad_${i}}\nspec: {ports: [{port: 0}]}\n`;
    writeFileSync(path.join(dir, 'many.yaml'), Array.from({ length: 3000 }, (_, i) => doc(i)).join('---\n'));
    return '3000 broken documents';
  },
  emptyDir(rng, dir) {
    mkdirSync(path.join(dir, 'empty'));
    return 'an empty directory';
  },
};

export interface WrittenCase {
  golden: string;
  mutations: string[];
}

/** Writes case `seed` into the (empty) directory `dir`. */
export function writeCase(seed: number, inputs: GoldenInput[], dir: string): WrittenCase {
  const rng = new Random(seed);
  // Mostly inputs that compile, so one mutation shows whether it alone gets through to the output.
  const valid = inputs.filter((i) => !i.name.includes('error'));
  const golden = rng.pick(rng.chance(0.8) && valid.length > 0 ? valid : inputs);
  const documents = structuredClone(golden.documents);
  const mutations: string[] = [];
  for (let n = rng.chance(0.6) ? 1 : 2 + rng.int(3); n > 0; n--) {
    const name = rng.pick(WEIGHTED);
    const done = MUTATIONS[name](rng, documents);
    if (done) mutations.push(done);
  }
  serialize(rng, documents).forEach((file, i) => {
    let text = file.text;
    if (rng.chance(0.08)) {
      const [damaged, what] = damageText(rng, text);
      text = damaged;
      mutations.push(`file ${i}: ${what}`);
    }
    const sub = rng.chance(0.2) ? path.join(dir, `sub${i}`) : dir;
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, `r${i}.${file.ext}`), text);
  });
  if (rng.chance(0.12)) {
    const name = rng.pick(Object.keys(TREE));
    mutations.push(TREE[name](rng, dir));
  }
  return { golden: golden.name, mutations };
}
