import type { WasmFilterIR } from '../../ir/wasm.js';
import { checkMessage } from '../../verify/proto-json.js';
import { chainHttpFilters } from '../gateway-filters.js';
import type { Json } from '../output.js';
import { wasmFilter } from './wasm.js';

const plugin = (over: Partial<WasmFilterIR> = {}): WasmFilterIR => ({
  filterName: 'envoy.filters.http.wasm.add-header',
  pluginName: 'add-header',
  filePath: '/wasm-filters/add-header.wasm',
  failOpen: false,
  stage: { stage: 'FaultStage', predicate: 'During' },
  ...over,
});

test("Envoy's wasm filter: the module from its file in V8, the plugin's name, root id and configuration; valid for Envoy", () => {
  const filter = wasmFilter(
    plugin({
      rootId: 'add_header',
      config: { '@type': 'type.googleapis.com/google.protobuf.StringValue', value: 'world' },
    }),
  );
  expect(filter).toEqual({
    name: 'envoy.filters.http.wasm.add-header',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm',
      config: {
        name: 'add-header',
        root_id: 'add_header',
        vm_config: { runtime: 'envoy.wasm.runtime.v8', code: { local: { filename: '/wasm-filters/add-header.wasm' } } },
        configuration: { '@type': 'type.googleapis.com/google.protobuf.StringValue', value: 'world' },
      },
    },
  });
  expect(checkMessage('envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter', filter)).toEqual([]);
  const open = wasmFilter(
    plugin({ failOpen: true, config: { '@type': 'type.googleapis.com/google.protobuf.Struct', value: { a: 1 } } }),
  );
  expect((open.typed_config as Json).config).toMatchObject({ fail_open: true });
  expect(checkMessage('envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter', open)).toEqual([]);
});

test('placed by filterStage among the shared filters, in the order written where two share a place', () => {
  const shared: Json[] = [
    { name: 'envoy.filters.http.cors' },
    { name: 'envoy.filters.http.jwt_authn' },
    { name: 'envoy.filters.http.ext_authz' },
    { name: 'envoy.filters.http.csrf' },
  ];
  const chain = chainHttpFilters(shared, {
    wasm: [
      plugin({ filterName: 'envoy.filters.http.wasm.z-route', stage: { stage: 'RouteStage', predicate: 'After' } }),
      plugin({ filterName: 'envoy.filters.http.wasm.first' }),
      plugin({ filterName: 'envoy.filters.http.wasm.authz', stage: { stage: 'AuthZStage', predicate: 'Before' } }),
      plugin({ filterName: 'envoy.filters.http.wasm.a-authz', stage: { stage: 'AuthZStage', predicate: 'Before' } }),
    ],
  });
  expect(chain.map((f) => f.name)).toEqual([
    'envoy.filters.http.wasm.first',
    'envoy.filters.http.cors',
    'envoy.filters.http.jwt_authn',
    'envoy.filters.http.ext_authz',
    'envoy.filters.http.wasm.authz',
    'envoy.filters.http.wasm.a-authz',
    'envoy.filters.http.csrf',
    'envoy.filters.http.wasm.z-route',
  ]);
});
