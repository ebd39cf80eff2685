/**
 * sluice-graphql joins the caller's trace: a request with Envoy's W3C
 * traceparent (or B3 headers) becomes a server span under that parent, with
 * parse, validate, plan (stitched), execute and each upstream call as
 * children, exported over OTLP/HTTP to a real receiver in this process; the
 * upstreams get a traceparent naming the call's span. Without an endpoint
 * nothing is traced.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startGraphql, type RunningGraphql } from '../../graphql-server/server.js';
import { startGraphQLUpstream, type GraphQLUpstream } from '../../harness/graphql-upstream.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../harness/otlp-receiver.js';
import { startRestUpstream, type RestUpstream } from '../../harness/rest-upstream.js';
import { tempDir } from '../../harness/temp-dir.js';
import { testLogger } from '../../harness/log-check.js';
import { NO_TRACING, otlpEndpoint, startTracing } from '../../runtime/tracing.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const ENVOY_SPAN = '00f067aa0ba902b7';

let receiver: OtlpReceiver;
let upstream: GraphQLUpstream;
let rest: RestUpstream;
let server: RunningGraphql;
let spans: ReceivedSpan[];

async function post(api: string, query: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${server.port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sluice-graphql-api': api, ...headers },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startGraphQLUpstream({
    typeDefs: 'type Query { greeting(name: String!): String }',
    resolvers: { Query: { greeting: (_: unknown, args: { name: string }) => `hello ${args.name}` } },
  });
  rest = await startRestUpstream();
  const file = path.join(tempDir('tracing'), 'graphql.json');
  const users = {
    name: 'default.users',
    executable: {
      schema_definition: 'type Query { user(id: ID!): User @resolve(name: "user") } type User { id: ID name: String }',
      resolutions: {
        user: {
          rest: {
            target: { cluster: 'default.rest', hosts: [{ address: '127.0.0.1', port: rest.port }] },
            headers: { ':path': '/users/{$args.id}' },
          },
        },
      },
    },
  };
  const greeter = {
    name: 'default.greeter',
    executable: {
      schema_definition: 'type Query { greeting(name: String!): String }',
      remote: {
        target: { cluster: 'default.up', hosts: [{ address: '127.0.0.1', port: upstream.port }] },
        // Gloo's executor.remote.spanName names the call's span.
        span_name: 'greeter-remote',
      },
    },
  };
  const shop = {
    name: 'default.shop',
    stitched: { subschemas: [{ api: 'default.users' }, { api: 'default.greeter' }] },
  };
  await writeFile(file, JSON.stringify({ resources: [users, greeter, shop] }));
  server = await startGraphql({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'tracing-test',
    otlpEndpoint: receiver.endpoint,
    logger: testLogger(),
  });
  expect(
    await post('default.users', '{ user(id: 1) { name } }', { traceparent: `00-${TRACE_ID}-${ENVOY_SPAN}-01` }),
  ).toEqual({ data: { user: { name: 'Ada' } } });
  expect(
    await post('default.shop', 'query Shop { user(id: 2) { name } greeting(name: "trace") }', {
      traceparent: `00-${TRACE_ID.replace(/^4/, '5')}-${ENVOY_SPAN}-01`,
    }),
  ).toEqual({ data: { user: { name: 'Grace' }, greeting: 'hello trace' } });
  // Envoy's Zipkin tracer sends B3 instead.
  await post('default.users', '{ user(id: 2) { id } }', {
    'x-b3-traceid': TRACE_ID.replace(/^4/, '6'),
    'x-b3-spanid': ENVOY_SPAN,
    'x-b3-sampled': '1',
  });
  // Closing flushes the batch: every span is at the receiver after it.
  await server.close();
  spans = receiver.spans;
});

afterAll(async () => {
  await upstream?.close();
  await rest?.close();
  await receiver?.close();
});

/** The span tree of one trace as text, children indented under their parent. */
function tree(traceId: string): string {
  const inTrace = spans.filter((s) => s.traceId === traceId);
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const s of inTrace.filter((x) => x.parentSpanId === parent)) {
      lines.push(`${'  '.repeat(depth)}${s.name}`);
      walk(s.spanId, depth + 1);
    }
  };
  walk(ENVOY_SPAN, 0);
  return lines.join('\n');
}

test("a local API's request is a server span under Envoy's, with parse, validate, execute and the REST call", () => {
  expect(tree(TRACE_ID)).toBe(
    ['graphql POST', '  graphql.parse', '  graphql.validate', '  graphql.execute', '    HTTP GET default.rest'].join(
      '\n',
    ),
  );
  const root = spans.find((s) => s.traceId === TRACE_ID && s.name === 'graphql POST')!;
  expect(root).toMatchObject({ service: 'sluice-graphql', kind: 2, parentSpanId: ENVOY_SPAN });
  expect(root.attributes).toMatchObject({
    'sluice.graphql.api': 'default.users',
    'graphql.operation.type': 'query',
    'sluice.graphql.outcome': 'ok',
  });
  const call = spans.find((s) => s.traceId === TRACE_ID && s.name === 'HTTP GET default.rest')!;
  expect(call).toMatchObject({ kind: 3 });
  expect(call.attributes).toMatchObject({ 'http.response.status_code': 200, 'url.path': '/users/1' });
  // The REST upstream joined the trace under the call's span.
  expect(rest.requests[0]!.headers.traceparent).toBe(`00-${TRACE_ID}-${call.spanId}-01`);
});

test("a stitched API's request plans once and calls each subgraph's upstream under execute", () => {
  const traceId = TRACE_ID.replace(/^4/, '5');
  const text = tree(traceId);
  expect(text.split('\n').slice(0, 4)).toEqual([
    'graphql POST',
    '  graphql.parse',
    '  graphql.validate',
    '  graphql.execute',
  ]);
  expect(text).toContain('    graphql.plan');
  expect(text).toContain('HTTP GET default.rest');
  expect(text).toContain('greeter-remote');
  const call = spans.find((s) => s.traceId === traceId && s.name === 'greeter-remote')!;
  expect(upstream.requests.at(-1)!.headers.traceparent).toBe(`00-${traceId}-${call.spanId}-01`);
  const root = spans.find((s) => s.traceId === traceId && s.name === 'graphql POST')!;
  expect(root.attributes['graphql.operation.name']).toBe('Shop');
});

test("B3 headers (Envoy's Zipkin tracer) give the parent when there is no traceparent", () => {
  const traceId = TRACE_ID.replace(/^4/, '6');
  expect(tree(traceId).split('\n')[0]).toBe('graphql POST');
});

test('off unless an endpoint is given, by flag or OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
  expect(otlpEndpoint(undefined, {})).toBeUndefined();
  expect(otlpEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
  expect(otlpEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(
    'http://127.0.0.1:4318',
  );
  expect(otlpEndpoint('http://127.0.0.1:1', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(
    'http://127.0.0.1:1',
  );
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  try {
    expect(await startTracing({ service: 'x' })).toBe(NO_TRACING);
  } finally {
    if (saved !== undefined) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  }
});
