/**
 * explain on bufferPerRoute (golden/gloo-buffer-per-route): the buffer
 * filter, disabled by default without a Gateway's buffer, runs where a
 * virtual host or route enables it, with its limit and 413 beyond.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-buffer-per-route/input'], DEFAULT_OPTIONS))!;
});

const run = (url: string) => explain(config, { method: 'POST', url, headers: [] });
const buffer = (e: Awaited<ReturnType<typeof run>>) => e.steps.find((s) => s.stage === 'buffer')?.summary;
const TOO_LARGE = { status: 413, body: 'Payload Too Large', by: 'envoy.filters.http.buffer' };

test("the virtual host's limit: the body is read whole, 413 beyond it", async () => {
  const e = await run('http://upload.example.com/files');
  expect(buffer(e)).toBe('the body is read whole before the request goes on, at most 1048576 bytes');
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.otherwise).toContainEqual(TOO_LARGE);
});

test("a route's disabled: true turns its host's buffer off", async () => {
  const e = await run('http://upload.example.com/stream/1');
  expect(buffer(e)).toBe('off for this route: the body streams to the upstream');
  expect(e.answer.otherwise).not.toContainEqual(TOO_LARGE);
});

test("a route's own limit; the host's other routes are not buffered (the filter is disabled by default)", async () => {
  expect(buffer(await run('http://api.example.com/small'))).toBe(
    'the body is read whole before the request goes on, at most 1024 bytes',
  );
  const other = await run('http://api.example.com/other');
  expect(buffer(other)).toBe('off: disabled by default, and neither the route nor its virtual host enables it');
  expect(other.answer.otherwise).not.toContainEqual(TOO_LARGE);
});
