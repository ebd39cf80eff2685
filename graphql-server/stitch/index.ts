/**
 * A stitched GraphQL API: every type and query of its subschemas in one
 * schema, merged types joined through their typeMerge queries. Operations
 * run on a cached query plan (plan.ts, execute-plan.ts); those the planner
 * does not take run on @graphql-tools/stitch (fallback.ts), which answers
 * the same.
 */
import { NO_TRACING } from '../../runtime/tracing.js';
import { GraphQLError, getVariableValues, type ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import {
  writeResult,
  type ExecutableApi,
  type ExecuteArgs,
  type ResolverDeps,
  type StitchedSchemaConfig,
  type WrittenResult,
} from '../api.js';
import { executeStitched, stitchedSchema } from './fallback.js';
import { runPlan, type Merged } from './execute-plan.js';
import { completeData, writeResponse } from './response.js';
import { planOperation, type Plan, type Unplannable } from './plan.js';
import { resolveSubschemas } from './subschema.js';

/** Plans kept per API: distinct operations a client population sends. */
const PLAN_CACHE_SIZE = 1000;

export interface StitchedApi extends ExecutableApi {
  /** Runs an operation on @graphql-tools/stitch even when the planner takes it (tests compare both paths). */
  executeFallback(args: ExecuteArgs): Promise<ExecutionResult>;
  /** The plan's response written from its shape (the same bytes as JSON.stringify of execute's result). */
  executeAndWrite(args: ExecuteArgs): Promise<WrittenResult>;
  /** How an operation runs: 'plan', or why it falls back. */
  explain(args: Pick<ExecuteArgs, 'document' | 'query' | 'operationName'>): string;
}

/**
 * Builds the stitched API from the subschemas' own ExecutableApis (each
 * answers with its schema and execute, local or remote); `deps` gives the logger.
 */
export function buildStitchedApi(
  name: string,
  config: StitchedSchemaConfig,
  subApis: Map<string, ExecutableApi>,
  deps: ResolverDeps,
): StitchedApi {
  const subschemas = resolveSubschemas(name, config, subApis);
  const schema = stitchedSchema(subschemas);
  const plans = new LRUCache<string, Plan | Unplannable>({ max: PLAN_CACHE_SIZE });
  const planFor = (args: Pick<ExecuteArgs, 'document' | 'query' | 'operationName'>): Plan | Unplannable => {
    const key = `${args.operationName ?? ''}\n${args.query}`;
    let plan = plans.get(key);
    if (!plan) {
      // A span only when it is made: a cached plan costs a lookup.
      plan = (deps.tracer ?? NO_TRACING).span('graphql.plan', () =>
        planOperation(schema, subschemas, args.document, args.operationName),
      );
      if (plan.kind === 'fallback')
        deps.logger.debug(
          { operationName: args.operationName, reason: plan.reason },
          'stitched operation runs on @graphql-tools/stitch',
        );
      plans.set(key, plan);
    }
    return plan;
  };
  /** The plan's merged answers, or the whole result when the plan is not the way (fallback, refused, bad variables). */
  const run = async (args: ExecuteArgs): Promise<{ plan: Plan; merged: Merged } | ExecutionResult> => {
    const plan = planFor(args);
    if (plan.kind === 'fallback') {
      if (plan.introspection && !config.enableIntrospection)
        return {
          errors: [new GraphQLError(`introspection is disabled for the GraphQL API ${name} (enableIntrospection)`)],
        };
      return executeStitched(schema, args);
    }
    const variables = getVariableValues(schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {}, {
      maxErrors: 50,
    });
    if (variables.errors) return { errors: variables.errors };
    return { plan, merged: await runPlan(plan, args.context, variables.coerced) };
  };
  return {
    name,
    schema,
    enableIntrospection: config.enableIntrospection,
    async execute(args) {
      const ran = await run(args);
      if (!('merged' in ran)) return ran;
      const { merged } = ran;
      const data = completeData(merged.root, ran.plan.shape);
      return merged.errors.length ? { data, errors: merged.errors } : { data };
    },
    async executeAndWrite(args): Promise<WrittenResult> {
      const ran = await run(args);
      if (!('merged' in ran)) return writeResult(ran);
      return writeResponse(ran.merged.root, ran.plan.shape, ran.merged.errors);
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
