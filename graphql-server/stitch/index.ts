/**
 * A stitched GraphQL API: every type and query of its subschemas in one
 * schema, merged types joined through their typeMerge queries. Operations
 * run on a cached query plan (plan.ts, execute-plan.ts); those the planner
 * does not take run on @graphql-tools/stitch (fallback.ts), which answers
 * the same.
 */
import { GraphQLError, getVariableValues, type ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { ExecutableApi, ExecuteArgs, ResolverDeps, StitchedSchemaConfig } from '../api.js';
import { executeStitched, stitchedSchema } from './fallback.js';
import { executePlan } from './execute-plan.js';
import { planOperation, type Plan, type Unplannable } from './plan.js';
import { resolveSubschemas } from './subschema.js';

/** Plans kept per API: distinct operations a client population sends. */
const PLAN_CACHE_SIZE = 1000;

export interface StitchedApi extends ExecutableApi {
  /** Runs an operation on @graphql-tools/stitch even when the planner takes it (tests compare both paths). */
  executeFallback(args: ExecuteArgs): Promise<ExecutionResult>;
  /** How an operation runs: 'plan', or why it falls back. */
  explain(args: Pick<ExecuteArgs, 'document' | 'query' | 'operationName'>): string;
}

/**
 * Builds the stitched API from the subschemas' own ExecutableApis (each
 * answers with its schema and execute, local or remote); `deps` gives the logger.
 */
export function buildStitchedApi(name: string, config: StitchedSchemaConfig, subApis: Map<string, ExecutableApi>, deps: ResolverDeps): StitchedApi {
  const subschemas = resolveSubschemas(name, config, subApis);
  const schema = stitchedSchema(subschemas);
  const plans = new LRUCache<string, Plan | Unplannable>({ max: PLAN_CACHE_SIZE });
  const planFor = (args: Pick<ExecuteArgs, 'document' | 'query' | 'operationName'>): Plan | Unplannable => {
    const key = `${args.operationName ?? ''}\n${args.query}`;
    let plan = plans.get(key);
    if (!plan) {
      plan = planOperation(schema, subschemas, args.document, args.operationName);
      if (plan.kind === 'fallback') deps.logger.debug({ operationName: args.operationName, reason: plan.reason }, 'stitched operation runs on @graphql-tools/stitch');
      plans.set(key, plan);
    }
    return plan;
  };
  return {
    name,
    schema,
    enableIntrospection: config.enableIntrospection,
    async execute(args) {
      const plan = planFor(args);
      if (plan.kind === 'fallback') {
        if (plan.introspection && !config.enableIntrospection) return { errors: [new GraphQLError(`introspection is disabled for the GraphQL API ${name} (enableIntrospection)`)] };
        return executeStitched(schema, args);
      }
      const variables = getVariableValues(schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {}, { maxErrors: 50 });
      if (variables.errors) return { errors: variables.errors };
      return executePlan(plan, args.context, variables.coerced);
    },
    executeFallback: (args) => executeStitched(schema, args),
    explain(args) {
      const plan = planFor(args);
      return plan.kind === 'plan' ? 'plan' : plan.reason;
    },
    async close() {
      // The subschemas are APIs of their own: the registry closes them.
      plans.clear();
    },
  };
}
