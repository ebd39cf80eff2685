import { formatDiagnostic } from '../diagnostics.js';
import { parseText } from '../load/load.js';
import { validateDocuments } from './validate.js';

function validate(text: string) {
  const loaded = parseText('in.yaml', text);
  expect(loaded.diagnostics).toEqual([]);
  return validateDocuments(loaded.documents);
}

const vs = (group: string, virtualHost: string) =>
  `apiVersion: ${group}\nkind: VirtualService\nmetadata:\n  name: vs\n  namespace: ns\nspec:\n  virtualHost:\n    domains: [a]\n${virtualHost}`;
const route = (body: string) => `    routes:\n      - ${body}\n`;

test("Gloo's API groups are aliases: the resource is the same as under Sluice's", () => {
  const body = route('matchers: [{prefix: /}]\n        routeAction: {single: {upstream: {name: u}}}');
  const ours = validate(vs('gateway.gateway.example/v1', body));
  const gloo = validate(vs('gateway.solo.io/v1', body));
  expect(gloo.diagnostics).toEqual([]);
  expect(gloo.resources[0].apiVersion).toBe('gateway.gateway.example/v1');
  expect(gloo.resources[0].spec).toEqual(ours.resources[0].spec);
  for (const [group, kind, spec] of [
    ['gloo.solo.io/v1', 'Upstream', 'kube: {serviceName: s, servicePort: 80}'],
    [
      'enterprise.gloo.solo.io/v1',
      'AuthConfig',
      'configs: [{ldap: {address: "ldap://l:389", userDnTemplate: "uid=%s", allowedGroups: []}}]',
    ],
    ['graphql.gloo.solo.io/v1beta1', 'GraphQLApi', 'stitchedSchema: {subschemas: [{name: a}]}'],
  ]) {
    expect(
      validate(`apiVersion: ${group}\nkind: ${kind}\nmetadata: {name: x}\nspec:\n  ${spec}\n`).diagnostics,
    ).toEqual([]);
  }
});

test('an unsupported field is reported, with the reason, instead of a misleading schema hint', () => {
  const cases: [string, string][] = [
    [
      route('matchers: [{connectMatcher: {}}]\n        routeAction: {single: {upstream: {name: u}}}'),
      'spec.virtualHost.routes[0].matchers[0].connectMatcher: "connectMatcher" is not supported: CONNECT requests are not proxied — remove connectMatcher',
    ],
    [
      route('options: {dlp: {}}\n        delegateAction: {selector: {expressions: [{key: a, operator: Exists}]}}'),
      'spec.virtualHost.routes[0].options.dlp: "dlp" is not supported: it needs Gloo\'s own Envoy build (envoy-gloo filters), and Sluice configures upstream Envoy — remove dlp',
    ],
    [
      route('routeAction: {multi: {destinations: [{destination: {upstream: {name: u}}, options: {extauth: {}}}]}}'),
      'spec.virtualHost.routes[0].routeAction.multi.destinations[0].options.extauth: "extauth" is not supported: per-destination ext auth settings are not built (Envoy could hold them in the destination\'s per-filter config) — set extauth on the route\'s options',
    ],
  ];
  for (const [body, expected] of cases) {
    const { resources, diagnostics } = validate(vs('gateway.solo.io/v1', body));
    expect(resources).toEqual([]);
    expect(diagnostics.map((d) => `${d.field}: ${d.message} — ${d.hint}`)).toEqual([expected]);
  }
});

test("fields that need Gloo's Envoy build and rate limit features Envoy lacks say so", () => {
  const { diagnostics } = validate(
    vs(
      'gateway.solo.io/v1',
      `    options:\n      stagedTransformations: {}\n      ratelimit: {rateLimits: [{actions: [{cel: {}}]}]}\n`,
    ),
  );
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    `in.yaml:10: error[validate]: VirtualService ns/vs: spec.virtualHost.options.stagedTransformations: "stagedTransformations" is not supported: it needs Gloo's own Envoy build (envoy-gloo filters), and Sluice configures upstream Envoy — remove stagedTransformations`,
    'in.yaml:11: error[validate]: VirtualService ns/vs: spec.virtualHost.options.ratelimit.rateLimits[0].actions[0].cel: "cel" is not supported: CEL actions are evaluated only by agentgateway, not by Envoy — remove cel',
  ]);
  const azure = validate(
    'apiVersion: gloo.solo.io/v1\nkind: Upstream\nmetadata: {name: l}\nspec:\n  azure: {functionAppName: shop}\n',
  );
  expect(azure.diagnostics.map((d) => d.message)).toEqual([
    `"azure" is not supported: it needs Gloo's own Envoy build (envoy-gloo filters), and Sluice configures upstream Envoy`,
  ]);
});

test("Gloo's deprecated oauth AuthConfig is refused as such, not asked for another kind", () => {
  const { diagnostics } = validate(
    'apiVersion: enterprise.gloo.solo.io/v1\nkind: AuthConfig\nmetadata: {name: a}\nspec:\n  configs:\n    - oauth: {appUrl: http://app}\n',
  );
  expect(diagnostics.map((d) => `${d.field}: ${d.message} — ${d.hint}`)).toEqual([
    'spec.configs[0].oauth: "oauth" is not supported: Gloo\'s deprecated form of OpenID Connect login — use oauth2.oidcAuthorizationCode',
  ]);
});

test('schema hints come back once nothing unsupported is left', () => {
  const { diagnostics } = validate(
    vs(
      'gateway.solo.io/v1',
      route('matchers: [{prefix: /, typo: 1}]\n        routeAction: {single: {upstream: {name: u}}}'),
    ),
  );
  expect(diagnostics.map((d) => d.message)).toEqual(['unknown field "typo"']);
});

test("a RouteTable is read under Gloo's group; a delegateAction names its tables one way only", () => {
  const table = validate(
    'apiVersion: gateway.solo.io/v1\nkind: RouteTable\nmetadata: {name: r}\nspec:\n  weight: 10\n  routes:\n    - matchers: [{prefix: /a/b}]\n      delegateAction: {selector: {namespaces: ["*"], labels: {team: a}}}\n',
  );
  expect(table.diagnostics).toEqual([]);
  expect(table.resources[0]).toMatchObject({ apiVersion: 'gateway.gateway.example/v1', kind: 'RouteTable' });
  // Gloo would silently ignore ref when the deprecated name is set.
  const both = validate(
    vs('gateway.solo.io/v1', route('matchers: [{prefix: /}]\n        delegateAction: {name: a, ref: {name: b}}')),
  );
  expect(both.diagnostics.map((d) => `${d.field}: ${d.message}`)).toEqual([
    'spec.virtualHost.routes[0].delegateAction: exactly one of "ref", "selector", "name" must be set',
  ]);
  // Gloo would select nothing with both.
  const mixed = validate(
    vs(
      'gateway.solo.io/v1',
      route('delegateAction: {selector: {labels: {a: b}, expressions: [{key: a, operator: In, values: [b]}]}}'),
    ),
  );
  expect(mixed.diagnostics.map((d) => d.field)).toEqual(['spec.virtualHost.routes[0].delegateAction.selector']);
  const badKey = validate(
    vs('gateway.solo.io/v1', route('delegateAction: {selector: {expressions: [{key: "-a", operator: Exists}]}}')),
  );
  expect(badKey.diagnostics.map((d) => d.field)).toEqual([
    'spec.virtualHost.routes[0].delegateAction.selector.expressions[0].key',
  ]);
});

test('a wrong apiVersion names both groups the kind is accepted under', () => {
  const { diagnostics } = validate('apiVersion: gloo.solo.io/v2\nkind: Upstream\nmetadata: {name: u}\nspec: {}\n');
  expect(diagnostics[0].hint).toBe('use "gloo.gateway.example/v1" or "gloo.solo.io/v1"');
});

test('metadata as the API server writes it, a status block and discoveryMetadata are accepted', () => {
  const text = [
    'apiVersion: gloo.solo.io/v1',
    'kind: Upstream',
    'metadata:',
    '  annotations:',
    '  labels:',
    '  creationTimestamp: "2024-05-01T10:00:00Z"',
    '  generation: 3',
    '  name: default-users-80',
    '  namespace: gloo-system',
    '  resourceVersion: "123456"',
    '  selfLink: /apis/gloo.solo.io/v1/namespaces/gloo-system/upstreams/default-users-80',
    '  uid: 0b5b7c9e-4d6a-4e43-9d0f-0f2b8c1d2e3f',
    '  finalizers: [example.com/keep]',
    '  ownerReferences: [{apiVersion: v1, kind: Service, name: users, uid: x}]',
    '  managedFields: [{manager: discovery, operation: Update}]',
    'spec:',
    '  discoveryMetadata:',
    '    labels: {app: users}',
    '  kube: {serviceName: users, serviceNamespace: default, servicePort: 80}',
    'status:',
    '  statuses:',
    '    gloo-system: {reportedBy: gloo, state: 1}',
  ].join('\n');
  const { resources, diagnostics } = validate(text);
  expect(diagnostics).toEqual([]);
  expect(resources[0]).toMatchObject({ kind: 'Upstream', name: 'default-users-80', namespace: 'gloo-system' });
});
