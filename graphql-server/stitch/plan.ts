/**
 * The query planner: for one operation of the stitched schema, computed once
 * and cached, which request goes to which subschema and where the answers
 * of merged types are joined in. Each top-level field goes to the subschema
 * that defines it (the last one, as in @graphql-tools/stitch); inside a
 * selection, fields the answering subschema lacks go to a subschema with a
 * typeMerge for the type, and the answering subschema is asked for that
 * merge's key fields under reserved aliases. The planner takes object types
 * only; anything else (abstract types, introspection, @skip/@include on
 * variables, other directives) is Unplannable and goes to @graphql-tools/stitch.
 */
import {
  Kind,
  OperationTypeNode,
  getNamedType,
  isAbstractType,
  isListType,
  isNonNullType,
  isObjectType,
  parseType,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { printOnce, type Subschema, type TypeMerge } from './subschema.js';

/** Prefix of the aliases under which key fields are asked for; a client response key with it is Unplannable. */
const KEY_ALIAS = '_sk_';

/** What the client gets at one position, read from the stitched schema once per plan (no type checks per request). */
export type Output =
  | { kind: 'leaf' }
  | { kind: 'object'; fields: ShapeField[] }
  | { kind: 'list'; of: Output }
  | { kind: 'nonNull'; of: Output };

/** One response key of an object, in the client's order. */
export interface ShapeField {
  key: string;
  /** `"key":` as JSON, written once. */
  label: string;
  output: Output;
}

/** Where, in one answer, objects needing a follow-up request are. */
export interface Walk {
  boundaries: Boundary[];
  children: { key: string; walk: Walk }[];
}

/** Objects of a merged type whose missing fields another subschema answers. */
export interface Boundary {
  target: Subschema;
  merge: TypeMerge;
  /** The merge arguments, read from the key fields under their aliases. */
  args: { setter: string[]; from: string[] }[];
  /** Top-level arguments of the merge query and their variable types. */
  argTypes: { name: string; type: TypeNode }[];
  /** What is asked of the target for each object. */
  selectionSet: SelectionSetNode;
  /** Response keys of the fields fetched for each object (error paths when the request fails). */
  keys: string[];
  walk: Walk;
  variables: Set<string>;
}

/** One follow-up request: all boundaries of one answer that go to the same subschema, in one document. */
export interface Group {
  target: Subschema;
  boundaries: Boundary[];
  /** Client variables used by the boundaries' selections. */
  variables: VariableDefinitionNode[];
  /** Groups of the boundaries found inside this group's answer. */
  next: Group[];
  /** Built documents by object count per boundary ("3,1"): one shape per count, reused with new variables. */
  documents: Map<string, { document: DocumentNode; query: string }>;
}

export interface Fetch {
  subschema: Subschema;
  document: DocumentNode;
  query: string;
  operationName?: string;
  variables: string[];
  /** Response keys this request answers (error paths when it fails). */
  keys: string[];
  walk: Walk;
  groups: Group[];
}

export interface Plan {
  kind: 'plan';
  operation: OperationDefinitionNode;
  shape: ShapeField[];
  /** Root response keys answered with the root type's name (`__typename`). */
  typenameKeys: string[];
  rootTypeName: string;
  fetches: Fetch[];
}

export interface Unplannable {
  kind: 'fallback';
  reason: string;
  introspection: boolean;
}

class NotPlannable extends Error {}

type FieldGroups = Map<string, FieldNode[]>;

interface Context {
  schema: GraphQLSchema;
  subschemas: Subschema[];
  fragments: Map<string, FragmentDefinitionNode>;
}

export function planOperation(
  schema: GraphQLSchema,
  subschemas: Subschema[],
  document: DocumentNode,
  operationName?: string | null,
): Plan | Unplannable {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operationName
    ? operations.find((o) => o.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  if (!operation) return { kind: 'fallback', reason: 'no single operation', introspection: false };
  const rootType =
    operation.operation === 'query'
      ? schema.getQueryType()
      : operation.operation === 'mutation'
        ? schema.getMutationType()
        : undefined;
  if (!rootType) return { kind: 'fallback', reason: `${operation.operation} operations`, introspection: false };
  const ctx: Context = {
    schema,
    subschemas,
    fragments: new Map(
      document.definitions
        .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
        .map((f) => [f.name.value, f]),
    ),
  };
  try {
    const fields = collectFields(ctx, rootType, operation.selectionSet, new Map());
    const introspection = [...fields.values()].some(
      (nodes) => nodes[0]!.name.value === '__schema' || nodes[0]!.name.value === '__type',
    );
    if (introspection) return { kind: 'fallback', reason: 'introspection', introspection: true };
    return planRoot(ctx, operation, rootType, fields);
  } catch (err) {
    if (err instanceof NotPlannable) return { kind: 'fallback', reason: err.message, introspection: false };
    throw err;
  }
}

function planRoot(
  ctx: Context,
  operation: OperationDefinitionNode,
  rootType: GraphQLObjectType,
  fields: FieldGroups,
): Plan {
  const typenameKeys: string[] = [];
  const byOwner = new Map<Subschema, FieldGroups>();
  for (const [key, nodes] of fields) {
    const name = nodes[0]!.name.value;
    if (name === '__typename') {
      typenameKeys.push(key);
      continue;
    }
    // The last subschema defining a root field answers it, as @graphql-tools/stitch decides.
    const owner = [...ctx.subschemas].reverse().find((s) => rootOf(s, operation.operation)?.getFields()[name]);
    if (!owner) throw new NotPlannable(`no subschema answers ${rootType.name}.${name}`);
    if (!byOwner.has(owner)) byOwner.set(owner, new Map());
    byOwner.get(owner)!.set(key, nodes);
  }
  // Mutations run in order; the planner takes them only when one subschema answers them all.
  if (operation.operation === 'mutation' && byOwner.size > 1)
    throw new NotPlannable('mutation fields of several subschemas');
  const definitions = new Map((operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, d]));
  const fetches = [...byOwner].map(([subschema, groups]): Fetch => {
    const variables = new Set<string>();
    const { selections, walk } = planSelections(
      ctx,
      subschema,
      rootType,
      rootOf(subschema, operation.operation)!,
      groups,
      variables,
    );
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [
        {
          kind: Kind.OPERATION_DEFINITION,
          operation: operation.operation,
          name: operation.name,
          variableDefinitions: [...variables].map((v) => definitions.get(v)!),
          selectionSet: { kind: Kind.SELECTION_SET, selections },
        },
      ],
    };
    return {
      subschema,
      document,
      query: printOnce(document),
      operationName: operation.name?.value,
      variables: [...variables],
      keys: [...groups.keys()],
      walk,
      groups: groupBoundaries([walk], definitions),
    };
  });
  return {
    kind: 'plan',
    operation,
    shape: shapeOf(ctx, rootType, fields),
    typenameKeys,
    rootTypeName: rootType.name,
    fetches,
  };
}

function rootOf(s: Subschema, operation: string): GraphQLObjectType | undefined {
  const schema = s.api.schema;
  return (operation === 'mutation' ? schema.getMutationType() : schema.getQueryType()) ?? undefined;
}

/** The client's response shape, from the stitched schema alone. */
function shapeOf(ctx: Context, type: GraphQLObjectType, fields: FieldGroups): ShapeField[] {
  return [...fields].map(([key, nodes]) => {
    const name = nodes[0]!.name.value;
    const output: Output =
      name === '__typename' ? { kind: 'leaf' } : outputOf(ctx, type.getFields()[name]!.type, nodes);
    return { key, label: `${JSON.stringify(key)}:`, output };
  });
}

function outputOf(ctx: Context, type: GraphQLOutputType, nodes: FieldNode[]): Output {
  if (isNonNullType(type)) return { kind: 'nonNull', of: outputOf(ctx, type.ofType, nodes) };
  if (isListType(type)) return { kind: 'list', of: outputOf(ctx, type.ofType, nodes) };
  return isObjectType(type)
    ? { kind: 'object', fields: shapeOf(ctx, type, subfields(ctx, type, nodes)) }
    : { kind: 'leaf' };
}

/**
 * The selections `subschema` is asked for at an object of `type`, and where
 * its answer needs follow-ups. `variables` collects the client variables used.
 */
function planSelections(
  ctx: Context,
  subschema: Subschema,
  type: GraphQLObjectType,
  own: GraphQLObjectType,
  fields: FieldGroups,
  variables: Set<string>,
): { selections: SelectionNode[]; walk: Walk } {
  const selections: SelectionNode[] = [];
  const walk: Walk = { boundaries: [], children: [] };
  const elsewhere = new Map<Subschema, FieldGroups>();
  for (const [key, nodes] of fields) {
    if (key.startsWith(KEY_ALIAS)) throw new NotPlannable(`response key ${key}`);
    const node = nodes[0]!;
    const name = node.name.value;
    if (name === '__typename') {
      selections.push(fieldNode(node, undefined));
      continue;
    }
    const stitchedType = type.getFields()[name]!.type;
    const named = getNamedType(stitchedType);
    if (isAbstractType(named)) throw new NotPlannable(`abstract type ${named.name}`);
    if (!own.getFields()[name]) {
      const owner = ctx.subschemas.find(
        (s) =>
          s !== subschema &&
          s.merges.has(type.name) &&
          (s.api.schema.getType(type.name) as GraphQLObjectType | undefined)?.getFields()[name],
      );
      if (!owner) throw new NotPlannable(`no merge reaches ${type.name}.${name} from ${subschema.name}`);
      if (!elsewhere.has(owner)) elsewhere.set(owner, new Map());
      elsewhere.get(owner)!.set(key, nodes);
      continue;
    }
    for (const arg of node.arguments ?? []) collectVariables(arg.value, variables);
    if (isObjectType(named)) {
      const ownNamed = getNamedType(own.getFields()[name]!.type);
      if (!isObjectType(ownNamed)) throw new NotPlannable(`${subschema.name} types ${type.name}.${name} differently`);
      const sub = planSelections(ctx, subschema, named, ownNamed, subfields(ctx, named, nodes), variables);
      selections.push(fieldNode(node, { kind: Kind.SELECTION_SET, selections: sub.selections }));
      if (sub.walk.boundaries.length || sub.walk.children.length) walk.children.push({ key, walk: sub.walk });
    } else {
      selections.push(fieldNode(node, undefined));
    }
  }
  const keyAliases = new Set<string>();
  for (const [target, targetFields] of elsewhere) {
    const merge = target.merges.get(type.name)!;
    for (const sel of merge.selectionSet.selections) {
      if (sel.kind !== Kind.FIELD || !own.getFields()[sel.name.value])
        throw new NotPlannable(
          `key ${type.name}.${sel.kind === Kind.FIELD ? sel.name.value : '...'} is not a field of ${subschema.name}`,
        );
      const alias = KEY_ALIAS + sel.name.value;
      if (keyAliases.has(alias)) continue;
      keyAliases.add(alias);
      selections.push({ ...sel, alias: { kind: Kind.NAME, value: alias } });
    }
    const targetType = target.api.schema.getType(type.name) as GraphQLObjectType;
    const boundaryVariables = new Set<string>();
    const sub = planSelections(ctx, target, type, targetType, targetFields, boundaryVariables);
    const argNames = [...new Set(merge.args.map((a) => a.setter[0]!))];
    walk.boundaries.push({
      target,
      merge,
      args: merge.args.map(({ setter, from }) => ({ setter, from: [KEY_ALIAS + from[0], ...from.slice(1)] })),
      argTypes: argNames.map((n) => ({
        name: n,
        type: parseType(String(merge.query.args.find((a) => a.name === n)!.type)),
      })),
      selectionSet: { kind: Kind.SELECTION_SET, selections: sub.selections },
      keys: [...targetFields.keys()],
      walk: sub.walk,
      variables: boundaryVariables,
    });
  }
  return { selections, walk };
}

/** A field as sent to a subschema: the client's alias, name and arguments, no directives (already applied). */
function fieldNode(node: FieldNode, selectionSet: SelectionSetNode | undefined): FieldNode {
  return {
    kind: Kind.FIELD,
    alias: node.alias,
    name: node.name,
    arguments: node.arguments,
    directives: [],
    selectionSet,
  };
}

/** The follow-up groups of the boundaries reachable in `walks` without crossing into another answer. */
function groupBoundaries(walks: Walk[], definitions: Map<string, VariableDefinitionNode>): Group[] {
  const byTarget = new Map<Subschema, Boundary[]>();
  const visit = (walk: Walk) => {
    for (const b of walk.boundaries) {
      if (!byTarget.has(b.target)) byTarget.set(b.target, []);
      byTarget.get(b.target)!.push(b);
    }
    for (const c of walk.children) visit(c.walk);
  };
  walks.forEach(visit);
  return [...byTarget].map(([target, boundaries]) => ({
    target,
    boundaries,
    variables: [...new Set(boundaries.flatMap((b) => [...b.variables]))].map((v) => definitions.get(v)!),
    next: groupBoundaries(
      boundaries.map((b) => b.walk),
      definitions,
    ),
    documents: new Map(),
  }));
}

/** Alias of the merge query for the j-th distinct object of boundary i, and of its argument variables. */
export const mergeAlias = (i: number, j: number): string => `_b${i}_${j}`;
const argVariable = (i: number, j: number, arg: string): string => `_b${i}_${j}_${arg}`;

/** Variable name of each argument of object j of boundary i. */
export function argVariables(i: number, j: number, boundary: Boundary): string[] {
  return boundary.argTypes.map((a) => argVariable(i, j, a.name));
}

/** The follow-up document for `counts[i]` distinct objects of each boundary; built once per counts. */
export function groupDocument(group: Group, counts: number[]): { document: DocumentNode; query: string } {
  const cacheKey = counts.join(',');
  let built = group.documents.get(cacheKey);
  if (built) return built;
  const variableDefinitions: VariableDefinitionNode[] = [...group.variables];
  const selections: SelectionNode[] = [];
  group.boundaries.forEach((b, i) => {
    for (let j = 0; j < counts[i]!; j++) {
      const args: ArgumentNode[] = b.argTypes.map((a) => {
        const variable = { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: argVariable(i, j, a.name) } } as const;
        variableDefinitions.push({ kind: Kind.VARIABLE_DEFINITION, variable, type: a.type });
        return { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: a.name }, value: variable };
      });
      selections.push({
        kind: Kind.FIELD,
        alias: { kind: Kind.NAME, value: mergeAlias(i, j) },
        name: { kind: Kind.NAME, value: b.merge.queryName },
        arguments: args,
        selectionSet: b.selectionSet,
      });
    }
  });
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: OperationTypeNode.QUERY,
        variableDefinitions,
        selectionSet: { kind: Kind.SELECTION_SET, selections },
      },
    ],
  };
  built = { document, query: printOnce(document) };
  // Counts vary with list lengths: keep a bounded number of shapes.
  if (group.documents.size >= 64) group.documents.clear();
  group.documents.set(cacheKey, built);
  return built;
}

/** Fields by response key, fragments inlined; only what needs no runtime value (see the module comment). */
function collectFields(
  ctx: Context,
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  into: FieldGroups,
): FieldGroups {
  for (const sel of selectionSet.selections) {
    if (!included(sel)) continue;
    if (sel.kind === Kind.FIELD) {
      const key = sel.alias?.value ?? sel.name.value;
      if (!into.has(key)) into.set(key, []);
      into.get(key)!.push(sel);
      continue;
    }
    const fragment = sel.kind === Kind.INLINE_FRAGMENT ? sel : ctx.fragments.get(sel.name.value);
    if (!fragment) throw new NotPlannable(`unknown fragment`);
    if (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)
      throw new NotPlannable(`fragment on ${fragment.typeCondition.name.value} inside ${type.name}`);
    collectFields(ctx, type, fragment.selectionSet, into);
  }
  return into;
}

function subfields(ctx: Context, type: GraphQLObjectType, nodes: FieldNode[]): FieldGroups {
  const into: FieldGroups = new Map();
  for (const n of nodes) if (n.selectionSet) collectFields(ctx, type, n.selectionSet, into);
  return into;
}

/** @skip/@include with literal conditions; any other directive, or a condition on a variable, is Unplannable. */
function included(sel: SelectionNode): boolean {
  let keep = true;
  for (const d of sel.directives ?? []) {
    const name = d.name.value;
    if (name !== 'skip' && name !== 'include') throw new NotPlannable(`directive @${name}`);
    const value = d.arguments?.find((a) => a.name.value === 'if')?.value;
    if (value?.kind !== Kind.BOOLEAN) throw new NotPlannable(`@${name} on a variable`);
    if (value.value === (name === 'skip')) keep = false;
  }
  return keep;
}

function collectVariables(value: ValueNode, into: Set<string>): void {
  if (value.kind === Kind.VARIABLE) into.add(value.name.value);
  else if (value.kind === Kind.LIST) value.values.forEach((v) => collectVariables(v, into));
  else if (value.kind === Kind.OBJECT) value.fields.forEach((f) => collectVariables(f.value, into));
}
