import type { Origin } from '../diagnostics.js';
import type { RouteIR, VirtualHostIR } from '../ir/model.js';
import { virtualHost } from './routes.js';

const origin: Origin = { file: 'vs.yaml', resource: 'VirtualService default/api', lineOf: () => 7 };

const route = (options: RouteIR['options']): RouteIR => ({
  name: 'default.api/0',
  match: { path: { kind: 'prefix', value: '/' }, caseSensitive: true, headers: [], queryParameters: [], methods: [] },
  action: { kind: 'cluster', cluster: 'backend' },
  ...(options ? { options } : {}),
});

const host = (routes: RouteIR[], extra: Partial<VirtualHostIR> = {}): VirtualHostIR => ({
  name: 'default.api',
  namespace: 'default',
  origin,
  domains: ['api.example'],
  routes,
  ...extra,
});

const translated = (vh: VirtualHostIR) =>
  virtualHost(
    vh,
    new Map(),
    [],
    () => ({}),
    () => ({}),
  );

test("host rewrites from the path or a header, x-forwarded-host and the stream timeouts are the RouteAction's fields", () => {
  const out = translated(
    host([
      route({
        hostRewritePathRegex: { pattern: '^/t/([^/]+)', substitution: '\\1.internal' },
        appendXForwardedHost: true,
        idleTimeout: '300s',
        maxStreamDuration: { max: '60s', grpcTimeoutHeaderMax: '0s', grpcTimeoutHeaderOffset: '0.050s' },
      }),
      route({ hostRewriteHeader: 'x-target-host' }),
    ]),
  ) as { routes: { route: Record<string, unknown> }[] };
  expect(out.routes[0]!.route).toEqual({
    cluster: 'backend',
    host_rewrite_path_regex: { pattern: { regex: '^/t/([^/]+)' }, substitution: '\\1.internal' },
    append_x_forwarded_host: true,
    idle_timeout: '300s',
    max_stream_duration: {
      max_stream_duration: '60s',
      grpc_timeout_header_max: '0s',
      grpc_timeout_header_offset: '0.050s',
    },
  });
  expect(out.routes[1]!.route).toEqual({ cluster: 'backend', host_rewrite_header: 'x-target-host' });
});

test("the attempt-count flags and virtual clusters are the VirtualHost's, virtual clusters as Gloo writes them", () => {
  const out = translated(
    host([route(undefined)], {
      includeRequestAttemptCount: true,
      includeAttemptCountInResponse: false,
      virtualClusters: [
        { name: 'orders_read', pattern: '/orders/[0-9]+', method: 'GET' },
        { name: 'all', pattern: '/.*' },
      ],
    }),
  );
  expect(out).toMatchObject({
    include_request_attempt_count: true,
    include_attempt_count_in_response: false,
    virtual_clusters: [
      {
        name: 'orders_read',
        headers: [
          { name: ':path', string_match: { safe_regex: { regex: '/orders/[0-9]+' } } },
          { name: ':method', string_match: { exact: 'GET' } },
        ],
      },
      { name: 'all', headers: [{ name: ':path', string_match: { safe_regex: { regex: '/.*' } } }] },
    ],
  });
  // A host without them has none of the fields.
  expect(Object.keys(translated(host([route(undefined)])))).toEqual(['name', 'domains', 'routes']);
});
