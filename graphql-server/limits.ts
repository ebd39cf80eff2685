/**
 * Limits on what one request may ask for, checked once per document (the
 * document cache keeps the verdict): nesting depth, aliases and fields, with
 * fragments expanded where they are spread. Each is a server flag; an API's
 * maxDepth overrides the depth limit. A document over a limit is refused like
 * an invalid one, with an error naming the limit and its flag.
 */
import {
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';

export interface Limits {
  /** Request body bytes (`--max-body-bytes`). */
  maxBodyBytes: number;
  /** Nesting of fields (`--max-depth`); `{ a { b } }` has depth 2. */
  maxDepth: number;
  /** Aliased fields in an operation (`--max-aliases`). */
  maxAliases: number;
  /** Fields in an operation, fragments expanded (`--max-fields`). */
  maxFields: number;
}

export const DEFAULT_LIMITS: Limits = { maxBodyBytes: 1024 * 1024, maxDepth: 15, maxAliases: 30, maxFields: 1000 };

interface Cost {
  depth: number;
  aliases: number;
  fields: number;
}

/**
 * The cost of a selection set; a fragment's cost is computed once however
 * often it is spread (so nested spreads cannot make this exponential).
 * Fragment cycles are refused by validation before this runs.
 */
function selectionCost(
  set: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  memo: Map<string, Cost>,
): Cost {
  const cost: Cost = { depth: 0, aliases: 0, fields: 0 };
  const add = (c: Cost, extraDepth: number) => {
    cost.depth = Math.max(cost.depth, c.depth + extraDepth);
    cost.aliases += c.aliases;
    cost.fields += c.fields;
  };
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      add({ depth: 0, aliases: sel.alias ? 1 : 0, fields: 1 }, 1);
      if (sel.selectionSet) add(selectionCost(sel.selectionSet, fragments, memo), 1);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      add(selectionCost(sel.selectionSet, fragments, memo), 0);
    } else {
      const name = sel.name.value;
      let c = memo.get(name);
      if (!c) {
        const def = fragments.get(name);
        // An unknown fragment is a validation error reported elsewhere.
        c = def ? selectionCost(def.selectionSet, fragments, memo) : { depth: 0, aliases: 0, fields: 0 };
        memo.set(name, c);
      }
      add(c, 0);
    }
  }
  return cost;
}

/** Errors for each operation of `document` over a limit; `apiMaxDepth` (0: none) is the API's own depth limit. */
export function checkLimits(document: DocumentNode, limits: Limits, apiMaxDepth: number): GraphQLError[] {
  const maxDepth = apiMaxDepth || limits.maxDepth;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const memo = new Map<string, Cost>();
  const errors: GraphQLError[] = [];
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const op: OperationDefinitionNode = def;
    const cost = selectionCost(op.selectionSet, fragments, memo);
    const which = op.name ? `operation ${op.name.value}` : 'the operation';
    const over = (text: string, limit: number, setBy: string, name: string) =>
      errors.push(
        new GraphQLError(`${which} ${text}, above the limit of ${limit} (set by ${setBy})`, {
          nodes: op,
          extensions: { code: 'LIMIT_EXCEEDED', limit: name },
        }),
      );
    if (cost.depth > maxDepth)
      over(
        `nests fields ${cost.depth} deep`,
        maxDepth,
        apiMaxDepth ? "the API's maxDepth" : '--max-depth',
        'max-depth',
      );
    if (cost.aliases > limits.maxAliases)
      over(`has ${cost.aliases} aliases`, limits.maxAliases, '--max-aliases', 'max-aliases');
    if (cost.fields > limits.maxFields)
      over(`selects ${cost.fields} fields (fragments expanded)`, limits.maxFields, '--max-fields', 'max-fields');
  }
  return errors;
}

/** Validation rules added to graphql-js' own for an API: no introspection unless the API enables it (`__typename` stays allowed). */
export function extraRules(enableIntrospection: boolean): ValidationRule[] {
  return enableIntrospection ? [] : [NoSchemaIntrospectionCustomRule];
}
