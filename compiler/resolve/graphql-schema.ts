/**
 * GraphQL schema text as the compiler reads it: parsed and built with
 * graphql-js the way sluice-graphql builds it (with `@resolve` declared when
 * the text does not declare it), every problem with its line inside the text.
 */
import {
  GraphQLError,
  Kind,
  buildASTSchema,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  parse,
  validateSchema,
  visit,
  type DirectiveNode,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { validateSDL } from 'graphql/validation/validate.js';

/** A problem in schema text: graphql's message and the line inside the text. */
export interface SdlProblem {
  message: string;
  line?: number;
}

export const RESOLVE_DIRECTIVE = 'resolve';
const RESOLVE_DECLARATION = 'directive @resolve(name: String!) on FIELD_DEFINITION';

/** `line 3: message` when graphql located it. */
export function sdlMessage(p: SdlProblem): string {
  return p.line ? `line ${p.line}: ${p.message}` : p.message;
}

function problemsOf(errors: readonly GraphQLError[]): SdlProblem[] {
  return errors.map((e) => ({ message: e.message, line: e.locations?.[0]?.line }));
}

/** Every use of `@name` in the text, for checks graphql does not make. */
export function directiveUses(doc: DocumentNode, name: string): DirectiveNode[] {
  const found: DirectiveNode[] = [];
  visit(doc, { Directive: (node) => void (node.name.value === name && found.push(node)) });
  return found;
}

/** The text without any use of `@name`, so a directive already reported is not reported again. */
export function withoutDirective(doc: DocumentNode, name: string): DocumentNode {
  return visit(doc, { Directive: (node) => (node.name.value === name ? null : undefined) });
}

/** Parses schema text; a syntax error is one problem. */
export function parseSdl(text: string): { doc?: DocumentNode; problems: SdlProblem[] } {
  try {
    return { doc: parse(text), problems: [] };
  } catch (err) {
    if (err instanceof GraphQLError) return { problems: problemsOf([err]) };
    throw err;
  }
}

/** Builds and validates the schema of parsed text, declaring `@resolve` unless the text does. */
export function buildSdl(doc: DocumentNode): { schema?: GraphQLSchema; problems: SdlProblem[] } {
  const declared = doc.definitions.some(
    (d) => d.kind === Kind.DIRECTIVE_DEFINITION && d.name.value === RESOLVE_DIRECTIVE,
  );
  const full: DocumentNode = declared
    ? doc
    : { ...doc, definitions: [...doc.definitions, ...parse(RESOLVE_DECLARATION, { noLocation: true }).definitions] };
  const sdlErrors = validateSDL(full);
  if (sdlErrors.length > 0) return { problems: problemsOf(sdlErrors) };
  const schema = buildASTSchema(full, { assumeValidSDL: true });
  const schemaErrors = validateSchema(schema);
  if (schemaErrors.length > 0) return { problems: problemsOf(schemaErrors) };
  return { schema, problems: [] };
}

/**
 * Why an argument path (`id`, `user_search.username`) does not fit a field's
 * arguments: the first step names an argument, further steps fields of input
 * objects (list indexes are taken as they come). undefined: it fits.
 */
export function argumentPathProblem(
  args: readonly GraphQLArgument[],
  path: readonly (string | number)[],
): string | undefined {
  const [first, ...rest] = path;
  const arg = args.find((a) => a.name === first);
  if (!arg)
    return `no argument "${String(first)}" (${args.length ? `its arguments: ${args.map((a) => a.name).join(', ')}` : 'it takes none'})`;
  let type: GraphQLInputType = arg.type;
  let where = arg.name;
  for (const step of rest) {
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      if (typeof step !== 'number') return `${where} is a list; index it as ${where}[0]`;
      type = nullable.ofType;
      where += `[${step}]`;
      continue;
    }
    if (!isInputObjectType(nullable))
      return `${where} is a ${String(getNamedType(type))}, which has no field "${String(step)}"`;
    const field = nullable.getFields()[String(step)];
    if (!field) return `${nullable.name} (${where}) has no field "${String(step)}"`;
    type = field.type;
    where += `.${String(step)}`;
  }
  return undefined;
}
