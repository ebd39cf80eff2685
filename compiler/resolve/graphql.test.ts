import { formatDiagnostic } from '../diagnostics.js';
import { parseText } from '../load/load.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { validateDocuments } from '../validate/validate.js';
import { resolve } from './resolve.js';

function resolveText(text: string) {
  const loaded = parseText('in.yaml', text);
  const validated = validateDocuments(loaded.documents);
  expect([...loaded.diagnostics, ...validated.diagnostics].map(formatDiagnostic)).toEqual([]);
  return resolve(validated.resources, DEFAULT_OPTIONS);
}

const upstream =
  'apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: up, namespace: default}\nspec:\n  static: {hosts: [{addr: 10.0.0.1, port: 9000}]}\n---\n';

/** An executable API with one gRPC resolution `r` on Query.user(id:). */
function grpcApi(name: string, extra: { timeout?: string; message?: string } = {}): string {
  const timeout = extra.timeout ? `\n              timeout: "${extra.timeout}"` : '';
  return `apiVersion: graphql.gateway.example/v1beta1
kind: GraphQLApi
metadata: {name: ${name}, namespace: default}
spec:
  executableSchema:
    schemaDefinition: "type Query { user(id: ID!): User @resolve(name: \\"r\\") } type User { id: ID! name: String }"
    executor:
      local:
        resolutions:
          r:
            grpcResolver:
              upstreamRef: {name: up}${timeout}
              requestTransform: {serviceName: users.UserService, methodName: GetUser, outgoingMessageJson: {id: '${extra.message ?? '{$args.id}'}'}}
---
`;
}

function stitched(name: string, subschemas: string): string {
  return `apiVersion: graphql.gateway.example/v1beta1\nkind: GraphQLApi\nmetadata: {name: ${name}, namespace: default}\nspec:\n  stitchedSchema:\n    subschemas:\n${subschemas}---\n`;
}

test('timeouts become milliseconds, rounded up so a sub-millisecond one is never 0 (the default)', () => {
  const { model, diagnostics } = resolveText(
    upstream + grpcApi('a', { timeout: '1.5s' }) + grpcApi('b', { timeout: '0.000001s' }) + grpcApi('c'),
  );
  expect(diagnostics).toEqual([]);
  const timeouts = model.graphqlApis.map((api) => api.executable!.resolutions.r!.timeoutMs);
  expect(timeouts).toEqual([1500, 1, 0]);
});

test('a timeout of 0s or out of uint32 milliseconds is an error', () => {
  const { diagnostics } = resolveText(
    upstream + grpcApi('a', { timeout: '0s' }) + grpcApi('b', { timeout: '4294968s' }),
  );
  expect(diagnostics.map((d) => `${d.resource} ${d.field} ${d.message}`)).toEqual([
    'GraphQLApi default/a spec.executableSchema.executor.local.resolutions.r.grpcResolver.timeout timeout "0s" is out of range',
    'GraphQLApi default/b spec.executableSchema.executor.local.resolutions.r.grpcResolver.timeout timeout "4294968s" is out of range',
  ]);
});

test('`{$the service.x}` is checked as the argument x', () => {
  const ok = resolveText(upstream + grpcApi('a', { message: '{$the service.id}' }));
  expect(ok.diagnostics).toEqual([]);
  const bad = resolveText(upstream + grpcApi('a', { message: '{$the service.userId}' }));
  expect(bad.diagnostics.map((d) => d.message)).toEqual([
    '{$the service.userId}: Query.user: no argument "userId" (its arguments: id)',
  ]);
});

test('GraphQL upstreams are looked up but do not become Envoy clusters', () => {
  const { model, diagnostics } = resolveText(upstream + grpcApi('a'));
  expect(diagnostics).toEqual([]);
  expect(model.upstreams).toEqual([]);
  expect(model.graphqlApis[0]!.executable!.resolutions.r).toMatchObject({
    target: { cluster: 'up', hosts: [{ address: '10.0.0.1', port: 9000 }] },
  });
});

test('type merging on a stitched subschema is checked against its stitched schema', () => {
  const inner = stitched('inner', '      - {name: a}\n');
  const good = resolveText(
    upstream +
      grpcApi('a') +
      inner +
      stitched(
        'outer',
        "      - name: inner\n        typeMerge:\n          User: {selectionSet: '{ id }', queryName: user, args: {id: id}}\n",
      ),
  );
  expect(good.diagnostics).toEqual([]);
  const bad = resolveText(
    upstream +
      grpcApi('a') +
      inner +
      stitched(
        'outer',
        "      - name: inner\n        typeMerge:\n          User: {selectionSet: '{ id }', queryName: users, args: {id: id}}\n",
      ),
  );
  expect(bad.diagnostics.map((d) => `${d.field} ${d.message}`)).toEqual([
    'spec.stitchedSchema.subschemas[0].typeMerge.User.queryName "users" is not a Query field of GraphQLApi default/inner',
  ]);
});

test("a stitched API over a subschema with errors reports only that subschema's own errors", () => {
  const broken = grpcApi('a').replace('type User { id: ID! name: String }', 'type User { id: ID! name: Strin }');
  const { diagnostics } = resolveText(
    upstream +
      broken +
      stitched(
        'outer',
        "      - name: a\n        typeMerge:\n          User: {selectionSet: '{ id }', queryName: user, args: {id: id}}\n",
      ),
  );
  expect(diagnostics.map((d) => d.resource)).toEqual(['GraphQLApi default/a']);
  expect(diagnostics[0]!.message).toMatch(/^schema is not valid: line 1: Unknown type "Strin"/);
});
