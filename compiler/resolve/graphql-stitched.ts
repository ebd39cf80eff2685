/**
 * Stitched GraphQLApis: each subschema names another GraphQLApi, executable or
 * itself stitched (sluice-graphql resolves them by name). Checked against the
 * subschemas' schemas: no cycles, type merging that can work (the type, a
 * Query field returning one such object, arguments filled from the selection
 * set), and no field that two subschemas type differently.
 */
import { ValidationLevel, stitchSchemas } from '@graphql-tools/stitch';
import {
  Kind,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  parse,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { StitchedSchemaSpec } from '../kinds/graphql-api.js';
import type { Resource } from '../validate/validate.js';
import { argumentPathProblem } from './graphql-schema.js';
import { refOf, showRef, type ResourceIndex } from './index.js';
import type { StitchedSchemaIR, TypeMergeIR } from '../ir/model.js';

/** Every GraphQLApi by `<namespace>.<name>`: an executable one's schema (if it built), or a stitched one's spec. */
export interface ApiSchemaEntry {
  api: Resource;
  schema?: GraphQLSchema;
  stitched?: StitchedSchemaSpec;
  /** A stitched API's merged schema, once computed: undefined inside if it cannot be built. */
  merged?: { schema?: GraphQLSchema; error?: string };
}
export type ApiSchemas = Map<string, ApiSchemaEntry>;

const keyOf = (r: { name: string; namespace: string }) => `${r.namespace}.${r.name}`;
/** `<namespace>/<name>` of a `<namespace>.<name>` key, as diagnostics name resources (namespaces hold no dots). */
const shown = (key: string) => key.replace('.', '/');

export function resolveStitched(
  api: Resource,
  spec: StitchedSchemaSpec,
  index: ResourceIndex,
  schemas: ApiSchemas,
  diagnostics: Diagnostic[],
): StitchedSchemaIR {
  const self = keyOf(api);
  const error = (path: FieldPath, message: string, hint?: string) =>
    diagnostics.push(fieldError('resolve', api.origin, path, message, hint));
  const base = ['spec', 'stitchedSchema', 'subschemas'];
  const ir: StitchedSchemaIR = { subschemas: [] };
  /** The subschemas whose schemas are known, for the checks across them. */
  const known: { index: number; api: string; schema: GraphQLSchema }[] = [];
  let complete = true;

  spec.subschemas.forEach((s, i) => {
    const path = [...base, i];
    const ref = refOf(s, api);
    const name = keyOf(ref);
    if (name === self) {
      error(path, 'a stitched GraphQLApi cannot include itself', 'list the GraphQLApis to merge');
      complete = false;
      return;
    }
    if (!index.get('GraphQLApi', ref)) {
      error(
        path,
        `GraphQLApi ${showRef(ref)} not found`,
        'each subschema names a GraphQLApi resource by name and namespace',
      );
      complete = false;
      return;
    }
    const cycle = pathBetween(name, self, schemas, new Set());
    if (cycle) {
      error(
        path,
        `GraphQLApi ${showRef(ref)} stitches this API back (${[self, ...cycle].map(shown).join(' -> ')}): stitched APIs cannot form a cycle`,
        'remove one of the subschemas on the cycle',
      );
      complete = false;
      return;
    }
    const typeMerge: Record<string, TypeMergeIR> = {};
    for (const [typeName, m] of Object.entries(s.typeMerge ?? {}))
      typeMerge[typeName] = { selectionSet: m.selectionSet, queryName: m.queryName, args: m.args ?? {} };
    ir.subschemas.push({ api: name, typeMerge });
    const schema = schemaOf(name, schemas);
    if (schema) known.push({ index: i, api: name, schema });
    else complete = false;
  });

  conflicts(known, (i, message) =>
    error([...base, i], message, 'make the subschemas agree on the type, or rename the field in one of them'),
  );
  for (const k of known) {
    const s = spec.subschemas[k.index]!;
    for (const [typeName, m] of Object.entries(s.typeMerge ?? {})) {
      checkTypeMerge(typeName, m, k, known, [...base, k.index, 'typeMerge', typeName], error);
    }
  }
  // What the checks above do not cover (stitching's own rules) shows when the schemas are stitched.
  if (complete) {
    const merged = schemaOf(self, schemas);
    const reason = schemas.get(self)?.merged?.error;
    if (!merged && reason)
      error(
        ['spec', 'stitchedSchema'],
        `the subschemas cannot be stitched: ${reason}`,
        'make the subschemas agree on their shared types',
      );
  }
  return ir;
}

/** The chain of stitched APIs from `from` that reaches `to`, if any. */
function pathBetween(from: string, to: string, schemas: ApiSchemas, seen: Set<string>): string[] | undefined {
  if (from === to) return [to];
  if (seen.has(from)) return undefined;
  seen.add(from);
  const entry = schemas.get(from);
  for (const s of entry?.stitched?.subschemas ?? []) {
    const rest = pathBetween(keyOf(refOf(s, entry!.api)), to, schemas, seen);
    if (rest) return [from, ...rest];
  }
  return undefined;
}

/** The schema an API serves: its own, or its subschemas stitched (undefined if any of them is broken or on a cycle). */
function schemaOf(name: string, schemas: ApiSchemas, visiting = new Set<string>()): GraphQLSchema | undefined {
  const entry = schemas.get(name);
  if (!entry) return undefined;
  if (!entry.stitched) return entry.schema;
  if (entry.merged) return entry.merged.schema;
  if (visiting.has(name)) return undefined;
  visiting.add(name);
  const parts = entry.stitched.subschemas.map((s) => schemaOf(keyOf(refOf(s, entry.api)), schemas, visiting));
  visiting.delete(name);
  if (parts.some((p) => !p)) return undefined;
  try {
    // Field consistency is checked (and reported with its place) by conflicts(); stitching would only print it.
    entry.merged = {
      schema: stitchSchemas({
        subschemas: parts as GraphQLSchema[],
        typeMergingOptions: { validationSettings: { validationLevel: ValidationLevel.Off } },
      }),
    };
  } catch (err) {
    entry.merged = { error: (err as Error).message };
  }
  return entry.merged.schema;
}

/** A type without its non-null wrappers: `[User!]!` -> `[User]`. Subschemas may differ in nullability, not in this. */
function shape(type: GraphQLType): string {
  const t = getNullableType(type);
  return isListType(t) ? `[${shape(t.ofType)}]` : (t as GraphQLNamedType).name;
}

function kindOf(t: GraphQLNamedType): string {
  return isObjectType(t)
    ? 'an object type'
    : isInterfaceType(t)
      ? 'an interface'
      : isInputObjectType(t)
        ? 'an input type'
        : `a ${t.astNode?.kind.replace(/TypeDefinition$/, '').toLowerCase() ?? 'scalar'}`;
}

/** Two subschemas that define one type, or one field of a type, differently: reported on the later subschema. */
function conflicts(
  known: { index: number; api: string; schema: GraphQLSchema }[],
  report: (index: number, message: string) => void,
): void {
  known.forEach((later, j) => {
    for (const type of Object.values(later.schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      for (const earlier of known.slice(0, j)) {
        const other = earlier.schema.getType(type.name);
        if (!other) continue;
        const where = `GraphQLApi ${shown(earlier.api)} (subschemas[${earlier.index}])`;
        if (kindOf(type) !== kindOf(other)) {
          report(later.index, `${type.name} is ${kindOf(type)} here but ${kindOf(other)} in ${where}`);
          break;
        }
        if (!(isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))) continue;
        const otherFields = (other as typeof type).getFields();
        const clash = Object.values(type.getFields()).find(
          (f) => otherFields[f.name] && shape(f.type) !== shape(otherFields[f.name]!.type),
        );
        if (clash) {
          report(
            later.index,
            `${type.name}.${clash.name} is ${String(clash.type)} here but ${String(otherFields[clash.name]!.type)} in ${where}`,
          );
          break;
        }
      }
    }
  });
}

/** `{ id }` as a selection set, or why it is not one. */
function parseSelectionSet(text: string): SelectionSetNode | string {
  let doc;
  try {
    doc = parse(text, { noLocation: true });
  } catch (err) {
    return `does not parse: ${(err as Error).message}`;
  }
  const op = doc.definitions[0];
  if (!text.trim().startsWith('{') || doc.definitions.length !== 1 || op?.kind !== Kind.OPERATION_DEFINITION)
    return 'is not a selection set such as "{ id }"';
  return op.selectionSet;
}

/** Whether a dotted path (`id`, `author.id`) is missing from `set`. */
function unselected(set: SelectionSetNode, path: string[]): boolean {
  let current: SelectionSetNode | undefined = set;
  for (const step of path) {
    const field: SelectionNode | undefined = current?.selections.find(
      (s) => s.kind === Kind.FIELD && (s.alias ?? s.name).value === step,
    );
    if (!field || field.kind !== Kind.FIELD) return true;
    current = field.selectionSet;
  }
  return false;
}

/** Fields of `set` that `typeName` has in none of the subschemas (nested selections followed where the type is known). */
function unknownSelections(set: SelectionSetNode, typeName: string, known: { schema: GraphQLSchema }[]): string[] {
  const out: string[] = [];
  for (const sel of set.selections) {
    if (sel.kind !== Kind.FIELD) continue;
    const field: { type: GraphQLType } | undefined = known
      .map((k) => k.schema.getType(typeName))
      .map((t) => (isObjectType(t) || isInterfaceType(t) ? t.getFields()[sel.name.value] : undefined))
      .find(Boolean);
    if (!field) {
      out.push(`${typeName}.${sel.name.value}`);
      continue;
    }
    if (sel.selectionSet) out.push(...unknownSelections(sel.selectionSet, getNamedType(field.type).name, known));
  }
  return out;
}

function checkTypeMerge(
  typeName: string,
  m: { selectionSet: string; queryName: string; args?: Record<string, string> },
  sub: { api: string; schema: GraphQLSchema },
  known: { schema: GraphQLSchema }[],
  path: FieldPath,
  error: (path: FieldPath, message: string, hint?: string) => void,
): void {
  const where = `GraphQLApi ${shown(sub.api)}`;
  const type = sub.schema.getType(typeName);
  if (!isObjectType(type)) {
    error(
      path,
      type ? `${typeName} is ${kindOf(type)} in ${where}, not an object type` : `${where} has no type ${typeName}`,
      'merge a type this subschema defines (type names are case-sensitive)',
    );
    return;
  }

  const selection = parseSelectionSet(m.selectionSet);
  if (typeof selection === 'string')
    error(
      [...path, 'selectionSet'],
      `"${m.selectionSet}" ${selection}`,
      'write the key fields in braces, e.g. "{ id }"',
    );
  else {
    const unknown = unknownSelections(selection, typeName, known);
    if (unknown.length > 0)
      error(
        [...path, 'selectionSet'],
        `selects ${unknown.join(', ')}, which no subschema defines`,
        `select fields ${typeName} has`,
      );
  }

  const query = sub.schema.getQueryType();
  const field = query?.getFields()[m.queryName];
  if (!field) {
    error(
      [...path, 'queryName'],
      `"${m.queryName}" is not a Query field of ${where}`,
      `Query fields: ${Object.keys(query?.getFields() ?? {}).join(', ') || 'none'}`,
    );
    return;
  }
  // One object per call: args build one call's arguments, and a list result has no batching configured here.
  const returns = getNullableType(field.type);
  if (isListType(returns) || getNamedType(returns).name !== typeName) {
    error(
      [...path, 'queryName'],
      `Query.${m.queryName} of ${where} returns ${String(field.type)}, not ${typeName}`,
      `use a Query field that returns one ${typeName} (${typeName} or ${typeName}!)`,
    );
    return;
  }

  const args = m.args ?? {};
  for (const [setter, from] of Object.entries(args)) {
    const problem = argumentPathProblem(field.args, setter.split('.'));
    if (problem)
      error(
        [...path, 'args', setter],
        `Query.${m.queryName} of ${where}: ${problem}`,
        'each key is an argument of queryName (a dotted key sets a field of an input argument)',
      );
    if (typeof selection !== 'string' && unselected(selection, from.split('.'))) {
      error(
        [...path, 'args', setter],
        `"${from}" is not in selectionSet ${m.selectionSet}`,
        `each value is a field of selectionSet; add ${from} to it`,
      );
    }
  }
  const given = new Set(Object.keys(args).map((k) => k.split('.')[0]));
  for (const a of field.args) {
    if (a.type.toString().endsWith('!') && a.defaultValue === undefined && !given.has(a.name)) {
      error(
        [...path, 'args'],
        `Query.${m.queryName} requires argument "${a.name}", which args does not fill`,
        `add ${a.name}: <field of selectionSet>`,
      );
    }
  }
}
