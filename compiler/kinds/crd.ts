/**
 * Kubernetes CustomResourceDefinitions of the kinds Sluice reads, made from
 * the definitions validate uses: the spec of each kind becomes a structural
 * openAPIV3Schema (every node typed, no `additionalProperties` beside
 * `properties`, logical junctors only as value validations), so the API
 * server checks, prunes and explains the same fields. What the API server
 * cannot express stays `sluice validate`'s and the webhook's: the string
 * formats, references, cross-field rules. A field Sluice refuses is kept as
 * an open node, so `kubectl apply` reaches the webhook, which says why.
 */
import { GLOO, type GlooSupport } from './gloo.js';
import { PROTO3 } from './schema.js';
import { REQUEST_TEST } from './request-test.js';
import type { KindDefinition } from './resource.js';

type Json = Record<string, unknown>;

/** Sluice's API groups, or Gloo's `*.solo.io` groups for clusters without Gloo's CRDs. */
export type CrdGroups = 'sluice' | 'gloo';

interface ResourceNames {
  plural: string;
  /** Where Gloo's differs from the kind's name in lower case. */
  singular?: string;
  /** Short names under Sluice's groups: distinct from Gloo's, so both can be installed side by side. */
  shortNames: string[];
  /** Gloo's own short names and categories, as Gloo's CRDs declare them. */
  glooShortNames: string[];
  glooCategories: string[];
}

/** The REST names of each kind that has a CRD. */
const NAMES: Readonly<Record<string, ResourceNames>> = {
  VirtualService: {
    plural: 'virtualservices',
    shortNames: ['svs'],
    glooShortNames: ['vs', 'gvs'],
    glooCategories: ['gloo-gateway'],
  },
  RouteTable: {
    plural: 'routetables',
    shortNames: ['srt'],
    glooShortNames: ['rt', 'grt'],
    glooCategories: ['gloo-gateway'],
  },
  Gateway: { plural: 'gateways', shortNames: ['sgw'], glooShortNames: ['gw', 'ggw'], glooCategories: ['gloo-gateway'] },
  AuthConfig: {
    plural: 'authconfigs',
    shortNames: ['sac'],
    glooShortNames: ['ac', 'gac'],
    glooCategories: ['solo-io', 'gloo-gateway'],
  },
  Upstream: {
    plural: 'upstreams',
    shortNames: ['sus'],
    glooShortNames: ['us', 'gus'],
    glooCategories: ['gloo-gateway'],
  },
  UpstreamGroup: {
    plural: 'upstreamgroups',
    shortNames: ['sug'],
    glooShortNames: ['ug', 'gug'],
    glooCategories: ['gloo-gateway'],
  },
  GraphQLApi: {
    plural: 'graphqlapis',
    shortNames: ['sgql'],
    glooShortNames: ['gql'],
    glooCategories: ['solo-io', 'gloo-gateway'],
  },
  VirtualHostOption: {
    plural: 'virtualhostoptions',
    shortNames: ['svho'],
    glooShortNames: ['vho', 'vhopts', 'gvho'],
    glooCategories: ['gloo-gateway'],
  },
  RouteOption: {
    plural: 'routeoptions',
    shortNames: ['srto'],
    glooShortNames: ['rto', 'rtopts', 'grto'],
    glooCategories: ['gloo-gateway'],
  },
  MatchableHttpGateway: {
    // Gloo's plurals, so a cluster with Gloo's CRDs is read as it is.
    plural: 'httpgateways',
    singular: 'httpgateway',
    shortNames: ['shgw'],
    glooShortNames: ['hgw', 'ghgw'],
    glooCategories: ['gloo-gateway'],
  },
  MatchableTcpGateway: {
    plural: 'tcpgateways',
    singular: 'tcpgateway',
    shortNames: ['stgw'],
    glooShortNames: ['tgw', 'gtgw'],
    glooCategories: ['gloo-gateway'],
  },
  RateLimitConfig: {
    plural: 'ratelimitconfigs',
    shortNames: ['srlc'],
    glooShortNames: ['rlc', 'grlc'],
    glooCategories: ['solo-io', 'gloo-gateway'],
  },
  Settings: {
    plural: 'settings',
    shortNames: ['sst'],
    glooShortNames: ['st'],
    glooCategories: ['solo-io', 'gloo-gateway'],
  },
};

/** The plural (REST resource name) of a kind that has a CRD. */
export function pluralOf(kind: string): string | undefined {
  return Object.hasOwn(NAMES, kind) ? NAMES[kind].plural : undefined;
}

/** The category `kubectl get sluice` lists. */
export const SLUICE_CATEGORY = 'sluice';

/**
 * The kinds that get a CRD under `groups`: Sluice's own (not the cluster's
 * built-in kinds such as Service), except RequestTest, which `sluice test`
 * reads from files; under Gloo's groups, those Gloo has.
 */
export function crdKinds(kinds: readonly KindDefinition[], groups: CrdGroups): KindDefinition[] {
  const own = kinds.filter(
    (k) => /^[a-z.]+\.gateway\.example\//.test(k.apiVersion) && k.apiVersion !== REQUEST_TEST.apiVersion,
  );
  return groups === 'gloo' ? own.filter((k) => k.glooApiVersion) : own;
}

/** Gloo's status shape (solo-kit's NamespacedStatuses), keyed by the namespace of the install that reports. */
const STATUS = {
  type: 'object',
  description: "Gloo's status shape: the verdict of each install, keyed by its namespace (serve's --namespace).",
  properties: {
    statuses: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: {
          state: { type: 'string', enum: ['Pending', 'Accepted', 'Rejected', 'Warning'] },
          reason: { type: 'string', description: 'Why the resource was rejected, or its warnings.' },
          reportedBy: { type: 'string' },
          observedGeneration: {
            type: 'integer',
            format: 'int64',
            description: 'The metadata.generation the state is about.',
          },
          subresourceStatuses: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          details: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
        // Other reporters (Gloo) may write fields of their own; the API server must not prune them.
        'x-kubernetes-preserve-unknown-fields': true,
      },
    },
  },
};

const PRINTER_COLUMNS = [
  // With several installs reporting, the column shows one of them; `kubectl get -o yaml` shows all.
  {
    name: 'State',
    type: 'string',
    jsonPath: '.status.statuses.*.state',
    description: "The install's verdict: Accepted, Rejected or Warning",
  },
  { name: 'Reason', type: 'string', jsonPath: '.status.statuses.*.reason', priority: 1 },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** The CRD of one kind under Sluice's or Gloo's API group. */
export function customResourceDefinition(definition: KindDefinition, groups: CrdGroups): Json {
  const names = NAMES[definition.kind];
  if (!names || !definition.spec)
    throw new Error(`${definition.kind}: no CRD names (add them to NAMES in compiler/kinds/crd.ts)`);
  const apiVersion = groups === 'gloo' ? definition.glooApiVersion : definition.apiVersion;
  if (!apiVersion) throw new Error(`${definition.kind} has no Gloo API group`);
  const [group, version] = apiVersion.split('/') as [string, string];
  const gloo = groups === 'gloo';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}`, labels: { 'app.kubernetes.io/part-of': 'sluice' } },
    spec: {
      group,
      names: {
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: names.plural,
        singular: names.singular ?? definition.kind.toLowerCase(),
        shortNames: gloo ? names.glooShortNames : names.shortNames,
        categories: gloo ? [...names.glooCategories, SLUICE_CATEGORY] : [SLUICE_CATEGORY],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: PRINTER_COLUMNS,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: `${definition.kind}: read by Sluice (sluice serve --kube). The spec is checked here field by field; sluice validate and the admission webhook check the rest.`,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: structural(definition.spec, 'spec'),
                status: STATUS,
              },
            },
          },
        },
      ],
    },
  };
}

/** Keywords kept as they are: value validations the API server applies as ajv does. */
const VALUE_VALIDATIONS = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'required',
  'enum',
]);
const JUNCTORS = ['oneOf', 'anyOf', 'allOf', 'not'] as const;

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The type all values share (an enum's or a constant's), for nodes JSON Schema leaves untyped. */
function typeOfValues(values: unknown[], at: string): string {
  const types = new Set(
    values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)),
  );
  if (types.size !== 1)
    throw new Error(`${at}: values of several types (${[...types].join(', ')}) have no structural form`);
  return [...types][0]!;
}

/** One schema node of a definition as a structural node; `at` names it in errors. */
export function structural(node: Json, at: string): Json {
  const gloo = node[GLOO] as GlooSupport | undefined;
  if (gloo?.support === 'refused') {
    return {
      description: `Refused by Sluice: ${gloo.note}${gloo.instead ? `; ${gloo.instead}` : ''}. Kept open here so the admission webhook can say so.`,
      'x-kubernetes-preserve-unknown-fields': true,
    };
  }
  const out: Json = {};
  if (gloo?.note) out.description = gloo.support === 'different' ? `Differs from Gloo: ${gloo.note}` : gloo.note;
  const junctorTypes: string[] = [];
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === GLOO || keyword === PROTO3 || keyword === 'format' || keyword === 'propertyNames') continue; // formats, key forms and proto3 JSON forms stay validate's
    if (keyword === 'type') Object.assign(out, structuralType(value, at));
    else if (keyword === 'const') out.enum = [value];
    else if (keyword === 'uniqueItems') {
      if (value === true) out['x-kubernetes-list-type'] = 'set';
    } else if (keyword === 'additionalProperties') {
      if (isJson(value)) out.additionalProperties = structural(value, `${at}.*`);
    } else if (keyword === 'properties' && isJson(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, field]) => [name, structural(field as Json, `${at}.${name}`)]),
      );
    } else if (keyword === 'items' && isJson(value)) out.items = structural(value, `${at}[]`);
    else if ((JUNCTORS as readonly string[]).includes(keyword))
      out[keyword] = junctor(value, `${at}(${keyword})`, junctorTypes);
    else if (VALUE_VALIDATIONS.has(keyword)) out[keyword] = structuredClone(value);
    else throw new Error(`${at}: the keyword ${keyword} has no structural form`);
  }
  // A proto enum: Gloo's CRDs take its name or its number, as proto3 JSON does.
  if (node[PROTO3] === 'enum') {
    const names = node.enum as string[];
    Object.assign(out, { 'x-kubernetes-int-or-string': true, enum: [...names, ...names.map((_, i) => i)] });
  }
  // An object JSON Schema leaves open (no additionalProperties): the API server must not prune what it holds.
  if (out.type === 'object' && node.additionalProperties === undefined)
    out['x-kubernetes-preserve-unknown-fields'] = true;
  if (out.properties && out.additionalProperties)
    throw new Error(`${at}: properties and additionalProperties together have no structural form`);
  if (out.type === undefined && out['x-kubernetes-int-or-string'] === undefined) {
    const inferred = Array.isArray(out.enum) ? [typeOfValues(out.enum, at)] : [...new Set(junctorTypes)];
    if (inferred.length > 1)
      throw new Error(`${at}: branches of several types (${inferred.join(', ')}) have no structural form`);
    if (inferred.length === 1) out.type = inferred[0];
    // Any JSON value (a Gloo google.protobuf.Value): kept as written.
    else if (Object.keys(out).every((k) => k === 'description')) out['x-kubernetes-preserve-unknown-fields'] = true;
    else throw new Error(`${at}: a node without a type`);
  }
  // Read as a person reads a schema: what the field is, its type, then the rest.
  const { description, type, ...rest } = out;
  return { ...(description === undefined ? {} : { description }), ...(type === undefined ? {} : { type }), ...rest };
}

/** `type` as Kubernetes writes it: one name, with `nullable` or `x-kubernetes-int-or-string` for JSON Schema's unions. */
function structuralType(type: unknown, at: string): Json {
  if (typeof type === 'string') return { type };
  const union = Array.isArray(type) ? [...type].sort().join('|') : '';
  if (union === 'integer|string') return { 'x-kubernetes-int-or-string': true };
  const nullable = /^(\w+)\|null$/.exec(union) ?? /^null\|(\w+)$/.exec(union);
  if (nullable) return { type: nullable[1], nullable: true };
  throw new Error(`${at}: the type ${JSON.stringify(type)} has no structural form`);
}

/**
 * The branches of a junctor as value validations: types, formats and
 * descriptions may not appear inside one, so a branch's type is handed to
 * the node that holds it (`types`) and its other keywords must be validations.
 */
function junctor(value: unknown, at: string, types: string[]): unknown {
  if (isJson(value)) return branch(value, at, types);
  if (!Array.isArray(value)) throw new Error(`${at}: not a schema list`);
  return value.map((b: Json, i) => branch(b, `${at}[${i}]`, types));
}

function branch(node: Json, at: string, types: string[]): Json {
  const out: Json = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === 'type' && typeof value === 'string') types.push(value);
    else if (keyword === 'format') continue;
    else if (keyword === 'const') {
      types.push(typeOfValues([value], at));
      out.enum = [value];
    } else if (keyword === 'enum' && Array.isArray(value)) {
      types.push(typeOfValues(value, at));
      out.enum = structuredClone(value);
    } else if ((JUNCTORS as readonly string[]).includes(keyword))
      out[keyword] = junctor(value, `${at}(${keyword})`, []);
    else if (VALUE_VALIDATIONS.has(keyword)) out[keyword] = structuredClone(value);
    else throw new Error(`${at}: the keyword ${keyword} may not appear inside oneOf, anyOf, allOf or not`);
  }
  return out;
}
