/**
 * The build's JSON of the protos against the parsed files: every type built
 * from it, one at a time as a process asks for them, reads as the parsed one.
 */
import protobuf from 'protobufjs';
import { BUILD_ROOT_JSON, parseRoot, rootKey } from './envoy.js';
import { planOf } from './message-plan.js';
import { LazyRoot, readRootJson, rootJson } from './root-cache.js';

const parsed = parseRoot();
const json = rootJson(parsed.root, parsed.skipped, rootKey());

/** A type's plan, with its types and enums by name: what the verifier and the codec read. */
function described(type: protobuf.Type) {
  const plan = planOf(type);
  return {
    fullName: plan.fullName,
    // What protobufjs's own encoder reads of each field (the xDS server encodes discovery messages with it).
    encoding: type.fieldsArray
      .filter((field) => !field.name.startsWith('.'))
      .map((field) => ({
        name: field.name,
        packed: field.packed,
        presence: Boolean(field.hasPresence),
        delimited: Boolean(field.delimited),
      })),
    wkt: plan.wkt,
    // Extensions of descriptor.proto's option messages (named `.package.field`) are left out of the JSON: options are read as parsedOptions.
    fields: plan.fields
      .filter((field) => !field.name.startsWith('.'))
      .map(({ msgType, enumType, oneof, ...field }) => ({
        ...field,
        msgType: msgType?.fullName,
        enumValues: enumType?.values,
        oneof: oneof && { name: oneof.name, required: oneof.required, fields: oneof.fields.map((f) => f.name) },
      })),
    requiredOneofs: plan.requiredOneofs.map((o) => o.name),
  };
}

function messageTypes(root: protobuf.NamespaceBase, out: protobuf.Type[] = []): protobuf.Type[] {
  for (const nested of root.nestedArray) {
    if (nested instanceof protobuf.Type) out.push(nested);
    if (nested instanceof protobuf.Namespace) messageTypes(nested, out);
  }
  return out;
}

test('each type, asked for alone in a new Root, reads as in the Root of every file', () => {
  const types = messageTypes(parsed.root);
  expect(types.length).toBeGreaterThan(1000);
  const cache = JSON.parse(json);
  for (const type of types) {
    const name = type.fullName.slice(1);
    const lazy = new LazyRoot(cache);
    expect(lazy.require(name)).toBe(true);
    const built = lazy.root.lookupType(name);
    // Its fields' types resolve in the partial Root exactly as in the whole one.
    expect({ name, plan: described(built) }).toEqual({ name, plan: described(type) });
  }
});

test('protoc-gen-validate rules and oneof options survive the JSON', () => {
  const lazy = new LazyRoot(JSON.parse(json));
  lazy.require('envoy.config.core.v3.SocketAddress');
  const port = lazy.root.lookupType('envoy.config.core.v3.SocketAddress').fields.port_value;
  expect(port.parsedOptions).toEqual([{ '(validate.rules)': { uint32: { lte: 65535 } } }]);
  lazy.require('envoy.config.route.v3.Route');
  expect(lazy.root.lookupType('envoy.config.route.v3.Route').oneofs.action.options).toEqual({
    '(validate.required)': true,
  });
  expect(lazy.require('envoy.config.nope.v3.Nothing')).toBe(false);
});

test("an Any's JSON form finds its type though nobody asked for it yet, both ways", () => {
  const lazy = new LazyRoot(JSON.parse(json));
  lazy.require('envoy.config.listener.v3.Filter');
  const Filter = lazy.root.lookupType('envoy.config.listener.v3.Filter');
  const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
  const filter = {
    name: 'hcm',
    typed_config: { '@type': HCM, stat_prefix: 'ingress', rds: { route_config_name: 'r' } },
  };
  const decoded = Filter.toObject(Filter.decode(Filter.encode(Filter.fromObject(filter)).finish()), { json: true });
  expect(decoded).toEqual(filter);
});

test("the build's JSON is read only for the protos it was made from", () => {
  // npm run build wrote it (the test setup builds); its key is of these protos.
  expect(readRootJson(BUILD_ROOT_JSON.replace('/contract/', '/dist/contract/'), rootKey())).toBeDefined();
  expect(readRootJson(BUILD_ROOT_JSON.replace('/contract/', '/dist/contract/'), 'another key')).toBeUndefined();
  expect(readRootJson('/nonexistent/envoy-root.json', rootKey())).toBeUndefined();
});
