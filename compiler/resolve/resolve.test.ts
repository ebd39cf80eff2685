import { generateKeyPairSync } from 'node:crypto';
import { formatDiagnostic } from '../diagnostics.js';
import { parseText } from '../load/load.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { validateDocuments } from '../validate/validate.js';
import { resolve, ResolveMemo } from './resolve.js';

function resolveText(text: string) {
  const loaded = parseText('in.yaml', text);
  const validated = validateDocuments(loaded.documents);
  expect([...loaded.diagnostics, ...validated.diagnostics].map(formatDiagnostic)).toEqual([]);
  return resolve(validated.resources, DEFAULT_OPTIONS);
}

/** An Ed25519 public JWK, on one line for a flow-style YAML value. */
const JWK = JSON.stringify(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }));

const service = (name: string, ns: string, ports: number[]) =>
  `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  ports: [${ports.map((p) => `{port: ${p}}`).join(', ')}]\n---\n`;

test('kube refs become discovered upstreams with DNS names; only referenced upstreams are kept', () => {
  const { model, diagnostics } = resolveText(
    service('a', 'x', [80, 81]) +
      service('unused', 'x', [1]) +
      'apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: x}\nspec:\n  virtualHost:\n    domains: [d]\n    routes:\n      - matchers: [{prefix: /a}, {prefix: /b}]\n        routeAction: {single: {kube: {ref: {name: a}, port: 81}}}\n',
  );
  expect(diagnostics).toEqual([]);
  expect(model.upstreams.map((u) => [u.name, u.target])).toEqual([
    ['x-a-81', { kind: 'dns', host: 'a.x.svc.cluster.local', port: 81 }],
  ]);
  expect(model.virtualHosts[0].routes.map((r) => [r.name, r.match.path.value, r.action])).toEqual([
    ['x.v/0', '/a', { kind: 'cluster', cluster: 'x-a-81' }],
    ['x.v/1', '/b', { kind: 'cluster', cluster: 'x-a-81' }],
  ]);
});

test('an explicit Upstream in the control plane namespace overrides the discovered one', () => {
  const { model } = resolveText(
    service('a', 'x', [80]) +
      'apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: x-a-80, namespace: sluice-system}\nspec:\n  static: {hosts: [{addr: 127.0.0.1, port: 9000}]}\n---\n' +
      'apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: x}\nspec:\n  virtualHost:\n    domains: [d]\n    routes:\n      - routeAction: {single: {kube: {ref: {name: a}, port: 80}}}\n',
  );
  expect(model.upstreams[0].target).toEqual({ kind: 'static', hosts: [{ address: '127.0.0.1', port: 9000 }] });
});

test("a discovered name referenced in a namespace that is neither the discovered one nor the Service's: the error says where it lives and names --namespace", () => {
  const route = (ns: string) =>
    `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: web}\nspec:\n  virtualHost:\n    domains: [d]\n    routes:\n      - routeAction: {single: {upstream: {name: shop-orders-8080, namespace: ${ns}}}}\n`;
  const { diagnostics } = resolveText(service('orders', 'shop', [8080]) + route('team-a'));
  expect(diagnostics.map((d) => [d.field, d.message, d.hint])).toEqual([
    [
      'spec.virtualHost.routes[0].routeAction.single.upstream',
      'Upstream team-a/shop-orders-8080 not found: "shop-orders-8080" is discovered from Service shop/orders port 8080, in namespace "sluice-system" (the --namespace setting), not "team-a"',
      'reference it in namespace "sluice-system" or "shop" (the Service\'s own), or run sluice with --namespace team-a if that is where your discovered Upstreams live',
    ],
  ]);
  // Run with that namespace, it is found there.
  const loaded = parseText('in.yaml', service('orders', 'shop', [8080]) + route('team-a'));
  const moved = resolve(validateDocuments(loaded.documents).resources, {
    ...DEFAULT_OPTIONS,
    controlPlaneNamespace: 'team-a',
  });
  expect(moved.diagnostics).toEqual([]);
  expect(moved.model.upstreams.map((u) => `${u.namespace}/${u.name}`)).toEqual(['team-a/shop-orders-8080']);
  // A name no Service gives keeps the plain answer.
  expect(resolveText(route('team-a')).diagnostics.map((d) => d.hint)).toEqual([
    'define an Upstream (gloo.gateway.example/v1) named "shop-orders-8080" in namespace "team-a", or a v1 Service whose port gives that discovered name (<namespace>-<service>-<port>)',
  ]);
});

test("gloo-system (Gloo's default discovery namespace) finds the discovered Upstream, and the Upstreams of --namespace; an Upstream really in gloo-system comes first", () => {
  const route = (upstream: string, ns = 'web') =>
    `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: ${ns}}\nspec:\n  virtualHost:\n    domains: [d]\n    routes:\n      - routeAction: {single: {upstream: ${upstream}}}\n---\n`;
  const upstreamIn = (ns: string, port: number) =>
    `apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: shop-orders-8080, namespace: ${ns}}\nspec:\n  static: {hosts: [{addr: 127.0.0.1, port: ${port}}]}\n---\n`;
  const target = (text: string) => {
    const { model, diagnostics } = resolveText(text);
    expect(diagnostics).toEqual([]);
    return model.upstreams.map((u) => u.target);
  };
  const svc = service('orders', 'shop', [8080]);
  const discovered = [{ kind: 'dns', host: 'orders.shop.svc.cluster.local', port: 8080 }];
  expect(target(svc + route('{name: shop-orders-8080, namespace: gloo-system}'))).toEqual(discovered);
  // A VirtualService in gloo-system (as Gloo's examples have them) referring by name alone.
  expect(target(svc + route('{name: shop-orders-8080}', 'gloo-system'))).toEqual(discovered);
  // The override in the discovered namespace is what gloo-system names too.
  expect(
    target(svc + upstreamIn('sluice-system', 9000) + route('{name: shop-orders-8080, namespace: gloo-system}')),
  ).toEqual([{ kind: 'static', hosts: [{ address: '127.0.0.1', port: 9000 }] }]);
  expect(
    target(
      svc +
        upstreamIn('gloo-system', 9001) +
        upstreamIn('sluice-system', 9000) +
        route('{name: shop-orders-8080, namespace: gloo-system}'),
    ),
  ).toEqual([{ kind: 'static', hosts: [{ address: '127.0.0.1', port: 9001 }] }]);
});

test('an incremental resolve gives the error of a reference its new hint when the Service it meant appears', () => {
  const parse = (text: string) => validateDocuments(parseText('in.yaml', text).documents).resources;
  const [vs] = parse(
    'apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: web}\nspec:\n  virtualHost:\n    domains: [d]\n    routes:\n      - routeAction: {single: {upstream: {name: shop-orders-8080, namespace: team-a}}}\n',
  );
  const memo = new ResolveMemo();
  const hints = (resources: (typeof vs)[]) => resolve(resources, DEFAULT_OPTIONS, memo).diagnostics.map((d) => d.hint);
  expect(hints([vs])).toEqual([expect.stringMatching(/^define an Upstream/)]);
  expect(hints([vs, ...parse(service('orders', 'shop', [8080]))])).toEqual([
    expect.stringMatching(/^reference it in namespace "sluice-system"/),
  ]);
});

test('service-account credentials are read from the Secret (stringData over base64 data)', () => {
  const { model, diagnostics } = resolveText(
    'apiVersion: v1\nkind: Secret\nmetadata: {name: sa, namespace: auth}\ndata:\n  username: ' +
      Buffer.from('cn=reader,dc=example,dc=org').toString('base64') +
      '\n  password: ' +
      Buffer.from('wrong').toString('base64') +
      '\nstringData:\n  password: s3cret\n---\n' +
      'apiVersion: enterprise.gateway.example/v1\nkind: AuthConfig\nmetadata: {name: ldap, namespace: auth}\nspec:\n  configs:\n    - ldap:\n        address: ldap://h:389\n        userDnTemplate: uid=%s,dc=example,dc=org\n        allowedGroups: ["cn=g,dc=example,dc=org"]\n        groupLookupSettings: {checkGroupsWithServiceAccount: true, credentialsSecretRef: {name: sa}}\n',
  );
  expect(diagnostics).toEqual([]);
  expect(model.authConfigs[0]).toMatchObject({
    name: 'auth.ldap',
    configs: [
      {
        kind: 'ldap',
        ldap: {
          searchFilter: '(uid=*)',
          membershipAttributeName: 'memberOf',
          pool: { initialSize: 2, maxSize: 5 },
          serviceAccount: { username: 'cn=reader,dc=example,dc=org', password: 's3cret' },
        },
      },
    ],
  });
});

test('domains are unique across virtual services, case-insensitively, and the error names both places', () => {
  const vs = (name: string, domain: string) =>
    `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: ${name}}\nspec:\n  virtualHost:\n    domains: ['${domain}']\n---\n`;
  const { diagnostics } = resolveText(vs('a', 'Example.com') + vs('b', 'example.COM'));
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    'in.yaml:13: error[resolve]: VirtualService default/b: spec.virtualHost.domains[0]: domain "example.COM" is claimed twice: VirtualService default/a (in.yaml:6) already claims it — a domain may belong to one virtual host only; Envoy rejects duplicates',
  ]);
});

test("two VirtualServices whose JWT providers would share one jwt_authn entry: an error, never one host using the other host's keys", () => {
  const vs = (name: string, provider: string, issuer: string) =>
    `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: ${name}, namespace: x}\nspec:\n  virtualHost:\n    domains: [${name}.example]\n    options:\n      jwt:\n        providers:\n          ${provider}:\n            issuer: ${issuer}\n            jwks: {local: {key: '${JWK}'}}\n---\n`;
  const { diagnostics } = resolveText(vs('a', 'b.c', 'https://a.example') + vs('a.b', 'c', 'https://evil.example'));
  // An error: the compile stops, so no output carries the shared entry.
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    'in.yaml:23: error[resolve]: VirtualService x/a.b: spec.virtualHost.options.jwt.providers.c: JWT provider name "x.a.b.c" is also produced by VirtualService x/a — rename this provider (or the VirtualService) so that <namespace>.<virtualservice>.<provider> is unique',
  ]);
});

test('Services whose discovered names collide (a-b/c and a/b-c, port 80): each route reaches its own Service; both in one output is an error, a by-name reference is ambiguous', () => {
  const route = (name: string, ns: string, action: string) =>
    `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  virtualHost:\n    domains: [${name}.${ns}]\n    routes:\n      - routeAction: {single: ${action}}\n---\n`;
  const services = service('c', 'a-b', [80]) + service('b-c', 'a', [80]);

  for (const [ns, svc] of [
    ['a', 'b-c'],
    ['a-b', 'c'],
  ]) {
    const one = resolveText(services + route('v', ns, `{kube: {ref: {name: ${svc}}, port: 80}}`));
    expect(one.diagnostics).toEqual([]);
    expect(one.model.upstreams.map((u) => u.target)).toEqual([
      { kind: 'dns', host: `${svc}.${ns}.svc.cluster.local`, port: 80 },
    ]);
  }

  const both = resolveText(
    services +
      route('v', 'a-b', '{kube: {ref: {name: c}, port: 80}}') +
      route('w', 'a', '{kube: {ref: {name: b-c}, port: 80}}'),
  );
  expect(both.diagnostics.map((d) => d.message)).toEqual([
    'upstream sluice-system/a-b-c-80 and sluice-system/a-b-c-80 would both become cluster "a-b-c-80"',
  ]);
  // At the field of the later use, in resource order (a-b/v after a/w).
  expect(both.diagnostics.map((d) => [d.resource, d.field])).toEqual([
    ['VirtualService a-b/v', 'spec.virtualHost.routes[0].routeAction.single.kube'],
  ]);
  // Within one VirtualService too: at its second route.
  const twoRoutes = `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: a}\nspec:\n  virtualHost:\n    domains: [v.a]\n    routes:\n      - matchers: [{prefix: /one}]\n        routeAction: {single: {kube: {ref: {name: c, namespace: a-b}, port: 80}}}\n      - matchers: [{prefix: /two}]\n        routeAction: {single: {kube: {ref: {name: b-c}, port: 80}}}\n---\n`;
  const within = resolveText(services + twoRoutes);
  expect(within.diagnostics.map((d) => [d.resource, d.field, d.message])).toEqual([
    [
      'VirtualService a/v',
      'spec.virtualHost.routes[1].routeAction.single.kube',
      'upstream sluice-system/a-b-c-80 and sluice-system/a-b-c-80 would both become cluster "a-b-c-80"',
    ],
  ]);

  const byName = resolveText(services + route('v', 'sluice-system', '{upstream: {name: a-b-c-80}}'));
  expect(byName.diagnostics.map((d) => d.message)).toEqual([
    'Upstream name "a-b-c-80" is discovered from more than one Service (b-c.a.svc.cluster.local and c.a-b.svc.cluster.local)',
  ]);
});
