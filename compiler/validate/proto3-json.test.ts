import { readFileSync } from 'node:fs';
import { lowerCamel } from '../../contract/proto3-json.js';
import { formatDiagnostic } from '../diagnostics.js';
import { dumpIr } from '../ir/dump.js';
import { parseText } from '../load/load.js';
import { resolve } from '../resolve/resolve.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { goDuration } from './proto3-json.js';
import { validateDocuments } from './validate.js';

function validate(text: string) {
  const loaded = parseText('in.yaml', text);
  expect(loaded.diagnostics).toEqual([]);
  return validateDocuments(loaded.documents);
}

const upstream = (spec: string) =>
  `apiVersion: gloo.solo.io/v1\nkind: Upstream\nmetadata: {name: fares, namespace: rail}\nspec:\n${spec}`;
const vs = (virtualHost: string) =>
  `apiVersion: gateway.solo.io/v1\nkind: VirtualService\nmetadata: {name: vs, namespace: rail}\nspec:\n${virtualHost}`;

test('64-bit and other integers given as strings are read as numbers, as Gloo reads proto3 JSON', () => {
  const { resources, diagnostics } = validate(
    upstream(
      '  static: {hosts: [{addr: 10.0.0.1, port: "8080"}]}\n  loadBalancerConfig:\n    healthyPanicThreshold: "12.5"\n    ringHash: {ringHashConfig: {minimumRingSize: "1024", maximumRingSize: 2048}}\n',
    ),
  );
  expect(diagnostics).toEqual([]);
  const spec = resources[0]!.spec as {
    static: { hosts: { port: unknown }[] };
    loadBalancerConfig: { healthyPanicThreshold: unknown; ringHash: { ringHashConfig: unknown } };
  };
  expect(spec.static.hosts[0]!.port).toBe(8080);
  expect(spec.loadBalancerConfig.healthyPanicThreshold).toBe(12.5);
  expect(spec.loadBalancerConfig.ringHash.ringHashConfig).toEqual({ minimumRingSize: 1024, maximumRingSize: 2048 });
});

test('an enum written as its number is read as its name, as protojson reads it; a number the enum lacks is refused with the names', () => {
  const redirect = (code: string) =>
    vs(
      `  virtualHost:\n    domains: [a]\n    routes:\n      - redirectAction: {hostRedirect: b, responseCode: ${code}}\n`,
    );
  const { resources, diagnostics } = validate(redirect('4'));
  expect(diagnostics).toEqual([]);
  const spec = resources[0]!.spec as { virtualHost: { routes: { redirectAction: { responseCode: unknown } }[] } };
  expect(spec.virtualHost.routes[0]!.redirectAction.responseCode).toBe('PERMANENT_REDIRECT');
  expect(validate(redirect('0')).resources[0]!.spec).toMatchObject({
    virtualHost: { routes: [{ redirectAction: { responseCode: 'MOVED_PERMANENTLY' } }] },
  });
  // Out of range, fractional, or a number in a string (protojson takes none of these for an enum).
  for (const code of ['5', '1.5', '"1"'])
    expect(validate(redirect(code)).diagnostics.map((d) => `${d.field}: ${d.message}`)).toEqual([
      'spec.virtualHost.routes[0].redirectAction.responseCode: must be one of "MOVED_PERMANENTLY", "FOUND", "SEE_OTHER", "TEMPORARY_REDIRECT", "PERMANENT_REDIRECT"',
    ]);
});

test('a string that is not a JSON number, or not whole for an integer field, is still refused with its range or type', () => {
  const { diagnostics } = validate(
    upstream(
      '  static: {hosts: [{addr: 10.0.0.1, port: " 80"}, {addr: 10.0.0.2, port: "80.5"}, {addr: 10.0.0.3, port: "99999999"}]}\n',
    ),
  );
  expect(diagnostics.map((d) => `${d.field}: ${d.message}`)).toEqual([
    'spec.static.hosts[0].port: must be of type integer',
    'spec.static.hosts[1].port: must be of type integer',
    'spec.static.hosts[2].port: must be <= 65535',
  ]);
});

test('snake_case proto names are read beside lowerCamelCase, at every depth', () => {
  const { resources, diagnostics } = validate(
    vs(
      '  virtual_host:\n    domains: [rail.example]\n    routes:\n      - matchers: [{prefix: /}]\n        route_action: {single: {upstream: {name: fares}}}\n        options: {prefix_rewrite: /v2/}\n',
    ),
  );
  expect(diagnostics).toEqual([]);
  expect(resources[0]!.spec).toEqual({
    virtualHost: {
      domains: ['rail.example'],
      routes: [
        {
          matchers: [{ prefix: '/' }],
          routeAction: { single: { upstream: { name: 'fares' } } },
          options: { prefixRewrite: '/v2/' },
        },
      ],
    },
  });
});

test('map keys (header names, labels) are never renamed', () => {
  const { resources, diagnostics } = validate(
    upstream('  kube: {service_name: fares, service_port: 80, selector: {app_name: fares}}\n'),
  );
  expect(diagnostics).toEqual([]);
  expect(resources[0]!.spec).toEqual({
    kube: { serviceName: 'fares', servicePort: 80, selector: { app_name: 'fares' } },
  });
});

test('errors name the field as written, with its line, in validate and in resolve', () => {
  const schema = validate(
    vs(
      '  virtual_host:\n    domains: [rail.example]\n    routes:\n      - matchers: [{prefix: /}]\n        route_action: {single: {upstream: {}}}\n',
    ),
  );
  expect(schema.diagnostics.map(formatDiagnostic)).toEqual([
    'in.yaml:9: error[validate]: VirtualService rail/vs: spec.virtual_host.routes[0].route_action.single.upstream: missing required field "name" — add name',
  ]);
  const refused = validate(
    vs('  virtual_host:\n    domains: [rail.example]\n    options:\n      rate_limit_configs: {}\n'),
  );
  expect(refused.diagnostics.map((d) => `${d.line} ${d.field}`)).toEqual([
    '8 spec.virtual_host.options.rate_limit_configs',
  ]);
  const later = validate(
    `${vs('  virtual_host:\n    domains: [rail.example]\n    routes:\n      - matchers: [{prefix: /}]\n        route_action: {single: {upstream: {name: fares}}}\n        options: {retries: {per_try_timeout: "-1s"}}\n')}---\n${upstream('  static: {hosts: [{addr: 10.0.0.1, port: 80}]}\n')}`,
  );
  expect(later.diagnostics).toEqual([]);
  const resolved = resolve(later.resources, DEFAULT_OPTIONS);
  expect(resolved.diagnostics.map((d) => `${d.line} ${d.field}`)).toContain(
    '10 spec.virtual_host.routes[0].options.retries.per_try_timeout',
  );
});

test('one field written in both spellings is an error naming both', () => {
  const { resources, diagnostics } = validate(
    upstream('  kube: {serviceName: fares, service_name: fare, servicePort: 80}\n'),
  );
  expect(resources).toEqual([]);
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    'in.yaml:5: error[validate]: Upstream rail/fares: spec.kube.service_name: "service_name" and "serviceName" are one field written twice (proto3 JSON takes either name) — keep one of serviceName and service_name',
  ]);
});

test('durations are read in the forms Gloo reads (Go durations and proto3 JSON) and kept in proto3 JSON form', () => {
  const { resources, diagnostics } = validate(
    vs(
      '  virtualHost:\n    domains: [rail.example]\n    routes:\n      - matchers: [{prefix: /}]\n        routeAction: {single: {upstream: {name: fares}}}\n        options:\n          timeout: 1m30s\n          retries: {perTryTimeout: 250ms, retryBackOff: {baseInterval: .5s, maxInterval: 1h}}\n',
    ),
  );
  expect(diagnostics).toEqual([]);
  const options = (resources[0]!.spec as { virtualHost: { routes: { options: unknown }[] } }).virtualHost.routes[0]!
    .options;
  expect(options).toEqual({
    timeout: '90s',
    retries: { perTryTimeout: '0.25s', retryBackOff: { baseInterval: '0.5s', maxInterval: '3600s' } },
  });
});

test('goDuration takes what Go time.ParseDuration takes and nothing else', () => {
  expect(goDuration('0')).toBe(0n);
  expect(goDuration('1.5s')).toBe(1_500_000_000n);
  expect(goDuration('-1m30.5s')).toBe(-90_500_000_000n);
  expect(goDuration('1h2m3s4ms5us6ns')).toBe(3_723_004_005_006n);
  expect(goDuration('2µs')).toBe(2_000n);
  expect(goDuration('1.0000000009s')).toBe(1_000_000_000n);
  for (const bad of ['', 's', '5', '5 s', '.s', '1d', '1s ', '--1s', 'PT5S']) expect(goDuration(bad)).toBeUndefined();
});

test('a misspelt snake_case name gets the name meant', () => {
  const { diagnostics } = validate(
    vs(
      '  virtual_host:\n    domains: [rail.example]\n    routes:\n      - matchers: [{prefix: /}]\n        route_acton: {single: {upstream: {name: fares}}}\n',
    ),
  );
  expect(diagnostics.map((d) => `${d.field}: ${d.hint?.split('?')[0]}`)).toEqual([
    'spec.virtual_host.routes[0].route_acton: did you mean routeAction',
  ]);
});

test("the golden written in proto3 JSON's other spellings resolves to the IR of its canonical spelling", () => {
  const written = readFileSync('golden/gloo-proto3-json/input/fares.yaml', 'utf8');
  const canonical = written
    .replace(/^#.*\n/gm, '')
    .replace(/\b([a-z]+(?:_[a-z0-9]+)+):/g, (_m, key: string) => `${lowerCamel(key)}:`)
    .replace(/"(\d+)"/g, '$1')
    .replace(': 1m30s', ': 90s')
    .replace(': 250ms', ': 0.25s')
    .replace(': 1h', ': 3600s');
  expect(canonical).not.toMatch(/_[a-z]+:|"\d|ms\b/);
  const ir = (text: string) => {
    const { resources, diagnostics } = validate(text);
    expect(diagnostics).toEqual([]);
    return dumpIr(resolve(resources, DEFAULT_OPTIONS).model);
  };
  expect(ir(written)).toBe(ir(canonical));
  expect(ir(written)).toBe(readFileSync('golden/gloo-proto3-json/expected/ir.yaml', 'utf8'));
});
