import { compileFiles } from '../../pipeline.js';
import { DEFAULT_OPTIONS } from '../output.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** golden/gloo-upstream-grpc-json: the chain and routes of each listener, as compiled. */
let listeners: Map<string, Json>;
let routeConfigs: Map<string, Json>;
beforeAll(async () => {
  const result = await compileFiles(['golden/gloo-upstream-grpc-json/input'], DEFAULT_OPTIONS);
  expect(result.diagnostics).toEqual([]);
  listeners = result.xds!.listeners as unknown as Map<string, Json>;
  routeConfigs = result.xds!.routes as unknown as Map<string, Json>;
});

const hcm = (port: number) => {
  const l = [...listeners.values()].find((x) => (x.address as Json).socket_address.port_value === port)!;
  return (l.filter_chains as Json[])[0]!.filters[0].typed_config as Json;
};
const transcoders = (port: number) =>
  (hcm(port).http_filters as Json[]).filter((f) => f.name === 'envoy.filters.http.grpc_json_transcoder');
const routes = (port: number) => routeConfigs.get(hcm(port).rds.route_config_name)!.virtual_hosts[0].routes as Json[];
const perRoute = (route: Json) => route.typed_per_filter_config?.['envoy.filters.http.grpc_json_transcoder'];

test("without a transcoder of the Gateway's, the filter is in the chain once, off by default", () => {
  const [filter, ...more] = transcoders(8080);
  expect(more).toEqual([]);
  expect(filter!.disabled).toBe(true);
});

test("each route to an Upstream with serviceSpec.grpcJsonTranscoder carries that Upstream's config; others none", () => {
  const [users, catalog, web] = routes(8080);
  expect(perRoute(users!)).toMatchObject({
    services: ['users.UserService'],
    print_options: { preserve_proto_field_names: true },
    convert_grpc_status: true,
  });
  expect(perRoute(users!).proto_descriptor_bin).toMatch(/^Csg/);
  // A weighted route: the one config its destinations' Upstreams share.
  expect(perRoute(catalog!)).toMatchObject({ proto_descriptor: '/etc/envoy/descriptors/catalog.pb' });
  expect(perRoute(web!)).toBeUndefined();
});

test("a Gateway's own transcoder takes the filter's place, on by default; the routes keep their Upstream's", () => {
  const [filter, ...more] = transcoders(8081);
  expect(more).toEqual([]);
  expect(filter!.disabled).toBeUndefined();
  expect(filter!.typed_config.services).toEqual(['products.ProductService']);
  expect(perRoute(routes(8081)[0]!).services).toEqual(['users.UserService']);
});
