import { formatDiagnostic } from '../diagnostics.js';
import { parseText } from '../load/load.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { validateDocuments, type Resource } from '../validate/validate.js';
import { resolve, ResolveMemo } from './resolve.js';

/** Each document parsed on its own, so a test can keep a resource's object across runs (as an unchanged file does). */
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
const vs = (routes: string) =>
  parse(
    'vs.yaml',
    `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: v, namespace: x}\nspec:\n  virtualHost:\n    domains: [d]\n    routes:\n${routes}`,
  );
const table = (name: string, extra: string, routes: string) =>
  parse(
    `${name}.yaml`,
    `apiVersion: gateway.solo.io/v1\nkind: RouteTable\nmetadata: {name: ${name}, namespace: x${extra}}\nspec:\n  routes:\n${routes}`,
  );
const leaf = (prefix: string, more = '') =>
  `    - matchers: [{prefix: ${prefix}}]\n      routeAction: {single: {upstream: {name: u}}}\n${more}`;
const paths = (model: ReturnType<typeof resolve>['model']) =>
  model.virtualHosts[0]!.routes.map((r) => r.match.path.value);

test('an incremental resolve sees a RouteTable added to a selector, and an edited one; unchanged inputs reuse the virtual host', () => {
  const memo = new ResolveMemo();
  const root = vs('      - matchers: [{prefix: /a}]\n        delegateAction: {selector: {labels: {team: a}}}\n');
  const one = table('one', ', labels: {team: a}', leaf('/a/1'));
  const first = resolve([upstream, root, one], DEFAULT_OPTIONS, memo);
  expect(first.diagnostics).toEqual([]);
  expect(paths(first.model)).toEqual(['/a/1']);
  // Nothing changed: the memoized virtual host comes back as it was.
  const again = resolve([upstream, root, one], DEFAULT_OPTIONS, memo);
  expect(again.model.virtualHosts[0]).toBe(first.model.virtualHosts[0]);
  // A new table the selector matches (weight -1 sorts it first).
  const two = parse(
    'two.yaml',
    'apiVersion: gateway.solo.io/v1\nkind: RouteTable\nmetadata: {name: two, namespace: x, labels: {team: a}}\nspec:\n  weight: -1\n  routes:\n' +
      leaf('/a/2'),
  );
  const added = resolve([upstream, root, one, two], DEFAULT_OPTIONS, memo);
  expect(paths(added.model)).toEqual(['/a/2', '/a/1']);
  // An edited table, the VirtualService's object unchanged.
  const edited = resolve(
    [upstream, root, table('one', ', labels: {team: a}', leaf('/a/3')), two],
    DEFAULT_OPTIONS,
    memo,
  );
  expect(paths(edited.model)).toEqual(['/a/2', '/a/3']);
  // A table relabelled out of the selector.
  const relabelled = resolve(
    [upstream, root, table('one', ', labels: {team: b}', leaf('/a/3')), two],
    DEFAULT_OPTIONS,
    memo,
  );
  expect(paths(relabelled.model)).toEqual(['/a/2']);
  expect(relabelled.diagnostics.map((d) => d.message)).toEqual([
    'no VirtualService delegates to this RouteTable, so its routes are served nowhere',
  ]);
});

test("delegated routes take the delegating route's options they can use, per field; a problem in them is reported once, where it is written", () => {
  const root = vs(
    '      - matchers: [{prefix: /a}]\n        delegateAction: {ref: {name: t}}\n        options: {timeout: 5s, prefixRewrite: /p, headerManipulation: {requestHeadersToRemove: [x-a]}}\n',
  );
  const children = table(
    't',
    '',
    [
      leaf('/a/own', '      options: {regexRewrite: {pattern: {regex: "^/a"}, substitution: /r}}\n'),
      leaf('/a/inherit'),
      '    - matchers: [{prefix: /a/moved}]\n      redirectAction: {pathRedirect: /elsewhere}\n',
    ].join(''),
  );
  const { model, diagnostics } = resolve([upstream, root, children], DEFAULT_OPTIONS);
  expect(diagnostics).toEqual([]);
  const [own, inherit, moved] = model.virtualHosts[0]!.routes;
  // The child's own path rewrite replaces the parent's (one rewrite at a time, as Envoy takes it).
  expect(own!.options).toEqual({
    timeout: '5s',
    regexRewrite: { pattern: '^/a', substitution: '/r' },
    headers: { requestAdd: [], requestRemove: ['x-a'], responseAdd: [], responseRemove: [] },
  });
  expect(inherit!.options).toMatchObject({ timeout: '5s', prefixRewrite: '/p' });
  // A redirect forwards nothing: it takes the headers, not the timeout or the rewrite.
  expect(moved!.options).toEqual({
    headers: { requestAdd: [], requestRemove: ['x-a'], responseAdd: [], responseRemove: [] },
  });

  const bad = vs(
    '      - matchers: [{prefix: /a}]\n        delegateAction: {ref: {name: t}}\n        options: {timeout: soon}\n',
  );
  const twice = resolve([upstream, bad, table('t', '', leaf('/a/1') + leaf('/a/2'))], DEFAULT_OPTIONS);
  expect(twice.diagnostics.map(formatDiagnostic)).toEqual([
    'vs.yaml:10: error[resolve]: VirtualService x/v: spec.virtualHost.routes[0].options.timeout: "soon" is not a duration — write a number with a unit, e.g. "15s", "0.250s", "250ms" or "1m30s" ("0s": no timeout)',
  ]);
});

test("inheritableMatchers: delegated routes add the delegating matcher's headers and methods; without it they must repeat them", () => {
  const root = (flag: string) =>
    vs(
      `      - matchers: [{prefix: /a, methods: [GET], headers: [{name: x-t, value: "1"}]}]\n${flag}        delegateAction: {ref: {name: t}}\n`,
    );
  const child = table('t', '', leaf('/a/1'));
  const inherited = resolve([upstream, root('        inheritableMatchers: true\n'), child], DEFAULT_OPTIONS);
  expect(inherited.diagnostics).toEqual([]);
  expect(inherited.model.virtualHosts[0]!.routes[0]!.match).toMatchObject({
    methods: ['GET'],
    headers: [{ name: 'x-t', value: { kind: 'exact', value: '1' }, invert: false }],
  });
  const strict = resolve([upstream, root(''), child], DEFAULT_OPTIONS);
  expect(strict.diagnostics.map(formatDiagnostic)).toEqual([
    "t.yaml:6: error[resolve]: RouteTable x/t: spec.routes[0].matchers[0]: the matcher lacks headers the delegating matcher (VirtualService x/v at vs.yaml:8) requires — repeat the delegating matcher's headers here, or set inheritableMatchers on the delegating route",
  ]);
});

test('tables whose routes select each other: an error once the inlined routes pass the bound, not a compile that never ends', () => {
  const root = vs('      - matchers: [{prefix: /a}]\n        delegateAction: {selector: {labels: {mesh: "yes"}}}\n');
  const tables = Array.from({ length: 8 }, (_, i) =>
    table(
      `m${i}`,
      ', labels: {mesh: "yes"}',
      `    - inheritablePathMatchers: true\n      delegateAction: {selector: {labels: {mesh: "yes"}}}\n${leaf(`/a/${i}`)}`,
    ),
  );
  const { diagnostics } = resolve([upstream, root, ...tables], DEFAULT_OPTIONS);
  expect(diagnostics.filter((d) => d.severity !== 'warning').map((d) => d.message)).toContain(
    'delegation inlines more than 10000 routes into VirtualService x/v',
  );
});

test("a route's Gloo name, and those of the routes that delegated to it, follow its position in Envoy's route name", () => {
  const root = vs(
    '      - name: team-a\n        matchers: [{prefix: /a}]\n        delegateAction: {ref: {name: one}}\n      - matchers: [{prefix: /b}]\n        delegateAction: {ref: {name: two}}\n      - name: home\n        matchers: [{prefix: /}, {exact: /index.html}]\n        routeAction: {single: {upstream: {name: u}}}\n',
  );
  const one = table('one', '', leaf('/a/1', '      name: first\n') + leaf('/a'));
  const two = table('two', '', leaf('/b/1') + leaf('/b', '      name: named-inside\n'));
  const { model, diagnostics } = resolve([upstream, root, one, two], DEFAULT_OPTIONS);
  expect(diagnostics).toEqual([]);
  expect(model.virtualHosts[0]!.routes.map((r) => r.name)).toEqual([
    'x.v/0:team-a/first (RouteTable x/one)',
    'x.v/1:team-a (RouteTable x/one)',
    'x.v/2 (RouteTable x/two)',
    'x.v/3:named-inside (RouteTable x/two)',
    'x.v/4:home',
    'x.v/5:home',
  ]);
});
