/**
 * A local executor API: the schema as the user wrote it, executed by
 * graphql-js here, where each field with `@resolve(name: "<resolution>")`
 * gets the resolver its resolution describes (gRPC or REST). Fields without
 * @resolve keep graphql-js' default resolver (the parent's property).
 */
import {
  buildASTSchema,
  execute,
  getDirectiveValues,
  isObjectType,
  Kind,
  parse,
  type DirectiveDefinitionNode,
  type DocumentNode,
  type GraphQLDirective,
  type GraphQLSchema,
} from 'graphql';
import type {
  ExecutableApi,
  ExecutableSchemaConfig,
  FieldResolver,
  ResolutionConfig,
  ResolverDeps,
  ResolverField,
} from './api.js';
import { ConfigError } from './config.js';
import { createGrpcResolver } from './grpc/resolver.js';
import { createRestResolver } from './rest.js';

const RESOLVE_DIRECTIVE = parse('directive @resolve(name: String!) on FIELD_DEFINITION')
  .definitions[0] as DirectiveDefinitionNode;

/** The schema of `schemaDefinition`, with @resolve declared when the text does not declare it. */
export function buildLocalSchema(name: string, schemaDefinition: string): GraphQLSchema {
  const where = `GraphQLApi ${name}: executable.schema_definition`;
  let doc: DocumentNode;
  try {
    doc = parse(schemaDefinition);
  } catch (err) {
    throw new ConfigError(`${where}: ${(err as Error).message}`);
  }
  const declared = doc.definitions.some((d) => d.kind === Kind.DIRECTIVE_DEFINITION && d.name.value === 'resolve');
  if (!declared) doc = { ...doc, definitions: [...doc.definitions, RESOLVE_DIRECTIVE] };
  try {
    return buildASTSchema(doc);
  } catch (err) {
    throw new ConfigError(`${where}: ${(err as Error).message}`);
  }
}

function resolverFor(resolution: ResolutionConfig, field: ResolverField, deps: ResolverDeps): FieldResolver {
  return resolution.kind === 'grpc'
    ? createGrpcResolver(resolution, field, deps)
    : createRestResolver(resolution, field, deps);
}

export function buildLocalApi(name: string, config: ExecutableSchemaConfig, deps: ResolverDeps): ExecutableApi {
  const schema = buildLocalSchema(name, config.schemaDefinition);
  const directive = schema.getDirective('resolve') as GraphQLDirective;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const f of Object.values(type.getFields())) {
      if (!f.astNode) continue;
      const values = getDirectiveValues(directive, f.astNode);
      if (!values) continue;
      const resolutionName = values.name as string;
      const where = `GraphQLApi ${name}: field ${type.name}.${f.name}`;
      const resolution = config.resolutions[resolutionName];
      if (!resolution)
        throw new ConfigError(`${where}: @resolve(name: "${resolutionName}") names no resolution of this API`);
      try {
        f.resolve = resolverFor(
          resolution,
          { typeName: type.name, fieldName: f.name, returnType: f.type, args: f.args },
          deps,
        );
      } catch (err) {
        throw new ConfigError(`${where}: resolution "${resolutionName}": ${(err as Error).message}`);
      }
    }
  }
  return {
    name,
    schema,
    enableIntrospection: config.enableIntrospection,
    async execute(args) {
      return execute({
        schema,
        document: args.document,
        variableValues: args.variableValues,
        operationName: args.operationName,
        contextValue: args.context,
      });
    },
  };
}
