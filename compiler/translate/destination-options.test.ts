import type { Origin } from '../diagnostics.js';
import type { DestinationOptionsIR } from '../ir/destination-options.js';
import type { RouteIR, VirtualHostIR } from '../ir/model.js';
import type { Json } from './output.js';
import { bufferConcern } from './filters/buffer.js';
import { csrfConcern } from './filters/csrf.js';
import { virtualHost } from './routes.js';

const origin: Origin = { file: 'vs.yaml', resource: 'VirtualService default/items', lineOf: () => 7 };

const split = (stable?: DestinationOptionsIR, canary?: DestinationOptionsIR): RouteIR => ({
  name: 'default.items/0',
  match: { path: { kind: 'prefix', value: '/' }, caseSensitive: true, headers: [], queryParameters: [], methods: [] },
  action: {
    kind: 'weighted',
    clusters: [
      { cluster: 'items-v1', weight: 9, ...(stable ? { options: stable } : {}) },
      { cluster: 'items-v2', weight: 1, ...(canary ? { options: canary } : {}) },
    ],
  },
  options: {
    headers: {
      requestAdd: [{ key: 'x-route', value: 'items', append: true }],
      requestRemove: [],
      responseAdd: [],
      responseRemove: [],
    },
  },
});

const host = (routes: RouteIR[]): VirtualHostIR => ({
  name: 'default.items',
  namespace: 'default',
  origin,
  domains: ['items.example'],
  routes,
});

/** The virtual host as translate writes it with the csrf and buffer concerns in use. */
const translated = (vh: VirtualHostIR) => {
  const concerns = [bufferConcern, csrfConcern];
  const configs = (pick: (c: (typeof concerns)[number]) => Json | undefined) =>
    Object.fromEntries(concerns.flatMap((c) => (pick(c) ? [[c.filterName, pick(c)]] : [])));
  return virtualHost(
    vh,
    new Map(),
    [],
    (r) => configs((c) => c.perRoute?.(r)),
    (d) => configs((c) => c.perDestination?.(d)),
  ) as { routes: { route: { weighted_clusters: { clusters: Json[] } }; request_headers_to_add?: Json[] }[] };
};

test("a destination's header lists and per-filter configs are its ClusterWeight's; the route's headers stay on the route", () => {
  const out = translated(
    host([
      split(
        {
          headers: {
            requestAdd: [{ key: 'x-track', value: 'stable', append: false }],
            requestRemove: ['x-debug'],
            responseAdd: [{ key: 'x-served-by', value: 'items-v1', append: true }],
            responseRemove: ['server'],
          },
          csrf: { enabled: { numerator: 100, denominator: 'HUNDRED' }, additionalOrigins: [] },
        },
        { buffer: { maxRequestBytes: 65536 } },
      ),
    ]),
  );
  const [stable, canary] = out.routes[0]!.route.weighted_clusters.clusters;
  expect(stable).toEqual({
    name: 'items-v1',
    weight: 9,
    request_headers_to_add: [
      { header: { key: 'x-track', value: 'stable' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
    ],
    request_headers_to_remove: ['x-debug'],
    response_headers_to_add: [
      { header: { key: 'x-served-by', value: 'items-v1' }, append_action: 'APPEND_IF_EXISTS_OR_ADD' },
    ],
    response_headers_to_remove: ['server'],
    typed_per_filter_config: {
      'envoy.filters.http.csrf': {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.csrf.v3.CsrfPolicy',
        filter_enabled: { default_value: { numerator: 100, denominator: 'HUNDRED' } },
      },
    },
  });
  expect(canary).toEqual({
    name: 'items-v2',
    weight: 1,
    typed_per_filter_config: {
      'envoy.filters.http.buffer': {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.BufferPerRoute',
        buffer: { max_request_bytes: 65536 },
      },
    },
  });
  expect(out.routes[0]!.request_headers_to_add).toEqual([
    { header: { key: 'x-route', value: 'items' }, append_action: 'APPEND_IF_EXISTS_OR_ADD' },
  ]);
});

test('without options a ClusterWeight is its name and weight', () => {
  const out = translated(host([split()]));
  expect(out.routes[0]!.route.weighted_clusters.clusters).toEqual([
    { name: 'items-v1', weight: 9 },
    { name: 'items-v2', weight: 1 },
  ]);
});

test("a destination's csrf or buffer puts the filter in the chain, as a route's does", () => {
  expect(csrfConcern.usedBy(host([split()]))).toBe(false);
  expect(bufferConcern.usedBy(host([split()]))).toBe(false);
  const csrf = { enabled: { numerator: 0, denominator: 'HUNDRED' as const }, additionalOrigins: [] };
  expect(csrfConcern.usedBy(host([split(undefined, { csrf })]))).toBe(true);
  expect(bufferConcern.usedBy(host([split({ buffer: { disabled: true } })]))).toBe(true);
  expect(bufferConcern.usedBy(host([split({ csrf })]))).toBe(false);
});
