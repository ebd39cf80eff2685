/**
 * The CRDs under deploy/kubernetes/crds/: what `sluice crds` generates from
 * compiler/kinds/, structural as the API server requires, and in agreement
 * with `sluice validate` on every example and golden input: a resource
 * Sluice accepts is accepted by its CRD, and a misspelt or mistyped field
 * Sluice refuses is refused by the CRD too.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import { loadAll } from 'js-yaml';
import { crdsYaml } from '../../compiler/cli/crds.js';
import { accepted } from '../../compiler/kinds/accepted.js';
import { crdKinds, customResourceDefinition, structural } from '../../compiler/kinds/crd.js';
import { KINDS } from '../../compiler/kinds/index.js';
import { VIRTUAL_SERVICE } from '../../compiler/kinds/virtual-service.js';
import { loadPaths, type LoadedDocument } from '../../compiler/load/load.js';
import { normaliseDocument } from '../../compiler/validate/proto3-json.js';
import { validateDocuments } from '../../compiler/validate/validate.js';
import { asJsonSchema, crdProblems, structuralProblems } from './structural.js';

const run = promisify(execFile);
type Json = Record<string, unknown>;

const FILES = { sluice: 'deploy/kubernetes/crds/sluice.yaml', gloo: 'deploy/kubernetes/crds/gloo.yaml' } as const;
const committed = (groups: keyof typeof FILES) => loadAll(readFileSync(FILES[groups], 'utf8')) as Json[];

describe('the committed CRDs', () => {
  test.each(Object.entries(FILES))(
    '%s groups: %s is what the definitions generate (npm run crds rewrites it)',
    (groups, file) => {
      expect(readFileSync(file, 'utf8')).toBe(crdsYaml(groups as keyof typeof FILES));
    },
  );

  test('`sluice crds --groups gloo` prints the committed file', async () => {
    // The Gloo CRDs are over a MiB (execFile's default buffer).
    const { stdout } = await run(process.execPath, ['bin/sluice.js', 'crds', '--groups', 'gloo'], {
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toBe(readFileSync(FILES.gloo, 'utf8'));
  });

  test('every kind Sluice reads from an API group has a CRD under both group sets; RequestTest and core v1 kinds have none', () => {
    const names = (groups: keyof typeof FILES) =>
      committed(groups).map((crd) => `${((crd.spec as Json).names as Json).kind} ${(crd.spec as Json).group}`);
    expect(names('sluice')).toEqual(crdKinds(KINDS, 'sluice').map((k) => `${k.kind} ${k.apiVersion.split('/')[0]}`));
    expect(names('gloo')).toEqual(crdKinds(KINDS, 'gloo').map((k) => `${k.kind} ${k.glooApiVersion!.split('/')[0]}`));
    expect(names('sluice')).toEqual(
      [
        'VirtualService',
        'RouteTable',
        'Gateway',
        'AuthConfig',
        'Upstream',
        'UpstreamGroup',
        'GraphQLApi',
        'RateLimitConfig',
        'Settings',
        'VirtualHostOption',
        'RouteOption',
        'MatchableHttpGateway',
        'MatchableTcpGateway',
      ].map((kind) => expect.stringMatching(new RegExp(`^${kind} [a-z]+\\.gateway\\.example$`))),
    );
    expect(
      names('sluice').some((n) => n.startsWith('RequestTest') || n.startsWith('Service') || n.startsWith('Secret')),
    ).toBe(false);
  });

  test.each(Object.keys(FILES))(
    '%s groups: every CRD is structural and valid for apiextensions.k8s.io/v1',
    (groups) => {
      const crds = committed(groups as keyof typeof FILES);
      expect(crds.length).toBeGreaterThanOrEqual(7);
      expect(crds.flatMap((crd) => crdProblems(crd).map((p) => `${(crd.metadata as Json).name}: ${p}`))).toEqual([]);
    },
  );

  test.each(Object.keys(FILES))(
    '%s groups: each CRD fits the 256 KiB of annotations a client-side `kubectl apply` writes it into',
    (groups) => {
      // kubectl keeps the applied object, as compact JSON, in its last-applied-configuration annotation; the API server
      // refuses annotations over 262,144 bytes in all, so a larger CRD would need `kubectl apply --server-side`.
      const tooLarge = committed(groups as keyof typeof FILES)
        .map((crd) => ({ name: (crd.metadata as Json).name, bytes: Buffer.byteLength(JSON.stringify(crd)) }))
        .filter((c) => c.bytes > 262_144 - 1024);
      expect(tooLarge).toEqual([]);
    },
  );

  test("Gloo's groups keep Gloo's names and short names; Sluice's short names do not clash with them", () => {
    const byName = (groups: keyof typeof FILES) =>
      new Map(committed(groups).map((crd) => [(crd.metadata as Json).name, (crd.spec as Json).names as Json]));
    expect(byName('gloo').get('virtualservices.gateway.solo.io')).toMatchObject({
      shortNames: ['vs', 'gvs'],
      categories: ['gloo-gateway', 'sluice'],
    });
    expect(byName('gloo').get('authconfigs.enterprise.gloo.solo.io')).toMatchObject({ shortNames: ['ac', 'gac'] });
    const gloo = new Set([...byName('gloo').values()].flatMap((n) => n.shortNames as string[]));
    expect([...byName('sluice').values()].flatMap((n) => n.shortNames as string[]).filter((s) => gloo.has(s))).toEqual(
      [],
    );
  });
});

describe('the structural checker', () => {
  test('finds what the API server refuses in a schema written for ajv', () => {
    const problems = structuralProblems({ type: 'object', properties: { spec: accepted(VIRTUAL_SERVICE.spec!) } });
    const kinds = (text: string) => problems.some((p) => p.includes(text));
    expect(kinds('additionalProperties may not be false')).toBe(true);
    expect(kinds('propertyNames is not a field of JSONSchemaProps')).toBe(true);
    expect(kinds('must have a type')).toBe(true); // enums without a type
    expect(kinds('uniqueItems may not be true')).toBe(true);
    expect(kinds('may not be set inside a junctor')).toBe(true); // not: {type: object, anyOf}
  });

  test('finds a pattern RE2 does not compile, metadata restrictions, a bad set and a bad printer column', () => {
    expect(structuralProblems({ type: 'object', properties: { a: { type: 'string', pattern: '(?=x)' } } })).toEqual([
      expect.stringContaining('not RE2 syntax'),
    ]);
    expect(
      structuralProblems({
        type: 'object',
        properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
      }),
    ).toEqual([expect.stringContaining('only name and generateName')]);
    expect(
      structuralProblems({
        type: 'object',
        properties: { a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } } },
      }),
    ).toEqual([expect.stringContaining('scalars')]);
    expect(
      structuralProblems({
        type: 'object',
        properties: { a: { type: 'object', oneOf: [{ properties: { b: { type: 'string' } } }] } },
      }),
    ).toEqual([
      expect.stringContaining('.a(oneOf)[0].b: type may not be set inside a junctor'),
      expect.stringContaining('.a(oneOf)[0]: property b is not specified outside'),
    ]);
    const crd = customResourceDefinition(VIRTUAL_SERVICE, 'sluice') as any;
    crd.spec.versions[0].additionalPrinterColumns.push({ name: 'X', type: 'object', jsonPath: 'status' });
    expect(crdProblems(crd)).toEqual([
      expect.stringContaining('type object is not allowed'),
      expect.stringContaining('jsonPath must be'),
    ]);
  });

  test('the generator refuses what it cannot express instead of writing a schema the API server would refuse', () => {
    expect(() => structural({ type: ['string', 'boolean'] }, 'spec.x')).toThrow(
      'spec.x: the type ["string","boolean"] has no structural form',
    );
    expect(() => structural({ oneOf: [{ type: 'integer' }, { const: 'upstream' }] }, 'spec.status')).toThrow(
      'branches of several types (integer, string)',
    );
    expect(() =>
      structural(
        { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
        'spec',
      ),
    ).toThrow('properties and additionalProperties together');
    expect(() => structural({ type: 'object', patternProperties: {} }, 'spec')).toThrow(
      'the keyword patternProperties has no structural form',
    );
  });
});

/** Every document of examples/ and of the golden inputs, with Sluice's verdict on it alone. */
async function inputs(): Promise<LoadedDocument[]> {
  const { documents } = await loadPaths(['examples', 'golden']);
  return documents.filter((d) => !d.file.includes('/expected/'));
}

describe('the CRD schemas agree with sluice validate', () => {
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validators = new Map<string, ValidateFunction>();
  for (const groups of Object.keys(FILES) as (keyof typeof FILES)[]) {
    for (const crd of committed(groups)) {
      const spec = crd.spec as Json;
      const version = (spec.versions as Json[])[0]!;
      const schema = asJsonSchema((version.schema as Json).openAPIV3Schema as Json);
      // The API server owns metadata; apiVersion and kind are the request's.
      (schema.properties as Json).metadata = { type: 'object' };
      validators.set(`${spec.group}/${version.name} ${(spec.names as Json).kind}`, ajv.compile(schema));
    }
  }
  const validatorOf = (doc: Json) => validators.get(`${doc.apiVersion} ${doc.kind}`);
  const acceptedBySluice = (doc: LoadedDocument) => validateDocuments([doc]).resources.length === 1;
  const acceptedByCrd = (value: Json) => validatorOf(value)!(value);
  const canonical = (doc: LoadedDocument) => {
    const definition = KINDS.find(
      (k) =>
        k.kind === doc.value.kind &&
        (k.apiVersion === doc.value.apiVersion || k.glooApiVersion === doc.value.apiVersion),
    );
    return !definition?.glooApiVersion || !definition.spec || normaliseDocument(doc, definition.spec).doc === doc;
  };

  let documents: LoadedDocument[] = [];
  beforeAll(async () => {
    // proto3 JSON's other spellings (snake_case names, quoted integers, Go durations) are read from files only: the CRDs take the canonical one.
    documents = (await inputs()).filter((d) => validatorOf(d.value) && acceptedBySluice(d) && canonical(d));
  });

  test('every example and golden resource Sluice accepts is accepted by its CRD, under both group sets', () => {
    expect(documents.length).toBeGreaterThan(100);
    const groups = new Set(documents.map((d) => String(d.value.apiVersion).split('/')[0]));
    expect([...groups]).toEqual(
      expect.arrayContaining(['gateway.gateway.example', 'gateway.solo.io', 'gloo.solo.io', 'enterprise.gloo.solo.io']),
    );
    const refused = documents.flatMap((d) =>
      acceptedByCrd(d.value)
        ? []
        : [
            `${d.file}: ${d.value.kind} ${(d.value.metadata as Json).name}: ${JSON.stringify(validatorOf(d.value)!.errors?.slice(0, 3))}`,
          ],
    );
    expect(refused).toEqual([]);
  });

  /** Every object and scalar under spec, with the path to it. */
  function* nodes(
    value: unknown,
    path: (string | number)[] = [],
  ): Generator<{ path: (string | number)[]; value: unknown }> {
    yield { path, value };
    if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* nodes(v, [...path, i]);
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) yield* nodes(v, [...path, k]);
  }
  const mutated = (
    doc: LoadedDocument,
    path: (string | number)[],
    change: (parent: any, key: string | number) => void,
  ): LoadedDocument => {
    const value = structuredClone(doc.value);
    let parent: any = value;
    for (const key of path.slice(0, -1)) parent = parent[key];
    change(parent, path[path.length - 1]!);
    return { ...doc, value };
  };

  test('a misspelt field Sluice refuses anywhere under spec is refused by the CRD (strict field validation)', () => {
    const disagreements: string[] = [];
    let checked = 0;
    for (const doc of documents) {
      for (const node of nodes(doc.value.spec, ['spec'])) {
        if (typeof node.value !== 'object' || node.value === null || Array.isArray(node.value)) continue;
        const typo = mutated(doc, [...node.path, 'misspeltField'], (parent, key) => (parent[key] = 'x'));
        if (acceptedBySluice(typo)) continue; // an open node (a Gloo Value, claims)
        checked++;
        if (acceptedByCrd(typo.value))
          disagreements.push(`${doc.file}: ${doc.value.kind} ${node.path.join('.')}.misspeltField`);
      }
    }
    expect(checked).toBeGreaterThan(1000);
    expect(disagreements).toEqual([]);
  });

  test('a scalar of the wrong type that Sluice refuses is refused by the CRD', () => {
    const disagreements: string[] = [];
    let checked = 0;
    const other = (v: unknown) => (typeof v === 'string' ? 12345 : typeof v === 'number' ? 'twelve' : 'yes');
    for (const doc of documents) {
      for (const node of nodes(doc.value.spec, ['spec'])) {
        if (typeof node.value === 'object' && node.value !== null) continue;
        const wrong = mutated(doc, node.path, (parent, key) => (parent[key] = other(node.value)));
        if (acceptedBySluice(wrong)) continue;
        checked++;
        if (acceptedByCrd(wrong.value))
          disagreements.push(
            `${doc.file}: ${doc.value.kind} ${node.path.join('.')} = ${JSON.stringify(other(node.value))}`,
          );
      }
    }
    expect(checked).toBeGreaterThan(1000);
    expect(disagreements).toEqual([]);
  });
});
