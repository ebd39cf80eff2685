/**
 * The stitched schema and the general execution path: @graphql-tools/stitch
 * over the subschemas' own executors, merged types batched (one document of
 * aliased queries per subschema per tick, as @graphql-tools/batch-execute
 * builds it). It answers every document, including those the planner does
 * not take (abstract types, introspection, directives on variables), and its
 * schema is the client-facing one.
 */
import { execute, print, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createMergedTypeResolver, stitchSchemas } from '@graphql-tools/stitch';
import type { MergedTypeResolver, SubschemaConfig } from '@graphql-tools/delegate';
import type { Executor } from '@graphql-tools/utils';
import type { ExecuteArgs, RequestContext } from '../api.js';
import { buildMergeArgs, hasMergeKeys, printOnce, type Subschema } from './subschema.js';

export function stitchedSchema(subschemas: Subschema[]): GraphQLSchema {
  return stitchSchemas<RequestContext>({
    subschemas: subschemas.map((s): SubschemaConfig<unknown, unknown, unknown, RequestContext> => {
      const executor: Executor<RequestContext> = (request) =>
        s.api.execute({
          document: request.document,
          query: printOnce(request.document),
          variableValues: request.variables,
          operationName: request.operationName,
          context: request.context!,
        }) as never;
      return {
        name: s.name,
        schema: s.api.schema,
        executor,
        batch: true,
        merge: Object.fromEntries(
          [...s.merges].map(([typeName, m]) => {
            const fetch = createMergedTypeResolver<RequestContext>({
              fieldName: m.queryName,
              args: (original: unknown) => buildMergeArgs(m, original),
            })!;
            // As the planner: an object without its key is not fetched (a null argument would fail the whole batch); its merged fields stay null.
            const resolve: MergedTypeResolver<RequestContext> = (original, ...rest) =>
              hasMergeKeys(m, original) ? fetch(original, ...rest) : {};
            return [typeName, { selectionSet: print(m.selectionSet), fieldName: m.queryName, resolve }];
          }),
        ),
      };
    }),
  });
}

/** Executes a validated document on the stitched schema (graphql-js execution with delegating resolvers). */
export async function executeStitched(schema: GraphQLSchema, args: ExecuteArgs): Promise<ExecutionResult> {
  return execute({
    schema,
    document: args.document,
    variableValues: args.variableValues,
    operationName: args.operationName,
    contextValue: args.context,
  });
}
