/**
 * The rules the API server applies to an `apiextensions.k8s.io/v1`
 * CustomResourceDefinition's schema, written from the Kubernetes
 * documentation ("Specifying a structural schema", and the v1 limits on
 * JSONSchemaProps): a CRD breaking one is refused at `kubectl apply`. Each
 * problem is a line naming the schema path; none means the API server would
 * take the schema.
 */
import { re2Problem } from '../../compiler/resolve/matchers.js';

type Json = Record<string, unknown>;

/** The fields of JSONSchemaProps (apiextensions/v1) that a generated schema may use. */
const KNOWN = new Set([
  'description',
  'type',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'nullable',
  'example',
  'externalDocs',
  'uniqueItems',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
/** In JSONSchemaProps but forbidden in v1 CRDs. */
const FORBIDDEN = new Set([
  '$ref',
  'definitions',
  'dependencies',
  'additionalItems',
  'patternProperties',
  'id',
  '$schema',
]);
const TYPES = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);
/** What may not be set inside allOf, anyOf, oneOf or not. */
const NOT_IN_JUNCTORS = [
  'description',
  'type',
  'default',
  'additionalProperties',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'] as const;

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The problems of one openAPIV3Schema (the root of a CRD version's schema). */
export function structuralProblems(root: Json): string[] {
  const problems: string[] = [];
  if (root.type !== 'object') problems.push('the root must be of type object');
  const metadata = (root.properties as Json | undefined)?.metadata;
  if (isJson(metadata)) {
    // Only metadata.name and metadata.generateName may be restricted.
    const { type, properties, ...rest } = metadata;
    if (type !== 'object' || Object.keys(rest).length > 0)
      problems.push('metadata may only be {type: object} with restrictions on name and generateName');
    if (isJson(properties) && Object.keys(properties).some((k) => k !== 'name' && k !== 'generateName'))
      problems.push('metadata: only name and generateName may be restricted');
  }
  node(root, '', problems);
  return problems;
}

function node(schema: Json, at: string, problems: string[]): void {
  const where = at || '<root>';
  for (const keyword of Object.keys(schema)) {
    if (FORBIDDEN.has(keyword)) problems.push(`${where}: ${keyword} is forbidden in apiextensions.k8s.io/v1`);
    else if (!KNOWN.has(keyword)) problems.push(`${where}: ${keyword} is not a field of JSONSchemaProps`);
  }
  const open = schema['x-kubernetes-preserve-unknown-fields'];
  const intOrString = schema['x-kubernetes-int-or-string'];
  if (open !== undefined && open !== true)
    problems.push(`${where}: x-kubernetes-preserve-unknown-fields must be true or absent`);
  if (intOrString !== undefined && intOrString !== true)
    problems.push(`${where}: x-kubernetes-int-or-string must be true or absent`);
  if (intOrString === true && schema.type !== undefined)
    problems.push(`${where}: x-kubernetes-int-or-string leaves type empty`);
  if (schema.type === undefined && open !== true && intOrString !== true)
    problems.push(`${where}: must have a type (structural schema)`);
  if (schema.type !== undefined && !TYPES.has(schema.type as string))
    problems.push(`${where}: type ${JSON.stringify(schema.type)} is not one of ${[...TYPES].join(', ')}`);
  if (schema.nullable !== undefined && schema.type === undefined && open !== true)
    problems.push(`${where}: nullable needs a type`);
  if (schema.uniqueItems === true)
    problems.push(`${where}: uniqueItems may not be true (use x-kubernetes-list-type: set)`);
  if (schema.properties !== undefined && schema.additionalProperties !== undefined)
    problems.push(`${where}: properties and additionalProperties are mutually exclusive`);
  if (schema.additionalProperties === false) problems.push(`${where}: additionalProperties may not be false`);
  if ((schema.properties !== undefined || schema.additionalProperties !== undefined) && schema.type !== 'object')
    problems.push(`${where}: properties need type object`);
  if (schema.items !== undefined && (schema.type !== 'array' || !isJson(schema.items)))
    problems.push(`${where}: items must be one schema, with type array`);
  if (schema.type === 'array' && schema.items === undefined)
    problems.push(`${where}: an array must say what its items are`);
  if (typeof schema.pattern === 'string') patternProblem(schema.pattern, where, problems);
  if (Array.isArray(schema.enum)) enumProblems(schema, where, problems);
  listTypeProblems(schema, where, problems);

  if (isJson(schema.properties))
    for (const [name, field] of Object.entries(schema.properties)) node(field as Json, `${at}.${name}`, problems);
  if (isJson(schema.additionalProperties)) node(schema.additionalProperties, `${at}.*`, problems);
  if (isJson(schema.items)) node(schema.items, `${at}[]`, problems);
  for (const junctor of JUNCTORS)
    if (schema[junctor] !== undefined) junctorProblems(schema, schema[junctor], `${where}(${junctor})`, problems);
}

/**
 * Inside a junctor: value validations only, and every field or item it
 * names must also be specified outside, in the node that holds it.
 */
function junctorProblems(outside: Json, value: unknown, at: string, problems: string[]): void {
  const branches = Array.isArray(value) ? value : [value];
  branches.forEach((branch, i) => {
    if (!isJson(branch)) return void problems.push(`${at}[${i}]: not a schema`);
    const where = `${at}[${i}]`;
    insideJunctor(branch, where, problems);
    if (isJson(branch.properties)) {
      const specified = isJson(outside.properties) ? outside.properties : {};
      for (const name of Object.keys(branch.properties))
        if (!(name in specified)) problems.push(`${where}: property ${name} is not specified outside the junctor`);
    }
    if (branch.items !== undefined && outside.items === undefined)
      problems.push(`${where}: items are not specified outside the junctor`);
    if (typeof branch.pattern === 'string') patternProblem(branch.pattern, where, problems);
    for (const junctor of JUNCTORS)
      if (branch[junctor] !== undefined) junctorProblems(outside, branch[junctor], `${where}(${junctor})`, problems);
  });
}

/** A schema inside a junctor, at any depth: no types, descriptions, defaults or additionalProperties. */
function insideJunctor(schema: Json, at: string, problems: string[]): void {
  for (const keyword of NOT_IN_JUNCTORS)
    if (schema[keyword] !== undefined) problems.push(`${at}: ${keyword} may not be set inside a junctor`);
  for (const keyword of Object.keys(schema))
    if (!KNOWN.has(keyword)) problems.push(`${at}: ${keyword} is not a field of JSONSchemaProps`);
  if (isJson(schema.properties))
    for (const [name, field] of Object.entries(schema.properties))
      if (isJson(field)) insideJunctor(field, `${at}.${name}`, problems);
  if (isJson(schema.items)) insideJunctor(schema.items, `${at}[]`, problems);
}

/** The API server compiles `pattern` with Go's regexp, which is RE2. */
function patternProblem(pattern: string, at: string, problems: string[]): void {
  const problem = re2Problem(pattern);
  if (problem) problems.push(`${at}: pattern ${JSON.stringify(pattern)} is not RE2 syntax (${problem})`);
}

function enumProblems(schema: Json, at: string, problems: string[]): void {
  const fits: Record<string, (v: unknown) => boolean> = {
    string: (v) => typeof v === 'string',
    integer: (v) => Number.isInteger(v),
    number: (v) => typeof v === 'number',
    boolean: (v) => typeof v === 'boolean',
  };
  const fit = fits[schema.type as string];
  if (fit)
    for (const v of schema.enum as unknown[])
      if (!fit(v) && !(v === null && schema.nullable === true))
        problems.push(`${at}: enum value ${JSON.stringify(v)} is not of type ${schema.type}`);
}

function listTypeProblems(schema: Json, at: string, problems: string[]): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === undefined) return;
  if (!['atomic', 'set', 'map'].includes(listType as string))
    problems.push(`${at}: x-kubernetes-list-type must be atomic, set or map`);
  if (schema.type !== 'array') problems.push(`${at}: x-kubernetes-list-type needs type array`);
  const items = isJson(schema.items) ? schema.items : {};
  if (listType === 'set' && (items.type === 'object' || items.type === 'array'))
    problems.push(`${at}: a set's items must be scalars`);
}

/** The problems of a whole CRD beyond its schemas: names, versions, printer columns, the status subresource. */
export function crdProblems(crd: Json): string[] {
  const problems: string[] = [];
  const spec = crd.spec as Json;
  const names = spec.names as Json;
  const name = (crd.metadata as Json).name;
  if (name !== `${names.plural}.${spec.group}`)
    problems.push(`metadata.name ${name} must be <plural>.<group> (${names.plural}.${spec.group})`);
  for (const key of ['plural', 'singular'])
    if (!/^[a-z][-a-z0-9]*$/.test(names[key] as string)) problems.push(`names.${key} must be a lowercase DNS label`);
  if (names.listKind !== `${names.kind}List`) problems.push('names.listKind must be <kind>List');
  const versions = spec.versions as Json[];
  if (versions.filter((v) => v.storage === true).length !== 1)
    problems.push('exactly one version must be the storage version');
  for (const version of versions) {
    const schema = (version.schema as Json | undefined)?.openAPIV3Schema as Json | undefined;
    if (!schema) {
      problems.push(`${version.name}: a v1 CRD version needs a schema`);
      continue;
    }
    problems.push(...structuralProblems(schema).map((p) => `${version.name}: ${p}`));
    const subresources = version.subresources as Json | undefined;
    if (subresources?.status !== undefined && !isJson((schema.properties as Json).status))
      problems.push(`${version.name}: the status subresource needs a status property`);
    for (const column of (version.additionalPrinterColumns as Json[] | undefined) ?? []) {
      if (!['integer', 'number', 'string', 'boolean', 'date'].includes(column.type as string))
        problems.push(`${version.name}: printer column ${column.name}: type ${column.type} is not allowed`);
      if (typeof column.jsonPath !== 'string' || !column.jsonPath.startsWith('.'))
        problems.push(
          `${version.name}: printer column ${column.name}: jsonPath must be a simple JSON path starting with .`,
        );
    }
  }
  return problems;
}

/**
 * A CRD schema as plain JSON Schema for ajv, checking what the API server
 * checks under strict field validation (kubectl's default): a field the
 * schema does not name is an error ("unknown field") unless the node keeps
 * unknown fields; int-or-string, nullable and set lists as their meaning.
 */
export function asJsonSchema(schema: Json): Json {
  const out: Json = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (
      keyword.startsWith('x-kubernetes-') ||
      keyword === 'description' ||
      keyword === 'nullable' ||
      keyword === 'format'
    )
      continue;
    if (keyword === 'properties' && isJson(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asJsonSchema(v as Json)]));
    else if ((keyword === 'items' || keyword === 'additionalProperties' || keyword === 'not') && isJson(value))
      out[keyword] = asJsonSchema(value);
    else if ((keyword === 'oneOf' || keyword === 'anyOf' || keyword === 'allOf') && Array.isArray(value))
      out[keyword] = value.map((v: Json) => asJsonSchema(v));
    else out[keyword] = value;
  }
  if (schema['x-kubernetes-int-or-string'] === true) out.type = ['integer', 'string'];
  if (schema.nullable === true && typeof schema.type === 'string') out.type = [schema.type, 'null'];
  if (schema['x-kubernetes-list-type'] === 'set') out.uniqueItems = true;
  if (
    schema.type === 'object' &&
    schema['x-kubernetes-preserve-unknown-fields'] !== true &&
    schema.additionalProperties === undefined
  )
    out.additionalProperties = false;
  return out;
}
