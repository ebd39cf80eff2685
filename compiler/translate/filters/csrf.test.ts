import type { Origin } from '../../diagnostics.js';
import type { CsrfIR, Model, RouteIR, VirtualHostIR } from '../../ir/model.js';
import { CONCERNS } from '../concerns.js';
import { DEFAULT_OPTIONS, type Json } from '../output.js';
import { translate, TranslateMemo } from '../translate.js';
import { CSRF_FILTER_NAME, csrfConcern } from './csrf.js';
import { runConcern } from './run-concern.js';

const origin: Origin = { file: 'vs.yaml', resource: 'VirtualService default/bank', lineOf: () => 7 };
const POLICY = 'type.googleapis.com/envoy.extensions.filters.http.csrf.v3.CsrfPolicy';
const OFF = { '@type': POLICY, filter_enabled: { default_value: { numerator: 0, denominator: 'HUNDRED' } } };

const route = (name: string, csrf?: CsrfIR): RouteIR => ({
  name,
  match: { path: { kind: 'prefix', value: '/' }, caseSensitive: true, headers: [], queryParameters: [], methods: [] },
  action: { kind: 'cluster', cluster: 'backend' },
  ...(csrf ? { options: { csrf } } : {}),
});

const host = (name: string, routes: RouteIR[], csrf?: CsrfIR): VirtualHostIR => ({
  name: `default.${name}`,
  namespace: 'default',
  origin,
  domains: [`${name}.example`],
  routes,
  ...(csrf ? { csrf } : {}),
});

const model = (virtualHosts: VirtualHostIR[]): Model => ({
  virtualHosts,
  gateways: [],
  upstreams: [],
  authConfigs: [],
  graphqlApis: [],
});

const enforced: CsrfIR = {
  enabled: { numerator: 100, denominator: 'HUNDRED' },
  additionalOrigins: [
    { kind: 'exact', value: 'app.example.com', ignoreCase: false },
    { kind: 'suffix', value: '.trusted.example.com', ignoreCase: true },
    { kind: 'regex', value: 'admin-[0-9]+\\.example\\.com', ignoreCase: false },
  ],
};

describe('csrfConcern', () => {
  test('no virtual host or route with csrf: no filter', () => {
    expect(runConcern(csrfConcern, model([host('shop', [route('shop/0')])])).httpFilter).toBeUndefined();
  });

  test("a host's policy is its per-filter config; the filter's own policy checks nothing", () => {
    const part = runConcern(
      csrfConcern,
      model([host('bank', [route('bank/0')], enforced), host('shop', [route('shop/0')])]),
    );
    expect(part.httpFilter).toEqual({ name: CSRF_FILTER_NAME, typed_config: OFF });
    expect(part.perVirtualHost.get('default.bank')).toEqual({
      '@type': POLICY,
      filter_enabled: { default_value: { numerator: 100, denominator: 'HUNDRED' } },
      additional_origins: [
        { exact: 'app.example.com' },
        { suffix: '.trusted.example.com', ignore_case: true },
        { safe_regex: { regex: 'admin-[0-9]+\\.example\\.com' } },
      ],
    });
    expect(part.perVirtualHost.has('default.shop')).toBe(false);
  });

  test("a route's own policy (shadow only) is on the route; the others take the host's", () => {
    const shadow: CsrfIR = {
      enabled: { numerator: 0, denominator: 'HUNDRED' },
      shadow: { numerator: 5, denominator: 'TEN_THOUSAND' },
      additionalOrigins: [],
    };
    const set = translate(
      model([host('bank', [route('bank/0', shadow), route('bank/1')], enforced)]),
      DEFAULT_OPTIONS,
      new TranslateMemo(),
      [csrfConcern],
    );
    const [vh] = [...set.routes.values()][0]!.virtual_hosts as Json[];
    const [own, other] = vh!.routes as Json[];
    expect((own!.typed_per_filter_config as Json)[CSRF_FILTER_NAME]).toEqual({
      '@type': POLICY,
      filter_enabled: { default_value: { numerator: 0, denominator: 'HUNDRED' } },
      shadow_enabled: { default_value: { numerator: 5, denominator: 'TEN_THOUSAND' } },
    });
    expect(other!.typed_per_filter_config).toBeUndefined();
  });

  test("the filter is last before the router, after ext_authz and buffer (Gloo's route stage)", () => {
    const names = CONCERNS.map((c) => c.filterName);
    expect(names.slice(names.indexOf('envoy.filters.http.ext_authz'), names.indexOf(CSRF_FILTER_NAME) + 1)).toEqual([
      'envoy.filters.http.ext_authz',
      'envoy.filters.http.buffer',
      CSRF_FILTER_NAME,
    ]);
    const set = translate(model([host('bank', [route('bank/0')], enforced)]), DEFAULT_OPTIONS);
    const hcm = ([...set.listeners.values()][0] as any).filter_chains[0].filters[0].typed_config;
    expect(hcm.http_filters.map((f: Json) => f.name).slice(-2)).toEqual([
      CSRF_FILTER_NAME,
      'envoy.filters.http.router',
    ]);
  });
});
