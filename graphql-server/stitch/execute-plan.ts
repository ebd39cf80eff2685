/**
 * Runs a Plan: the root requests at once, then for each answer one batched
 * follow-up per subschema (distinct objects once, each under its own alias),
 * merging the JSON answers into the objects they complete. A last walk
 * (response.ts) puts fields in the client's order, drops key fields and
 * applies non-null rules; there is no second GraphQL execution. Errors keep
 * the client's paths: a request that fails gives one error per field it was
 * to answer.
 */
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { RequestContext } from '../api.js';
import {
  argVariables,
  groupDocument,
  mergeAlias,
  type Boundary,
  type Fetch,
  type Group,
  type Plan,
  type Walk,
} from './plan.js';
import { buildMergeArgs, hasMergeKeys } from './subschema.js';

type Path = readonly (string | number)[];
type Obj = Record<string, unknown>;

interface Target {
  object: Obj;
  path: Path;
}

/** Distinct objects of one boundary, by their merge arguments. */
type Collected = Map<Boundary, Map<string, { args: Obj; targets: Target[] }>>;

interface Run {
  context: RequestContext;
  variables: Obj;
  errors: GraphQLError[];
}

/** The answers of a plan's requests merged into one object (key fields and all), and the errors at the client's paths. */
export interface Merged {
  root: Obj;
  errors: GraphQLError[];
}

export async function runPlan(plan: Plan, context: RequestContext, variables: Obj): Promise<Merged> {
  const run: Run = { context, variables, errors: [] };
  const root: Obj = {};
  await Promise.all(plan.fetches.map((f) => runFetch(run, f, root)));
  for (const key of plan.typenameKeys) root[key] = plan.rootTypeName;
  return { root, errors: run.errors };
}

async function runFetch(run: Run, fetch: Fetch, root: Obj): Promise<void> {
  let result: ExecutionResult;
  try {
    result = await fetch.subschema.api.execute({
      document: fetch.document,
      query: fetch.query,
      variableValues: pick(run.variables, fetch.variables),
      operationName: fetch.operationName,
      context: run.context,
    });
  } catch (err) {
    for (const key of fetch.keys) run.errors.push(failure(fetch.subschema.name, err, [key]));
    return;
  }
  if (!result.data) {
    // No data: every field of the request failed, each with the error(s) of the request.
    const errors = result.errors?.length ? result.errors : [new GraphQLError('answered no data')];
    for (const key of fetch.keys)
      for (const e of errors) run.errors.push(e.path ? copyError(e, e.path) : failure(fetch.subschema.name, e, [key]));
    return;
  }
  for (const e of result.errors ?? []) run.errors.push(copyError(e, e.path ?? undefined));
  Object.assign(root, result.data);
  const collected: Collected = new Map();
  collect(root, fetch.walk, [], collected);
  await runGroups(run, fetch.groups, collected);
}

function runGroups(run: Run, groups: Group[], collected: Collected): Promise<unknown> {
  return Promise.all(groups.map((g) => runGroup(run, g, collected)));
}

async function runGroup(run: Run, group: Group, collected: Collected): Promise<void> {
  const perBoundary = group.boundaries.map((b) => [...(collected.get(b)?.values() ?? [])]);
  const counts = perBoundary.map((entries) => entries.length);
  if (counts.every((n) => n === 0)) return;
  const { document, query } = groupDocument(group, counts);
  const variableValues = pick(
    run.variables,
    group.variables.map((d) => d.variable.name.value),
  );
  group.boundaries.forEach((b, i) =>
    perBoundary[i]!.forEach((entry, j) => {
      const names = argVariables(i, j, b);
      b.argTypes.forEach((a, k) => (variableValues[names[k]!] = entry.args[a.name]));
    }),
  );
  const everyField = (err: unknown): void => {
    // A client that went away gets no answer: its errors (one per field per object) are not built.
    if (run.context.signal?.aborted) return;
    group.boundaries.forEach((b, i) =>
      perBoundary[i]!.forEach((entry) =>
        entry.targets.forEach((t) =>
          b.keys.forEach((key) => run.errors.push(failure(group.target.name, err, [...t.path, key]))),
        ),
      ),
    );
  };
  let result: ExecutionResult;
  try {
    result = await group.target.api.execute({ document, query, variableValues, context: run.context });
  } catch (err) {
    return everyField(err);
  }
  for (const e of result.errors ?? []) {
    const m = /^_b(\d+)_(\d+)$/.exec(String(e.path?.[0] ?? ''));
    const entry = m ? perBoundary[Number(m[1])]?.[Number(m[2])] : undefined;
    if (!entry) {
      // An error of the whole request (no data, or no path we sent): every field it was to answer failed.
      if (!result.data) return everyField(e);
      run.errors.push(copyError(e, undefined));
      continue;
    }
    const keys = group.boundaries[Number(m![1])]!.keys;
    for (const t of entry.targets) {
      // The merge query itself failed: each field it was to answer failed (as @graphql-tools/stitch reports it).
      if (e.path!.length === 1) for (const key of keys) run.errors.push(copyError(e, [...t.path, key]));
      else run.errors.push(copyError(e, [...t.path, ...e.path!.slice(1)]));
    }
  }
  if (!result.data) return;
  const next: Collected = new Map();
  group.boundaries.forEach((b, i) =>
    perBoundary[i]!.forEach((entry, j) => {
      const answer = result.data![mergeAlias(i, j)];
      if (answer === null || typeof answer !== 'object') return;
      for (const t of entry.targets) {
        Object.assign(t.object, answer);
        collect(t.object, b.walk, t.path, next);
      }
    }),
  );
  await runGroups(run, group.next, next);
}

/** Finds, in an answer, the objects of each boundary under `walk`, once per distinct merge arguments. */
function collect(value: unknown, walk: Walk, path: Path, into: Collected): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => collect(item, walk, [...path, i], into));
    return;
  }
  const object = value as Obj;
  for (const b of walk.boundaries) {
    // An object without its key cannot be fetched (and would fail the whole batch); its merged fields stay null.
    if (!hasMergeKeys(b, object)) continue;
    const args = buildMergeArgs(b, object);
    const id = JSON.stringify(args);
    if (!into.has(b)) into.set(b, new Map());
    const byArgs = into.get(b)!;
    const entry = byArgs.get(id);
    if (entry) entry.targets.push({ object, path });
    else byArgs.set(id, { args, targets: [{ object, path }] });
  }
  for (const c of walk.children) collect(object[c.key], c.walk, [...path, c.key], into);
}

function pick(values: Obj, names: readonly string[]): Obj {
  const out: Obj = {};
  for (const n of names) if (values[n] !== undefined) out[n] = values[n];
  return out;
}

function copyError(e: GraphQLFormattedError, path: Path | undefined): GraphQLError {
  return new GraphQLError(e.message, { path, extensions: e.extensions });
}

/** A field that failed with its whole request: the request's error, at the field. */
function failure(subschema: string, err: unknown, path: Path): GraphQLError {
  const { message, extensions } = err as Partial<GraphQLFormattedError>;
  return new GraphQLError(`subschema ${subschema} failed: ${message ?? String(err)}`, { path, extensions });
}
