/**
 * explain on weighted destinations' options (golden/gloo-multi-destination-options):
 * explain follows the first destination, and shows what its ClusterWeight
 * changes: its request headers before the route's, its csrf and buffer
 * configs over the route's.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-multi-destination-options/input'], DEFAULT_OPTIONS))!;
});

const run = (url: string, headers: [string, string][] = [], method = 'POST') =>
  explain(config, { method, url, headers });
const stage = (e: Awaited<ReturnType<typeof run>>, name: string) => e.steps.find((s) => s.stage === name);

test("the picked destination's request headers come before the route's, its removals are shown", async () => {
  const e = await run('http://items.example.com/list', [], 'GET');
  const details = stage(e, 'destination')!.details;
  expect(details).toContain('headers set: x-track: stable; x-route: items');
  expect(details.find((d) => d.startsWith('headers removed:'))).toContain('x-debug');
  expect(details.find((d) => d.startsWith('weighted clusters:'))).toMatch(/^weighted clusters: shop-items-v1-8080/);
});

test("the picked destination's csrf policy applies: a cross-origin POST is refused, its additional origin is not", async () => {
  const refused = await run('http://items.example.com/list', [['origin', 'https://evil.example']]);
  expect(refused.answer.status).toBe(403);
  const allowed = await run('http://items.example.com/list', [['origin', 'https://shop.example.com']]);
  expect(allowed.answer.status).toBe('upstream');
  expect(stage(allowed, 'csrf')?.summary).toBeDefined();
});

test("an UpstreamGroup destination's bufferPerRoute: disabled turns the buffer off there", async () => {
  const e = await run('http://items.example.com/canary');
  expect(stage(e, 'buffer')?.summary).toBe('off for this route: the body streams to the upstream');
});
