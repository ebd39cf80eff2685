import type { Origin } from '../../diagnostics.js';
import type { Model, RbacPolicyIR, RouteIR, VirtualHostIR } from '../../ir/model.js';
import { DEFAULT_OPTIONS, type Json } from '../output.js';
import { RBAC_FILTER_NAME, rbacConcern } from './rbac.js';
import { runConcern } from './run-concern.js';

const origin: Origin = { file: 'vs.yaml', resource: 'VirtualService default/api', lineOf: () => 7 };

const PER_ROUTE = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute';

function policy(
  name: string,
  fields: Partial<Pick<RbacPolicyIR, 'methods' | 'pathPrefix' | 'principals'>>,
): RbacPolicyIR {
  return {
    name,
    methods: [],
    principals: [{ claims: { sub: 'alice' }, providers: ['p'] }],
    ...fields,
    origin,
    path: ['spec', 'virtualHost', 'options', 'rbac', 'policies', name],
  };
}

function host(name: string, options: { jwt?: boolean; policies?: RbacPolicyIR[] }): VirtualHostIR {
  return {
    name: `default.${name}`,
    namespace: 'default',
    origin,
    domains: [`${name}.example`],
    routes: [],
    ...(options.jwt
      ? {
          jwt: {
            providers: [
              {
                name: `default.${name}.p`,
                payloadKey: 'p',
                issuer: 'i',
                jwks: { kind: 'local', keys: '{"keys":[]}' },
                origin,
                path: [],
              },
            ],
          },
        }
      : {}),
    ...(options.policies ? { rbac: { policies: options.policies } } : {}),
  };
}

const model = (virtualHosts: VirtualHostIR[]): Model => ({
  virtualHosts,
  gateways: [],
  upstreams: [],
  authConfigs: [],
  graphqlApis: [],
});

function rulesOf(vhs: VirtualHostIR[], name = 'default.api') {
  const result = runConcern(rbacConcern, model(vhs));
  const perRoute = result.perVirtualHost.get(name) as {
    rbac: { rules: { action: string; policies: Record<string, { permissions: Json[]; principals: Json[] }> } };
  };
  return perRoute.rbac.rules;
}

const claim = (key: string, exact: string, provider = 'p') => ({
  metadata: {
    filter: 'envoy.filters.http.jwt_authn',
    path: [{ key: provider }, { key }],
    value: { string_match: { exact } },
  },
});

describe('rbacConcern', () => {
  test('no virtual host with rbac: no filter', () => {
    const result = runConcern(rbacConcern, model([host('api', { jwt: true })]));
    expect(result.httpFilter).toBeUndefined();
    expect(result.perVirtualHost.size).toBe(0);
  });

  test('filter has no global rules; hosts without rbac get an empty RBACPerRoute (disabled)', () => {
    const result = runConcern(
      rbacConcern,
      model([host('api', { jwt: true, policies: [policy('p', {})] }), host('open', {})]),
    );
    expect(result.httpFilter).toEqual({
      name: RBAC_FILTER_NAME,
      typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC' },
    });
    expect(result.perVirtualHost.get('default.open')).toEqual({ '@type': PER_ROUTE });
    expect(result.perVirtualHost.get('default.api')).toMatchObject({
      '@type': PER_ROUTE,
      rbac: { rules: { action: 'ALLOW' } },
    });
  });

  test('methods OR-ed, AND path prefix', () => {
    const rules = rulesOf([
      host('api', { jwt: true, policies: [policy('read', { methods: ['GET', 'head', 'GET'], pathPrefix: '/api' })] }),
    ]);
    expect(rules.policies.read!.permissions).toEqual([
      {
        and_rules: {
          rules: [
            {
              or_rules: {
                rules: [
                  { header: { name: ':method', string_match: { exact: 'GET' } } },
                  { header: { name: ':method', string_match: { exact: 'HEAD' } } },
                ],
              },
            },
            { url_path: { path: { prefix: '/api' } } },
          ],
        },
      },
    ]);
  });

  test('one method alone; path alone; neither means any request', () => {
    const rules = rulesOf([
      host('api', {
        jwt: true,
        policies: [
          policy('m', { methods: ['POST'] }),
          policy('p', { pathPrefix: '/x' }),
          policy('any', {}),
          policy('empty-prefix', { pathPrefix: '' }),
        ],
      }),
    ]);
    expect(rules.policies.m!.permissions).toEqual([{ header: { name: ':method', string_match: { exact: 'POST' } } }]);
    expect(rules.policies.p!.permissions).toEqual([{ url_path: { path: { prefix: '/x' } } }]);
    expect(rules.policies.any!.permissions).toEqual([{ any: true }]);
    expect(rules.policies['empty-prefix']!.permissions).toEqual([{ any: true }]);
  });

  test('claims of a principal AND-ed on the jwt_authn payload metadata; principals OR-ed', () => {
    const rules = rulesOf([
      host('api', {
        jwt: true,
        policies: [
          policy('p', {
            principals: [
              { claims: { sub: 'alice', role: 'admin' }, providers: ['p'] },
              { claims: { sub: 'bob' }, providers: ['p'] },
              { claims: {}, providers: ['p'] },
            ],
          }),
        ],
      }),
    ]);
    expect(rules.policies.p!.principals).toEqual([
      { and_ids: { ids: [claim('sub', 'alice'), claim('role', 'admin')] } },
      claim('sub', 'bob'),
      { any: true },
    ]);
  });

  test("Gloo's claim matchers: BOOLEAN a bool_match, LIST_CONTAINS a list_match of the exact string, REGEX_MATCH a safe_regex", () => {
    const rules = rulesOf([
      host('api', {
        jwt: true,
        policies: [
          policy('p', {
            principals: [
              { claims: { admin: 'true' }, matcher: 'BOOLEAN', providers: ['p'] },
              { claims: { suspended: 'false' }, matcher: 'BOOLEAN', providers: ['p'] },
              { claims: { groups: 'readers' }, matcher: 'LIST_CONTAINS', providers: ['p'] },
              { claims: { email: 'dev[0-1]@corp\\.example' }, matcher: 'REGEX_MATCH', providers: ['p'] },
            ],
          }),
        ],
      }),
    ]);
    const value = (id: Json) => (id as { metadata: { value: Json } }).metadata.value;
    expect(rules.policies.p!.principals.map(value)).toEqual([
      { bool_match: true },
      { bool_match: false },
      { list_match: { one_of: { string_match: { exact: 'readers' } } } },
      { string_match: { safe_regex: { regex: 'dev[0-1]@corp\\.example' } } },
    ]);
  });

  test("a principal's providers: the claims of one provider's payload, or of any provider's (or_ids, all claims from the same payload)", () => {
    const rules = rulesOf([
      host('api', {
        jwt: true,
        policies: [
          policy('p', {
            principals: [
              { claims: { sub: 'alice' }, providers: ['partner'] },
              { claims: { sub: 'bob', role: 'admin' }, providers: ['corp', 'partner'] },
            ],
          }),
        ],
      }),
    ]);
    expect(rules.policies.p!.principals).toEqual([
      claim('sub', 'alice', 'partner'),
      {
        or_ids: {
          ids: [
            { and_ids: { ids: [claim('sub', 'bob', 'corp'), claim('role', 'admin', 'corp')] } },
            { and_ids: { ids: [claim('sub', 'bob', 'partner'), claim('role', 'admin', 'partner')] } },
          ],
        },
      },
    ]);
  });

  test('several policies, each its own entry', () => {
    const rules = rulesOf([host('api', { jwt: true, policies: [policy('b', {}), policy('a', {})] })]);
    expect(Object.keys(rules.policies)).toEqual(['a', 'b']);
  });
});

describe("a route's own policies", () => {
  const route = (options: RouteIR['options']): RouteIR => ({
    name: 'default.api/0',
    match: { path: { kind: 'prefix', value: '/' }, caseSensitive: true, headers: [], queryParameters: [], methods: [] },
    action: { kind: 'cluster', cluster: 'app' },
    options,
  });

  test("replace the virtual host's: an RBACPerRoute with an ALLOW engine of its policies", () => {
    const config = rbacConcern.perRoute!(route({ rbacPolicies: [policy('admins', { methods: ['delete'] })] }))!;
    expect(config).toMatchObject({
      '@type': PER_ROUTE,
      rbac: { rules: { action: 'ALLOW', policies: { admins: { permissions: [{ header: { name: ':method' } }] } } } },
    });
  });

  test('put the filter in use even when no virtual host has policies; disable still wins', () => {
    const vh = { ...host('api', {}), routes: [route({ rbacPolicies: [policy('p', {})] })] };
    expect(rbacConcern.usedBy(vh)).toBe(true);
    expect(rbacConcern.perVirtualHost!(vh)).toEqual({ '@type': PER_ROUTE });
    expect(rbacConcern.perRoute!(route({ rbacDisabled: true }))).toEqual({ '@type': PER_ROUTE });
  });
});
