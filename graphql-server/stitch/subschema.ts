/**
 * One subschema of a stitched API as both execution paths see it: the
 * ExecutableApi that answers it and its type merges, parsed once. Arguments
 * of a merge query are built the same way by the planner and the
 * @graphql-tools/stitch fallback (buildMergeArgs).
 */
import { print, type DocumentNode, type GraphQLField, type SelectionSetNode } from 'graphql';
import { parseSelectionSet } from '@graphql-tools/utils';
import type { ExecutableApi, StitchedSchemaConfig } from '../api.js';

export interface TypeMerge {
  typeName: string;
  /** The key fields, as written (`{ id }`). */
  selectionSet: SelectionSetNode;
  queryName: string;
  /** The query field named by queryName, in this subschema. */
  query: GraphQLField<unknown, unknown>;
  /** Argument setters: where in the arguments (dotted) each value goes, and the key field path it comes from. */
  args: { setter: string[]; from: string[] }[];
}

export interface Subschema {
  name: string;
  api: ExecutableApi;
  /** Type name -> how objects of that type are fetched from this subschema. */
  merges: Map<string, TypeMerge>;
}

/** Parses the subschemas of a stitched config; a config that names no API or a missing query is an error the user can fix. */
export function resolveSubschemas(
  apiName: string,
  config: StitchedSchemaConfig,
  subApis: Map<string, ExecutableApi>,
): Subschema[] {
  return config.subschemas.map(({ api: name, typeMerge }) => {
    const api = subApis.get(name);
    if (!api)
      throw new Error(
        `stitched API ${apiName}: subschema ${name} is not a GraphQLApi that is served (known: ${[...subApis.keys()].join(', ') || 'none'})`,
      );
    const merges = new Map<string, TypeMerge>();
    for (const [typeName, merge] of Object.entries(typeMerge)) {
      const where = `stitched API ${apiName}: typeMerge ${typeName} of ${name}`;
      const query = api.schema.getQueryType()?.getFields()[merge.queryName];
      if (!query) throw new Error(`${where}: queryName ${merge.queryName} is not a Query field of ${name}`);
      let selectionSet: SelectionSetNode;
      try {
        selectionSet = parseSelectionSet(merge.selectionSet);
      } catch (err) {
        throw new Error(
          `${where}: selectionSet ${JSON.stringify(merge.selectionSet)} is not a selection set such as "{ id }" (${(err as Error).message})`,
        );
      }
      const args = Object.entries(merge.args).map(([setter, from]) => ({
        setter: setter.split('.'),
        from: from.split('.'),
      }));
      for (const { setter } of args) {
        if (!query.args.some((a) => a.name === setter[0]))
          throw new Error(`${where}: ${merge.queryName} has no argument ${setter[0]}`);
      }
      merges.set(typeName, { typeName, selectionSet, queryName: merge.queryName, query, args });
    }
    return { name, api, merges };
  });
}

/** The value at a dotted path of a result object; undefined when a step is missing. */
export function valueAt(obj: unknown, path: readonly string[]): unknown {
  let v = obj;
  for (const step of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[step];
  }
  return v;
}

/** True when every key field the merge's arguments come from has a value in `object`: otherwise it cannot be fetched. */
export function hasMergeKeys(merge: Pick<TypeMerge, 'args'>, object: unknown): boolean {
  return merge.args.every((a) => valueAt(object, a.from) != null);
}

/** The merge query's arguments for one resolved object: each setter path gets the value at its key field path. */
export function buildMergeArgs(merge: Pick<TypeMerge, 'args'>, object: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const { setter, from } of merge.args) {
    let target = args;
    for (const step of setter.slice(0, -1)) target = (target[step] ??= {}) as Record<string, unknown>;
    target[setter[setter.length - 1]!] = valueAt(object, from);
  }
  return args;
}

const printed = new WeakMap<DocumentNode, string>();

/** print(document), once per document (delegated documents are reused across requests). */
export function printOnce(document: DocumentNode): string {
  let text = printed.get(document);
  if (text === undefined) {
    text = print(document);
    printed.set(document, text);
  }
  return text;
}
