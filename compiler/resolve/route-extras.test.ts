import type { CorsIR, RouteIR } from '../ir/model.js';
import { withUnionExposeHeaders } from './route-extras.js';

const cors = (exposeHeaders: string[]): CorsIR => ({
  allowOrigins: [{ kind: 'exact', value: 'https://app.example' }],
  allowMethods: [],
  allowHeaders: [],
  exposeHeaders,
  allowCredentials: false,
  disabled: false,
});

const route = (name: string, own?: CorsIR): RouteIR => ({
  name,
  match: { path: { kind: 'prefix', value: '/' }, caseSensitive: true, headers: [], queryParameters: [], methods: [] },
  action: { kind: 'cluster', cluster: 'backend' },
  ...(own ? { options: { cors: own, timeout: '5s' } } : {}),
});

test("UNION: a route's exposeHeaders gain the host's, the host's first and each once; routes without a list of their own are as written", () => {
  const shared = cors(['x-trace', 'x-page']);
  const routes = [route('a', shared), route('b', shared), route('c', cors([])), route('d')];
  const merged = withUnionExposeHeaders(routes, cors(['x-request-id', 'x-trace']));
  expect(merged.map((r) => r.options?.cors?.exposeHeaders)).toEqual([
    ['x-request-id', 'x-trace', 'x-page'],
    ['x-request-id', 'x-trace', 'x-page'],
    [],
    undefined,
  ]);
  // The other options stay; the routes' own objects are not changed (two Envoy routes of one Gloo route share them).
  expect(merged[0]!.options?.timeout).toBe('5s');
  expect(shared.exposeHeaders).toEqual(['x-trace', 'x-page']);
  expect(merged[2]).toBe(routes[2]);
});

test('a host without exposeHeaders changes nothing', () => {
  const routes = [route('a', cors(['x-page']))];
  expect(withUnionExposeHeaders(routes, cors([]))).toBe(routes);
});
