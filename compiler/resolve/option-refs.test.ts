import { formatDiagnostic } from '../diagnostics.js';
import { parseText } from '../load/load.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { validateDocuments, type Resource } from '../validate/validate.js';
import { resolve, ResolveMemo } from './resolve.js';

function parse(file: string, text: string): Resource {
  const loaded = parseText(file, text);
  const validated = validateDocuments(loaded.documents);
  expect([...loaded.diagnostics, ...validated.diagnostics].map(formatDiagnostic)).toEqual([]);
  return validated.resources[0]!;
}

const upstream = parse(
  'u.yaml',
  'apiVersion: gloo.gateway.example/v1\nkind: Upstream\nmetadata: {name: u, namespace: x}\nspec:\n  static: {hosts: [{addr: 10.0.0.1, port: 80}]}\n',
);
const vs = (host: string, routes: string) =>
  parse(
    'vs.yaml',
    `apiVersion: gateway.solo.io/v1\nkind: VirtualService\nmetadata: {name: v, namespace: x}\nspec:\n  virtualHost:\n    domains: [d]\n${host}    routes:\n${routes}`,
  );
const option = (kind: 'RouteOption' | 'VirtualHostOption', name: string, options: string) =>
  parse(
    `${name}.yaml`,
    `apiVersion: gateway.solo.io/v1\nkind: ${kind}\nmetadata: {name: ${name}, namespace: x}\nspec:\n  options: ${options}\n`,
  );
const forward = '        routeAction: {single: {upstream: {name: u}}}\n';
const refs = (indent: string, ...names: string[]) =>
  `${indent}optionsConfigRefs: {delegateOptions: [${names.map((n) => `{name: ${n}}`).join(', ')}]}\n`;

test("a route's options: its own, then the first RouteOption listed that sets each one, then its parent's", () => {
  const root = vs(
    '',
    `      - matchers: [{prefix: /a}]\n        delegateAction: {ref: {name: t}}\n        options: {timeout: 5s, prefixRewrite: /parent}\n`,
  );
  const table = parse(
    't.yaml',
    `apiVersion: gateway.solo.io/v1\nkind: RouteTable\nmetadata: {name: t, namespace: x}\nspec:\n  routes:\n      - matchers: [{prefix: /a/1}]\n${forward}        options: {retries: {retryOn: 5xx}}\n${refs('        ', 'first', 'second')}`,
  );
  const first = option('RouteOption', 'first', '{timeout: 1s, retries: {retryOn: reset}}');
  // regexRewrite takes the place of the parent's prefixRewrite (Envoy takes one path rewrite).
  const second = option(
    'RouteOption',
    'second',
    '{timeout: 9s, regexRewrite: {pattern: {regex: "^/a"}, substitution: /r}}',
  );
  const { model, diagnostics } = resolve([upstream, root, table, first, second], DEFAULT_OPTIONS);
  expect(diagnostics).toEqual([]);
  expect(model.virtualHosts[0]!.routes[0]!.options).toEqual({
    retries: { retryOn: '5xx', numRetries: 1, retriableStatusCodes: [] },
    timeout: '1s',
    regexRewrite: { pattern: '^/a', substitution: '/r' },
  });
});

test("a virtual host's options: its own, then its VirtualHostOptions' in order; an edited VirtualHostOption is seen by an incremental resolve", () => {
  const memo = new ResolveMemo();
  const root = vs(
    `    options: {headerManipulation: {requestHeadersToRemove: [own]}}\n${refs('    ', 'one', 'two')}`,
    `      - matchers: [{prefix: /}]\n${forward}`,
  );
  const one = option(
    'VirtualHostOption',
    'one',
    '{headerManipulation: {requestHeadersToRemove: [one]}, cors: {allowOrigin: [a.example]}}',
  );
  const two = option('VirtualHostOption', 'two', '{retries: {retryOn: 5xx}, cors: {allowOrigin: [b.example]}}');
  const before = resolve([upstream, root, one, two], DEFAULT_OPTIONS, memo);
  expect(before.diagnostics).toEqual([]);
  const host = before.model.virtualHosts[0]!;
  expect(host.headers?.requestRemove).toEqual(['own']);
  expect(host.cors?.allowOrigins).toEqual([{ kind: 'exact', value: 'a.example' }]);
  expect(host.retries?.retryOn).toBe('5xx');
  const edited = option('VirtualHostOption', 'two', '{retries: {retryOn: reset}}');
  const after = resolve([upstream, root, one, edited], DEFAULT_OPTIONS, memo);
  expect(after.model.virtualHosts[0]!.retries?.retryOn).toBe('reset');
});

test('problems are reported where the option is written; a missing option resource is an error, not an open host', () => {
  const root = vs(refs('    ', 'gone'), `      - matchers: [{prefix: /}]\n${forward}${refs('        ', 'slow')}`);
  const slow = option('RouteOption', 'slow', '{timeout: soon}');
  const { diagnostics } = resolve([upstream, root, slow], DEFAULT_OPTIONS);
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    'vs.yaml:7: error[resolve]: VirtualService x/v: spec.virtualHost.optionsConfigRefs.delegateOptions[0]: VirtualHostOption x/gone not found — define the VirtualHostOption (gateway.gateway.example/v1) or remove the reference',
    'slow.yaml:5: error[resolve]: RouteOption x/slow: spec.options.timeout: "soon" is not a duration — write a number with a unit, e.g. "15s", "0.250s", "250ms" or "1m30s" ("0s": no timeout)',
  ]);
});

test("a VirtualHostOption's JWT providers and RBAC policies secure the host as inline ones do", () => {
  const root = vs(refs('    ', 'secure'), `      - matchers: [{prefix: /}]\n${forward}`);
  const secure = option(
    'VirtualHostOption',
    'secure',
    '{jwt: {providers: {p: {issuer: i, jwks: {remote: {url: "http://k/keys", upstreamRef: {name: u}}}}}}, rbac: {policies: {readers: {principals: [{jwtPrincipal: {claims: {role: reader}}}]}}}}',
  );
  const { model, diagnostics } = resolve([upstream, root, secure], DEFAULT_OPTIONS);
  expect(diagnostics).toEqual([]);
  const host = model.virtualHosts[0]!;
  expect(host.jwt?.providers.map((p) => [p.name, p.origin.resource])).toEqual([
    ['x.v.p', 'VirtualHostOption x/secure'],
  ]);
  expect(host.rbac?.policies.map((p) => p.name)).toEqual(['readers']);
});
