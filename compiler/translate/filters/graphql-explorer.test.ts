import { formatDiagnostic } from '../../diagnostics.js';
import { parseText } from '../../load/load.js';
import { resolve } from '../../resolve/resolve.js';
import { validateDocuments } from '../../validate/validate.js';
import { DEFAULT_OPTIONS } from '../output.js';
import { compileApi } from './graphql.js';

function compiled(options: string): Record<string, unknown> {
  const loaded = parseText(
    'in.yaml',
    `apiVersion: graphql.gloo.solo.io/v1beta1
kind: GraphQLApi
metadata: {name: a, namespace: default}
spec:
  executableSchema:
    schemaDefinition: "type Query { hello: String }"
    executor: {local: {enableIntrospection: true}}
${options}`,
  );
  const validated = validateDocuments(loaded.documents);
  expect([...loaded.diagnostics, ...validated.diagnostics].map(formatDiagnostic)).toEqual([]);
  const { model, diagnostics } = resolve(validated.resources, DEFAULT_OPTIONS);
  expect(diagnostics).toEqual([]);
  return compileApi(model.graphqlApis[0]!);
}

test('options.explorer.enabled is compiled to explorer; off (or absent) it is left out, as proto3 JSON leaves false', () => {
  expect(compiled('  options: {explorer: {enabled: true}}')).toMatchObject({ name: 'default.a', explorer: true });
  expect(compiled('  options: {explorer: {enabled: false}}')).not.toHaveProperty('explorer');
  expect(compiled('  options: {logSensitiveInfo: true}')).not.toHaveProperty('explorer');
});

test('a misspelt explorer field is an error naming it', () => {
  const loaded = parseText(
    'in.yaml',
    'apiVersion: graphql.gloo.solo.io/v1beta1\nkind: GraphQLApi\nmetadata: {name: a, namespace: default}\nspec:\n  executableSchema: {schemaDefinition: "type Query { hello: String }", executor: {local: {}}}\n  options: {explorer: {enable: true}}\n',
  );
  const { diagnostics } = validateDocuments(loaded.documents);
  expect(diagnostics.map((d) => d.field)).toEqual(['spec.options.explorer.enable']);
});
