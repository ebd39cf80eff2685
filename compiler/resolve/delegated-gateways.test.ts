import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.js';
import { Compiler, compileFiles, type CompileResult } from '../pipeline.js';
import { DEFAULT_OPTIONS, type Json } from '../translate/output.js';
import { merged } from './delegated-gateways.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sluice-delegated-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COMMON = `apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: mq, namespace: shop}
spec:
  static: {hosts: [{addr: 10.0.2.9, port: 5671}]}
---
apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: shop, namespace: shop, labels: {exposure: public}}
spec:
  virtualHost:
    domains: [shop.example.com]
    routes: [{directResponseAction: {status: 200, body: shop}}]
---
apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: admin, namespace: shop, labels: {exposure: internal}}
spec:
  virtualHost:
    domains: [admin.example.com]
    routes: [{directResponseAction: {status: 200, body: admin}}]
`;

const HTTP_INTERNAL = `matcher: {sourcePrefixRanges: [{addressPrefix: 10.0.0.0, prefixLen: 8}]}
    httpGateway:
      virtualServiceSelector: {exposure: internal}
      options: {httpConnectionManagerSettings: {serverName: internal, xffNumTrustedHops: 1}}`;
const HTTP_PUBLIC = `httpGateway: {virtualServiceSelector: {exposure: public}}`;
const TCP_MQ = `matcher: {sourcePrefixRanges: [{addressPrefix: 192.168.0.0, prefixLen: 16}]}
    tcpGateway: {tcpHosts: [{name: mq, destination: {single: {upstream: {name: mq, namespace: shop}}}}]}`;

/** Compiles `text` (with the shared Upstream and VirtualServices) from a file of its own. */
async function compile(name: string, text: string) {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, `${COMMON}---\n${text}`);
  return compileFiles([file], DEFAULT_OPTIONS);
}

/** Its diagnostics but the warning that shop/admin, which only some cases serve, is served nowhere. */
const problems = (result: CompileResult) =>
  result.diagnostics.filter((d) => !d.message.includes('shop/admin is served by no Gateway')).map(formatDiagnostic);

const listener = (xds: { listeners: Map<string, Json> } | undefined) => [...xds!.listeners.values()][0]!;
/** A listener's filter chains with the names of their route configurations left out. */
const chains = (l: Json) =>
  JSON.parse(JSON.stringify(l.filter_chains).replace(/"route_config_name":"[^"]*"/g, '"route_config_name":"-"'));

test('delegated gateways compile to the filter chains matchedGateways with the same matchers and gateways make', async () => {
  const inline = await compile(
    'inline',
    `apiVersion: gateway.solo.io/v1
kind: Gateway
metadata: {name: edge, namespace: gloo-system}
spec:
  bindPort: 8080
  hybridGateway:
    matchedGateways:
      - ${HTTP_INTERNAL.replaceAll('\n    ', '\n        ')}
      - ${HTTP_PUBLIC}
      - ${TCP_MQ.replaceAll('\n    ', '\n        ')}
`,
  );
  expect(inline.diagnostics.map(formatDiagnostic)).toEqual([]);
  const delegated = await compile(
    'delegated',
    `apiVersion: gateway.solo.io/v1
kind: Gateway
metadata: {name: edge, namespace: gloo-system}
spec:
  bindPort: 8080
  hybridGateway:
    delegatedHttpGateways: {selector: {labels: {edge: 'yes'}}}
    delegatedTcpGateways: {ref: {name: mq, namespace: shop}}
---
apiVersion: gateway.solo.io/v1
kind: MatchableHttpGateway
metadata: {name: a-internal, namespace: ops, labels: {edge: 'yes'}}
spec:
  ${HTTP_INTERNAL.replaceAll('\n    ', '\n  ')}
---
apiVersion: gateway.gateway.example/v1
kind: MatchableHttpGateway
metadata: {name: b-public, namespace: shop, labels: {edge: 'yes'}}
spec:
  ${HTTP_PUBLIC}
---
apiVersion: gateway.solo.io/v1
kind: MatchableTcpGateway
metadata: {name: mq, namespace: shop}
spec:
  ${TCP_MQ.replaceAll('\n    ', '\n  ')}
`,
  );
  expect(delegated.diagnostics.map(formatDiagnostic)).toEqual([]);
  expect(chains(listener(delegated.xds))).toEqual(chains(listener(inline.xds)));
  // Each HTTP chain has its own route configuration, named after the resource it came from.
  expect([...delegated.xds!.routes.keys()]).toEqual([
    'listener-::-8080-ops.a-internal-routes',
    'listener-::-8080-shop.b-public-routes',
  ]);
  expect(delegated.ir!.gateways[0]!.chains.map((c) => c.virtualHosts)).toEqual([['shop.admin'], ['shop.shop']]);
});

const delegating = (delegation: string) => `apiVersion: gateway.solo.io/v1
kind: Gateway
metadata: {name: edge, namespace: gloo-system}
spec:
  bindPort: 8080
  hybridGateway:
    delegatedHttpGateways: ${delegation}
`;
const matchable = (name: string, namespace: string, labels: string, extra = '') => `---
apiVersion: gateway.solo.io/v1
kind: MatchableHttpGateway
metadata: {name: ${name}, namespace: ${namespace}, labels: ${labels}}
spec:
  matcher: {sourcePrefixRanges: [{addressPrefix: 10.${name.length}.0.0, prefixLen: 16}]${extra}}
  httpGateway: {virtualServices: [{name: shop, namespace: shop}]}
`;
const CANDIDATES =
  matchable('a', 'shop', '{team: shop, tier: "3"}') +
  matchable('bb', 'ops', '{team: ops}') +
  matchable('ccc', 'ops', '{team: ops, canary: "true"}') +
  matchable('dddd', 'shop', '{team: shop}', ', sslConfig: {sniDomains: [shop.example.com]}');

test.each([
  ['{}', ['ops/bb', 'ops/ccc', 'shop/a']],
  ["{selector: {namespaces: ['*']}}", ['ops/bb', 'ops/ccc', 'shop/a']],
  ['{selector: {namespaces: [ops]}}', ['ops/bb', 'ops/ccc']],
  ['{selector: {labels: {team: ops}}}', ['ops/bb', 'ops/ccc']],
  ['{selector: {labels: {team: ops}, expressions: [{key: canary, operator: DoesNotExist}]}}', ['ops/bb']],
  ['{selector: {expressions: [{key: tier, operator: GreaterThan, values: ["2"]}]}}', ['shop/a']],
  ['{selector: {expressions: [{key: team, operator: NotIn, values: [ops]}]}}', ['shop/a']],
  ['{ref: {name: bb, namespace: ops}}', ['ops/bb']],
  // Only those whose matcher has an sslConfig, as the delegation has one (Gloo's rule).
  ['{sslConfig: {sslFiles: {tlsCert: /etc/tls/tls.crt, tlsKey: /etc/tls/tls.key}}}', ['shop/dddd']],
])('delegatedHttpGateways %s selects %j', async (delegation, expected) => {
  const result = await compile('select', delegating(delegation) + CANDIDATES);
  const chosen = result.ir?.gateways[0]?.chains.map((c) => c.routes.replace(/^listener-::-8080-(.*)-routes$/, '$1'));
  const unused = result.diagnostics.filter((d) => d.message.startsWith('no Gateway delegates')).length;
  expect(problems(result).filter((d) => !d.includes('no Gateway delegates'))).toEqual([]);
  expect(chosen).toEqual(expected.map((r) => r.replace('/', '.')));
  expect(unused).toBe(4 - expected.length);
});

test("the Gateway's settings fill in what a MatchableHttpGateway leaves unset; preventChildOverrides makes them win", async () => {
  const child = matchable('a', 'shop', '{}').replace(
    'httpGateway: {virtualServices: [{name: shop, namespace: shop}]}',
    'httpGateway:\n    virtualServices: [{name: shop, namespace: shop}]\n    options: {httpConnectionManagerSettings: {serverName: child, idleTimeout: 5s}}',
  );
  const hcm = async (prevent: boolean) => {
    const result = await compile(
      'merge',
      delegating(
        `{ref: {name: a, namespace: shop}, preventChildOverrides: ${prevent}, httpConnectionManagerSettings: {serverName: parent, xffNumTrustedHops: 3}}`,
      ) + child,
    );
    expect(problems(result)).toEqual([]);
    const typed = ((listener(result.xds).filter_chains as Json[])[0]!.filters as Json[])[0]!.typed_config as Json;
    return {
      server: typed.server_name,
      hops: typed.xff_num_trusted_hops,
      idle: (typed.common_http_protocol_options as Json).idle_timeout,
    };
  };
  expect(await hcm(false)).toEqual({ server: 'child', hops: 3, idle: '5s' });
  expect(await hcm(true)).toEqual({ server: 'parent', hops: 3, idle: '5s' });
});

test('an edit of a MatchableHttpGateway reaches the listener on an incremental compile', async () => {
  const file = path.join(dir, 'incremental.yaml');
  const write = (server: string) =>
    writeFileSync(
      file,
      `${COMMON}---\n${delegating('{}')}${matchable('a', 'shop', '{}').replace(
        '{virtualServices',
        `{options: {httpConnectionManagerSettings: {serverName: ${server}}}, virtualServices`,
      )}`,
    );
  const compiler = new Compiler(DEFAULT_OPTIONS);
  const server = async () => {
    const result = await compiler.compile([file]);
    expect(problems(result)).toEqual([]);
    return (((listener(result.xds).filter_chains as Json[])[0]!.filters as Json[])[0]!.typed_config as Json)
      .server_name;
  };
  write('one');
  expect(await server()).toBe('one');
  write('two');
  expect(await server()).toBe('two');
});

describe('merged', () => {
  test('objects field by field; values and lists whole; the child wins a clash unless preventChildOverrides', () => {
    const parent = { a: 1, b: { x: 'p', y: 'p' }, list: [1, 2], only: { deep: true } };
    const child = { a: 2, b: { x: 'c' }, list: [3] };
    expect(merged(parent, child, false)).toEqual({
      value: { a: 2, b: { x: 'c', y: 'p' }, list: [3], only: { deep: true } },
      fromParent: [['b', 'y'], ['only']],
    });
    expect(merged(parent, child, true)).toEqual({
      value: { a: 1, b: { x: 'p', y: 'p' }, list: [1, 2], only: { deep: true } },
      fromParent: [['a'], ['b', 'x'], ['b', 'y'], ['list'], ['only']],
    });
  });

  test('one side missing: the other as it is', () => {
    expect(merged(undefined, { a: 1 }, true)).toEqual({ value: { a: 1 }, fromParent: [] });
    expect(merged({ a: 1 }, undefined, false)).toEqual({ value: { a: 1 }, fromParent: [[]] });
    expect(merged(undefined, undefined, false)).toEqual({ value: undefined, fromParent: [] });
  });
});
