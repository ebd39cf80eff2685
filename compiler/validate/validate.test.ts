import { formatDiagnostic } from '../diagnostics.js';
import { parseText } from '../load/load.js';
import { KINDS } from '../kinds/index.js';
import { validateDocuments } from './validate.js';

function validate(text: string) {
  const loaded = parseText('in.yaml', text);
  expect(loaded.diagnostics).toEqual([]);
  return validateDocuments(loaded.documents);
}

const vs = (virtualHost: string) =>
  `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata:\n  name: vs\n  namespace: ns\nspec:\n  virtualHost:\n${virtualHost}`;

test('a valid VirtualService passes and gets its envelope typed', () => {
  const { resources, diagnostics } = validate(
    vs(
      '    domains: [a]\n    routes:\n      - matchers: [{prefix: /}]\n        routeAction: {single: {upstream: {name: u}}}\n',
    ),
  );
  expect(diagnostics).toEqual([]);
  expect(resources[0]).toMatchObject({ kind: 'VirtualService', name: 'vs', namespace: 'ns' });
});

test('an unknown field under options is an error naming the field, its line and the allowed ones', () => {
  const { resources, diagnostics } = validate(vs('    domains: [a]\n    options:\n      jwtt: {}\n'));
  expect(resources).toEqual([]);
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    'in.yaml:10: error[validate]: VirtualService ns/vs: spec.virtualHost.options.jwtt: unknown field "jwtt" — did you mean jwt? Allowed fields here: jwt, rbac, extauth, retries, stats, headerManipulation, cors, ratelimit, ratelimitBasic, rateLimitConfigs, rateLimitEarlyConfigs, rateLimitRegularConfigs, ratelimitEarly, ratelimitRegular, bufferPerRoute, csrf, includeRequestAttemptCount, includeAttemptCountInResponse, extProcEarly, extProc, extProcLate, corsPolicyMergeSettings',
  ]);
});

const ROUTE_FIELDS =
  'matchers, inheritableMatchers, inheritablePathMatchers, delegateAction, routeAction, graphqlApiRef, redirectAction, directResponseAction, options, name, optionsConfigRefs';

test('a misspelt field is reported with the name meant, and not as the choice it leaves unmade', () => {
  const { diagnostics } = validate(
    vs(
      '    domains: [a]\n    routes:\n      - matchers: [{prefix: /}]\n        routAction: {single: {upstream: {name: u}}}\n',
    ),
  );
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    `in.yaml:11: error[validate]: VirtualService ns/vs: spec.virtualHost.routes[0].routAction: unknown field "routAction" — did you mean routeAction? Allowed fields here: ${ROUTE_FIELDS}`,
  ]);
});

test('a misspelt required field is reported once, as the unknown field', () => {
  const { diagnostics } = validate(vs('    domain: [a]\n'));
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    'in.yaml:8: error[validate]: VirtualService ns/vs: spec.virtualHost.domain: unknown field "domain" — did you mean domains? Allowed fields here: domains, routes, options, optionsConfigRefs',
  ]);
});

test('an unknown field that is no near miss leaves the other errors of its object, and gets no suggestion', () => {
  const { diagnostics } = validate(
    vs('    domains: [a]\n    routes:\n      - matchers: [{prefix: /}]\n        colour: red\n'),
  );
  expect(diagnostics.map((d) => `${d.line} ${d.field}: ${d.message} — ${d.hint}`)).toEqual([
    '10 spec.virtualHost.routes[0]: exactly one of "routeAction", "graphqlApiRef", "redirectAction", "directResponseAction", "delegateAction" must be set — add one of them',
    `11 spec.virtualHost.routes[0].colour: unknown field "colour" — allowed fields here: ${ROUTE_FIELDS}`,
  ]);
});

test('every error of a document is reported, not just the first', () => {
  const { diagnostics } = validate(
    vs(
      '    domains: a\n    routes:\n      - matchers: [{prefix: x}]\n        routeAction: {single: {kube: {ref: {name: s}, port: 0}}}\n',
    ),
  );
  expect(diagnostics.map((d) => `${d.line} ${d.field}: ${d.message}`)).toEqual([
    '8 spec.virtualHost.domains: must be of type array',
    '10 spec.virtualHost.routes[0].matchers[0].prefix: does not match the required form ^/',
    '11 spec.virtualHost.routes[0].routeAction.single.kube.port: must be >= 1',
  ]);
});

test('exactly-one choices are reported once, in words', () => {
  const { diagnostics } = validate(
    'apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: u}\nspec:\n  kube: {serviceName: a, servicePort: 80}\n  static: {hosts: [{addr: 1.2.3.4, port: 80}]}\n',
  );
  expect(diagnostics.map((d) => `${d.field}: ${d.message}`)).toEqual([
    'spec: exactly one of "kube", "static", "aws" must be set',
  ]);
});

test('every validation error says what to do', () => {
  const both = validate(
    'apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: u}\nspec:\n  kube: {serviceName: a, servicePort: "80", selector: {app: true}}\n  static: {hosts: [{addr: 1.2.3.4, port: 80}]}\n',
  );
  const neither = validate(vs('    domains: []\n    routes:\n      - matchers: [{prefix: /}]\n'));
  // A Kubernetes kind is not proto3 JSON: a quoted port is refused there (a Gloo kind takes it, see proto3-json.test.ts).
  const service = validate('apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: "80"}]\n');
  expect(
    [...both.diagnostics, ...neither.diagnostics, ...service.diagnostics].map((d) => `${d.field}: ${d.hint}`),
  ).toEqual([
    'spec: keep one of kube, static and remove the others',
    'spec.kube.selector.app: quote the value (unquoted, YAML reads it as a number or boolean)',
    'spec.virtualHost.domains: list at least 1 item',
    'spec.virtualHost.routes[0]: add one of them',
    'spec.ports[0].port: remove the quotes around the number',
  ]);
});

test('a Secret value of the wrong type is reported without echoing it', () => {
  const { diagnostics } = validate(
    'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {username: cn=a, password: 987654321}\n',
  );
  expect(diagnostics).toHaveLength(1);
  expect(formatDiagnostic(diagnostics[0])).not.toContain('987654321');
});

test('Kubernetes metadata and status are accepted; namespace defaults to "default"', () => {
  const { resources, diagnostics } = validate(
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  labels: {a: b}\n  annotations: {c: d}\n  uid: x\n  resourceVersion: "1"\n  generation: 2\n  creationTimestamp: now\n  ownerReferences: []\n  managedFields: []\nspec:\n  ports: [{port: 80}]\nstatus: {loadBalancer: {}}\n',
  );
  expect(diagnostics).toEqual([]);
  expect(resources[0].namespace).toBe('default');
});

test('unknown apiVersion or kind names the known kinds', () => {
  const { diagnostics } = validate('apiVersion: gateway.gateway.example/v1\nkind: HTTPRoute\nmetadata: {name: g}\n');
  expect(diagnostics[0].message).toBe('unknown kind "HTTPRoute" in apiVersion "gateway.gateway.example/v1"');
  expect(diagnostics[0].hint).toContain('VirtualService (gateway.gateway.example/v1)');
});

test('a non-string RBAC claim value is a type error on the claim', () => {
  const { diagnostics } = validate(
    vs(
      '    domains: [a]\n    options:\n      rbac:\n        policies:\n          p:\n            permissions: {methods: [GET]}\n            principals:\n              - jwtPrincipal: {claims: {admin: true}}\n',
    ),
  );
  expect(diagnostics.map((d) => `${d.line} ${d.field}: ${d.message}`)).toEqual([
    '15 spec.virtualHost.options.rbac.policies.p.principals[0].jwtPrincipal.claims.admin: must be of type string',
  ]);
});

test('Secret data must be base64', () => {
  const { diagnostics } = validate(
    'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  password: "not base64!"\n',
  );
  expect(diagnostics[0].field).toBe('data.password');
  expect(diagnostics[0].hint).toMatch(/stringData/);
});

test('every kind of every apiVersion has a schema that compiles (each is compiled when first used, so this asks for all)', () => {
  for (const { apiVersion, kind } of KINDS) {
    const { resources, diagnostics } = validate(
      `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: x, namespace: ns}\nspec: {}\n`,
    );
    // An empty spec is valid for some kinds and not for others; either way a schema ran and answered.
    expect(resources.length + diagnostics.length).toBeGreaterThan(0);
  }
});

test('an apiVersion or kind that names a property of every object finds no schema', () => {
  const { resources, diagnostics } = validate('apiVersion: constructor\nkind: name\nmetadata: {name: x}\nspec: {}\n');
  expect(resources).toEqual([]);
  expect(diagnostics[0]!.message).toMatch(/apiVersion/);
});
