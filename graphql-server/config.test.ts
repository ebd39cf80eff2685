import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfigFile, parseGraphQLApi, parseGraphQLApiSet } from './config.js';
import { tempDir } from '../harness/temp-dir.js';

const target = { cluster: 'default.users', hosts: [{ address: '127.0.0.1', port: 9000 }] };

test('reads snake_case proto3 JSON into the typed config, with defaults for unset fields', () => {
  const api = parseGraphQLApi({
    name: 'default.users',
    log_sensitive_info: true,
    executable: {
      schema_definition: 'type Query { user(id: ID!): User @resolve(name: "u") } type User { id: ID }',
      enable_introspection: true,
      resolutions: {
        u: {
          grpc: {
            service_name: 'users.Users',
            method_name: 'Get',
            outgoing_message_json: { id: '{$args.id}' },
            target,
            timeout_ms: '250',
            request_metadata: { a: 'b' },
          },
        },
        r: { rest: { target, headers: { ':path': '/u' }, result_root: 'data' } },
      },
      proto_descriptor_bin: Buffer.from([1, 2, 3]).toString('base64'),
      max_depth: 7,
    },
  });
  expect(api).toEqual({
    name: 'default.users',
    logSensitiveInfo: true,
    explorer: false,
    executable: {
      schemaDefinition: expect.stringContaining('type Query'),
      enableIntrospection: true,
      resolutions: {
        u: {
          kind: 'grpc',
          serviceName: 'users.Users',
          methodName: 'Get',
          outgoingMessageJson: { id: '{$args.id}' },
          target,
          timeoutMs: 250,
          requestMetadata: { a: 'b' },
        },
        r: {
          kind: 'rest',
          target,
          headers: { ':path': '/u' },
          queryParams: {},
          resultRoot: 'data',
          setters: {},
          timeoutMs: 0,
        },
      },
      protoDescriptorBin: new Uint8Array([1, 2, 3]),
      maxDepth: 7,
    },
  });
});

test('accepts lowerCamelCase names, as proto3 JSON parsers do', () => {
  const api = parseGraphQLApi({
    name: 'default.remote',
    logSensitiveInfo: false,
    executable: {
      schemaDefinition: 'type Query { a: Int }',
      remote: { target, headers: { ':path': '/gql' }, queryParams: { k: 'v' }, spanName: 's' },
      maxDepth: 0,
    },
  });
  expect(api.executable).toEqual({
    schemaDefinition: 'type Query { a: Int }',
    enableIntrospection: false,
    resolutions: {},
    remote: { target, headers: { ':path': '/gql' }, queryParams: { k: 'v' }, spanName: 's' },
    maxDepth: 0,
  });
  const st = parseGraphQLApi({
    name: 'default.s',
    stitched: {
      subschemas: [
        {
          api: 'default.remote',
          typeMerge: { User: { selectionSet: '{ id }', queryName: 'user', args: { id: 'id' } } },
        },
      ],
      enableIntrospection: true,
    },
  });
  expect(st.stitched).toEqual({
    subschemas: [
      { api: 'default.remote', typeMerge: { User: { selectionSet: '{ id }', queryName: 'user', args: { id: 'id' } } } },
    ],
    enableIntrospection: true,
  });
});

test.each([
  [{ executable: { schema_definition: 'type Query { a: Int }' } }, 'resources[0].name: required'],
  [{ name: 'default.a' }, 'GraphQLApi default.a: exactly one of executable and stitched is required'],
  [{ name: 'default.a', executable: {} }, 'GraphQLApi default.a: executable.schema_definition: required'],
  [
    { name: 'default.a', executable: { schema_definition: 'x', max_depth: -1 } },
    'GraphQLApi default.a: executable.max_depth: must be a non-negative integer',
  ],
  [
    { name: 'default.a', executable: { schema_definition: 'x', resolutions: { r: {} } } },
    'GraphQLApi default.a: executable.resolutions["r"]: exactly one of grpc and rest is required',
  ],
  [
    {
      name: 'default.a',
      executable: { schema_definition: 'x', resolutions: { r: { grpc: { service_name: 's', method_name: 'm' } } } },
    },
    'executable.resolutions["r"].grpc.target: required',
  ],
  [
    {
      name: 'default.a',
      executable: {
        schema_definition: 'x',
        resolutions: { r: { rest: { target: { hosts: [{ address: 'h', port: 70000 }] } } } },
      },
    },
    'executable.resolutions["r"].rest.target.hosts[0].port: 70000 is above the limit of 65535',
  ],
  [
    { name: 'default.a', executable: { schema_definition: 'x', remote: { target: { hosts: [] } } } },
    'GraphQLApi default.a: executable.remote.target.hosts: at least one host is required',
  ],
  [
    { name: 'default.a', executable: { schema_definition: 'x', proto_descriptor_bin: 'not base64!' } },
    'executable.proto_descriptor_bin: must be base64',
  ],
  [
    { name: 'default.a', stitched: { subschemas: [] } },
    'GraphQLApi default.a: stitched.subschemas: at least one subschema is required',
  ],
])('refuses %j: %s', (raw, message) => {
  let err: unknown;
  try {
    parseGraphQLApiSet({ resources: [raw] });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toContain(message);
});

test('checks the set: unique names, stitched subschemas in the set', () => {
  const a = { name: 'default.a', executable: { schema_definition: 'type Query { a: Int }' } };
  expect(() => parseGraphQLApiSet({ resources: [a, a] })).toThrow('GraphQLApi default.a is defined twice');
  expect(() =>
    parseGraphQLApiSet({ resources: [a, { name: 'default.s', stitched: { subschemas: [{ api: 'default.b' }] } }] }),
  ).toThrow('GraphQLApi default.s: stitched.subschemas[0].api: no GraphQLApi named default.b in this configuration');
  expect(
    parseGraphQLApiSet({ resources: [a, { name: 'default.s', stitched: { subschemas: [{ api: 'default.a' }] } }] }).map(
      (x) => x.name,
    ),
  ).toEqual(['default.a', 'default.s']);
});

test('a file that is not JSON is refused with the position and without quoting the text', async () => {
  const dir = tempDir('graphql-config');
  const file = path.join(dir, 'graphql.json');
  await writeFile(file, '{"resources": [{"name": "secret-token-123"');
  const err = (await loadConfigFile(file).catch((e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(ConfigError);
  expect(err.message).toMatch(/graphql\.json: not JSON: .* at line 1, column \d+/);
  expect(err.message).not.toContain('secret-token-123');
});
