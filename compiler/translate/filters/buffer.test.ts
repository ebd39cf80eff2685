import type { BufferPerRouteIR } from '../../ir/listener-options.js';
import type { RouteIR, VirtualHostIR } from '../../ir/model.js';
import { chainHttpFilters } from '../gateway-filters.js';
import type { Json } from '../output.js';
import { bufferConcern } from './buffer.js';

const route = (buffer?: BufferPerRouteIR): RouteIR =>
  ({ name: 'r', action: { kind: 'cluster', cluster: 'c' }, options: buffer ? { buffer } : {} }) as unknown as RouteIR;
const host = (routes: RouteIR[], buffer?: BufferPerRouteIR) => ({ routes, buffer }) as unknown as VirtualHostIR;

describe('bufferPerRoute', () => {
  test('BufferPerRoute of a route and a virtual host: disabled, or its own limit', () => {
    expect(bufferConcern.perRoute!(route({ disabled: true }))).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.BufferPerRoute',
      disabled: true,
    });
    expect(bufferConcern.perVirtualHost!(host([], { maxRequestBytes: 2048 }))).toMatchObject({
      buffer: { max_request_bytes: 2048 },
    });
    expect(bufferConcern.perRoute!(route())).toBeUndefined();
  });

  test('in use when a virtual host or one of its routes sets it', () => {
    expect(bufferConcern.usedBy(host([route()]))).toBe(false);
    expect(bufferConcern.usedBy(host([route({ maxRequestBytes: 1 })]))).toBe(true);
    expect(bufferConcern.usedBy(host([], { disabled: true }))).toBe(true);
  });

  test("the shared filter is disabled by default; a Gateway's buffer takes its place, enabled, with the Gateway's limit", () => {
    const shared: Json[] = [bufferConcern.httpFilter!(), { name: 'envoy.filters.http.csrf' }];
    expect(shared[0]).toMatchObject({ name: 'envoy.filters.http.buffer', disabled: true });
    const chain = chainHttpFilters(shared, { maxRequestBytes: 65536 });
    expect(chain.map((f) => f.name)).toEqual(['envoy.filters.http.buffer', 'envoy.filters.http.csrf']);
    expect(chain[0]).toEqual({
      name: 'envoy.filters.http.buffer',
      typed_config: {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer',
        max_request_bytes: 65536,
      },
    });
    // Without the Gateway's buffer the shared one stays as it is.
    expect(chainHttpFilters(shared, { grpcWeb: true })[1]).toBe(shared[0]);
  });
});
