/**
 * explain on a Gateway's ext_proc filters (golden/gloo-ext-proc): which
 * server a request is streamed to, in which order with the other filters,
 * the virtual host's and route's settings merged as Envoy merges them, and
 * the late filter among the router's upstream filters.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-ext-proc/input'], DEFAULT_OPTIONS))!;
});

const run = (path: string, method = 'GET') =>
  explain(config, { method, url: `http://shop.example.com:8080${path}`, headers: [] });

test('the filters run in chain order: cors, the early ext_proc (off on this host), the regular one, csrf, then the late one', async () => {
  const e = await run('/items');
  const filters = ['envoy.filters.http.cors', 'ext_proc.early', 'ext_proc', 'csrf', 'ext_proc.late'];
  expect(e.steps.map((s) => s.stage).filter((s) => filters.includes(s))).toEqual(filters);
  expect(e.steps.find((s) => s.stage === 'ext_proc.early')?.summary).toBe(
    'off for this request (disabled on the virtual host): nothing is sent to its server',
  );
});

test("the regular filter streams to the Gateway's server with the host's processing mode and attributes", async () => {
  const e = await run('/items');
  const step = e.steps.find((s) => s.stage === 'ext_proc')!;
  expect(step.summary).toBe('in the chain: the request is streamed to the ext_proc server at cluster ext-proc');
  expect(step.details).toEqual([
    'sent: request headers, response headers',
    'with the attributes request.host',
    "settings of the virtual host over the Gateway's",
  ]);
  // Not failureModeAllow: an unreachable server is a 500.
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.assumptions).toContain('the ext_proc server at cluster ext-proc lets the request through unchanged');
  expect(e.answer.otherwise).toContainEqual({ status: 500, body: '', by: 'envoy.filters.http.ext_proc' });
});

test("a route's overrides are merged over its host's: another server, the host's processing mode kept", async () => {
  const e = await run('/audit/1');
  const step = e.steps.find((s) => s.stage === 'ext_proc')!;
  expect(step.summary).toBe('in the chain: the request is streamed to the ext_proc server at cluster audit-proc');
  expect(step.details).toEqual([
    'sent: request headers, response headers',
    'with the attributes request.host',
    "settings of the virtual host and the route over the Gateway's",
  ]);
  expect(e.steps.find((s) => s.stage === 'ext_proc.late')?.summary).toBe(
    'off for this request (disabled on the route): nothing is sent to its server',
  );
});

test("the late filter runs among the router's upstream filters, once the route is chosen", async () => {
  const e = await run('/items');
  expect(e.steps.find((s) => s.stage === 'ext_proc.late')).toMatchObject({
    summary:
      "among the router's upstream filters, just before the request leaves Envoy: the request is streamed to the ext_proc server at cluster ext-proc",
    details: ['sent: request headers, response headers'],
  });
});
