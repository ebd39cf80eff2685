/**
 * `sluice-graphql --xds`: a running `sluice serve` on a directory of
 * resources feeds the sidecar. Not ready (503) until the first GraphQLApis
 * arrive; an edit of the GraphQLApi file reaches the sidecar and is served
 * without a restart. A set the sidecar cannot build is NACKed and the last
 * good one stays.
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TYPE_URL } from '../../contract/names.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { SnapshotCache } from '../../control-plane/cache/cache.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { XdsServer } from '../../control-plane/server/server.js';
import { buildSnapshot } from '../../control-plane/cache/snapshot.js';
import { startGraphql, type RunningGraphql } from '../../graphql-server/server.js';
import { tempDir } from '../../harness/temp-dir.js';
import { testLogger } from '../../harness/log-check.js';

const NODE = 'graphql-xds-test';
let dir: string;
let serving: Serving;
let server: RunningGraphql;

function api(schemaDefinition: string): string {
  return `apiVersion: graphql.gateway.example/v1beta1
kind: GraphQLApi
metadata: {name: hello, namespace: default}
spec:
  executableSchema:
    schemaDefinition: ${JSON.stringify(schemaDefinition)}
    executor: {local: {enableIntrospection: true}}
`;
}

const VIRTUAL_SERVICE = `apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: shop, namespace: default}
spec:
  virtualHost:
    domains: ['*']
    routes:
      - matchers: [{prefix: /graphql}]
        graphqlApiRef: {name: hello}
`;

/** Replaces a file the way editors do (write aside, rename over). */
function write(name: string, text: string): void {
  const file = path.join(dir, name);
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

async function query(q: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${server.port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sluice-graphql-api': 'default.hello' },
    body: JSON.stringify({ query: q }),
  });
  return { status: res.status, json: await res.json() };
}

const readyz = async () => (await fetch(`http://127.0.0.1:${server.adminPort}/readyz`)).status;

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setTimeout(r, 20));
}

/** The next ACK or NACK of the GraphQLApi type from the sidecar. */
function nextReply(): Promise<'ack' | 'nack'> {
  return new Promise((resolve) => {
    const on = (kind: 'ack' | 'nack') => (e: { node: string; typeUrl: string }) => {
      if (e.node !== NODE || e.typeUrl !== TYPE_URL.graphqlApi) return;
      serving.xds.off('ack', onAck);
      serving.xds.off('nack', onNack);
      resolve(kind);
    };
    const onAck = on('ack');
    const onNack = on('nack');
    serving.xds.on('ack', onAck);
    serving.xds.on('nack', onNack);
  });
}

beforeAll(async () => {
  dir = tempDir('graphql-xds');
  write('vs.yaml', VIRTUAL_SERVICE);
  // Does not compile (the schema is required): serve starts with nothing to send.
  write('api.yaml', api(''));
  serving = await startServe({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
    debounceMs: 20,
  });
  server = await startGraphql({
    xds: `127.0.0.1:${serving.xdsPort}`,
    nodeId: NODE,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    logger: testLogger(),
  });
});

afterAll(async () => {
  await server?.close();
  await serving?.close();
});

test('not ready until the control plane sends a configuration, then serves it and follows each edit', async () => {
  expect(serving.firstCompile.ok).toBe(false);
  expect(await readyz()).toBe(503);
  expect(await query('{ hello }')).toEqual({
    status: 503,
    json: {
      errors: [
        { message: 'not ready: no configuration from the control plane yet', extensions: { code: 'NOT_READY' } },
      ],
    },
  });

  let reply = nextReply();
  write('api.yaml', api('type Query { hello: String }'));
  expect(await reply).toBe('ack');
  expect(await readyz()).toBe(200);
  expect(await query('{ hello }')).toEqual({ status: 200, json: { data: { hello: null } } });
  expect((await query('{ world }')).json.errors[0].message).toBe('Cannot query field "world" on type "Query".');

  reply = nextReply();
  write('api.yaml', api('type Query { hello: String world: Int }'));
  expect(await reply).toBe('ack');
  expect(await query('{ world }')).toEqual({ status: 200, json: { data: { world: null } } });
});

test('a set the sidecar cannot build is NACKed with the reason; the last good one is still served', async () => {
  // Straight from a snapshot cache: the compiler refuses such a schema before it could reach a sidecar.
  const cache = new SnapshotCache();
  const xds = new XdsServer(cache);
  const port = await xds.listen('127.0.0.1', 0);
  const node = `${NODE}-nack`;
  const sidecar = await startGraphql({
    xds: `127.0.0.1:${port}`,
    nodeId: node,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    logger: testLogger(),
  });
  try {
    const reply = (): Promise<string> =>
      new Promise((resolve) => {
        const on = (kind: string) => (e: { node: string; typeUrl: string }) =>
          e.node === node && e.typeUrl === TYPE_URL.graphqlApi && resolve(kind);
        xds.once('ack', on('ack'));
        xds.once('nack', on('nack'));
      });
    const push = (schema: string) =>
      cache.setSnapshot(
        buildSnapshot({
          [TYPE_URL.graphqlApi]: [{ name: 'default.hello', executable: { schema_definition: schema } }],
        }),
      );
    let r = reply();
    push('type Query { hello: String }');
    expect(await r).toBe('ack');
    r = reply();
    push('type Query { hello: Nope }');
    expect(await r).toBe('nack');
    expect(cache.lastNack(node, TYPE_URL.graphqlApi)?.errorDetail.message).toBe(
      'GraphQLApi default.hello: executable.schema_definition: Unknown type "Nope".',
    );
    const res = await fetch(`http://127.0.0.1:${sidecar.port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sluice-graphql-api': 'default.hello' },
      body: JSON.stringify({ query: '{ hello }' }),
    });
    expect(await res.json()).toEqual({ data: { hello: null } });
  } finally {
    await sidecar.close();
    await xds.close();
  }
});
