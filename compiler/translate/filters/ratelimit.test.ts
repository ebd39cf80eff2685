/**
 * Global rate limits in Envoy's route configuration: a route's own option
 * replaces only the same option of its virtual host, includeVhRateLimits
 * adds the host's back, and each domain and stage gets its Envoy stage.
 */
import type { RouteIR, VirtualHostIR } from '../../ir/model.js';
import type { RateLimitIR, RateLimitServerIR } from '../../ir/ratelimit.js';
import { MESH_FILTERS } from '../mesh.js';
import { idleRateLimitConcerns, rateLimitConcerns, routeEntries, stageOf, withRouteRateLimits } from './ratelimit.js';

const entry = (
  option: RateLimitIR['option'],
  value: string,
  domain: RateLimitIR['domain'] = 'custom',
): RateLimitIR => ({
  option,
  domain,
  early: false,
  actions: [{ kind: 'genericKey', value }],
});

const route = (rateLimits?: RouteIR['options']): RouteIR => ({
  name: 'r',
  match: { path: { kind: 'prefix', value: '/' }, caseSensitive: true, headers: [], queryParameters: [], methods: [] },
  action: { kind: 'cluster', cluster: 'c' },
  ...(rateLimits ? { options: rateLimits } : {}),
});

const host = (routes: RouteIR[]): VirtualHostIR => ({
  name: 'ns.vs',
  namespace: 'ns',
  origin: { file: 'f', line: 1, resource: 'VirtualService ns/vs' } as unknown as VirtualHostIR['origin'],
  domains: ['*'],
  routes,
  rateLimits: { entries: [entry('ratelimit', 'host'), entry('rateLimitConfigs', 'policy', 'solo.io')] },
});

test("a route's own option replaces the host's same option only", () => {
  const r = route({ rateLimits: { entries: [entry('ratelimit', 'own')] } });
  expect(routeEntries(host([r]), r)!.map((e) => (e.actions[0] as { value: string }).value)).toEqual(['own', 'policy']);
});

test('includeVhRateLimits takes the host entries of that option too; a route without limits writes none', () => {
  const r = route({ rateLimits: { entries: [entry('ratelimit', 'own')], includeVh: ['ratelimit'] } });
  expect(routeEntries(host([r]), r)!.map((e) => (e.actions[0] as { value: string }).value)).toEqual([
    'own',
    'host',
    'policy',
  ]);
  const bare = route();
  expect(routeEntries(host([bare]), bare)).toBeUndefined();
  expect(withRouteRateLimits({ route: { cluster: 'c' } }, host([bare]), bare)).toEqual({ route: { cluster: 'c' } });
});

test('each domain and stage has its own Envoy stage and filter; the sidecar cluster comes with the first', () => {
  expect([stageOf('ingress', false), stageOf('custom', false), stageOf('solo.io', false)]).toEqual([0, 1, 2]);
  expect([stageOf('custom', true), stageOf('ingress', true), stageOf('solo.io', true)]).toEqual([3, 4, 5]);
  const server: RateLimitServerIR = {
    cluster: 'ratelimit',
    sidecar: true,
    timeout: '0.100s',
    denyOnFail: false,
    beforeAuth: false,
    xRateLimitHeaders: false,
  };
  const { early, regular } = rateLimitConcerns([host([route()])], server);
  expect(early).toEqual([]);
  expect(regular.map((c) => c.filterName)).toEqual([
    'envoy.filters.http.ratelimit.custom',
    'envoy.filters.http.ratelimit.solo.io',
  ]);
  expect(regular.map((c) => c.sidecarCluster !== undefined)).toEqual([true, false]);
  expect(rateLimitConcerns([host([route()])], undefined)).toEqual({ early: [], regular: [] });
});

test("a limit override is Envoy's RateLimit.Override from dynamic metadata on that descriptor only", () => {
  const overridden: RateLimitIR = {
    ...entry('ratelimit', 'own'),
    limitOverride: { metadataKey: 'envoy.filters.http.ext_authz', path: ['tenant', 'limit'] },
  };
  const r = route({ rateLimits: { entries: [overridden, entry('ratelimit', 'plain')] } });
  const out = withRouteRateLimits({ route: { cluster: 'c' } }, host([r]), r);
  expect(((out.route as { rate_limits: unknown[] }).rate_limits as Record<string, unknown>[]).slice(0, 2)).toEqual([
    {
      stage: 1,
      actions: [{ generic_key: { descriptor_value: 'own' } }],
      limit: {
        dynamic_metadata: {
          metadata_key: { key: 'envoy.filters.http.ext_authz', path: [{ key: 'tenant' }, { key: 'limit' }] },
        },
      },
    },
    { stage: 1, actions: [{ generic_key: { descriptor_value: 'plain' } }] },
  ]);
});

test("mesh mode's list: all six rate limit filters in chain order, idle ones asking sluice-ratelimit with Gloo's defaults", () => {
  expect(MESH_FILTERS).toEqual([
    'envoy.filters.http.fault',
    'envoy.filters.http.cors',
    'envoy.filters.http.local_ratelimit',
    'envoy.filters.http.ratelimit.ingress.early',
    'envoy.filters.http.ratelimit.custom.early',
    'envoy.filters.http.ratelimit.solo.io.early',
    'envoy.filters.http.header_mutation',
    'envoy.filters.http.jwt_authn',
    'envoy.filters.http.rbac',
    'envoy.filters.http.ext_authz',
    'envoy.filters.http.ratelimit.ingress',
    'envoy.filters.http.ratelimit.custom',
    'envoy.filters.http.ratelimit.solo.io',
    'envoy.filters.http.csrf',
  ]);
  const { regular } = idleRateLimitConcerns();
  expect(regular[1]!.usedBy(host([]))).toBe(false);
  expect(regular[1]!.idleFilter!().typed_config).toMatchObject({
    domain: 'custom',
    stage: 1,
    timeout: '0.100s',
    failure_mode_deny: false,
    rate_limit_service: { grpc_service: { envoy_grpc: { cluster_name: 'ratelimit' } } },
  });
});
