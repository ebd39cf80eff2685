/**
 * explain on a Gateway's local rate limits (golden/gateway-local-ratelimit):
 * the Gateway's bucket for routes without their own, a route's own bucket
 * instead, the x-ratelimit-* headers on both answers, buckets per connection,
 * and the connection bucket of networkLocalRatelimit.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gateway-local-ratelimit/input'], DEFAULT_OPTIONS))!;
});

const run = (url: string) => explain(config, { method: 'GET', url, headers: [] });
const stage = (e: Awaited<ReturnType<typeof run>>, name: string) => e.steps.find((s) => s.stage === name);

test("/status/200 and /ip take the Gateway's bucket, with the x-ratelimit-* headers on either answer", async () => {
  for (const path of ['/status/200', '/ip']) {
    const e = await run(`http://httpbin.example.com:8080${path}`);
    expect(stage(e, 'local_ratelimit')?.summary).toBe(
      "the Gateway's bucket: 1 token, 1 more every 100s, in each Envoy instance",
    );
    expect(e.answer).toMatchObject({
      status: 'upstream',
      headers: { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '<tokens left>' },
      otherwise: [
        {
          status: 429,
          body: 'local_rate_limited',
          headers: { 'x-envoy-ratelimited': 'true', 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0' },
          by: 'envoy.filters.http.local_ratelimit',
        },
      ],
    });
    expect(e.answer.assumptions).toContain(
      "the Gateway's bucket still holds a token (explain does not count the requests before this one)",
    );
  }
});

test("/headers takes its own bucket instead of the Gateway's, still with the Gateway's headers", async () => {
  const e = await run('http://httpbin.example.com:8080/headers');
  expect(stage(e, 'local_ratelimit')?.summary).toBe(
    "the route's bucket: 3 tokens, 3 more every 30s, in each Envoy instance",
  );
  expect(e.answer.headers).toMatchObject({ 'x-ratelimit-limit': '3' });
});

test('the second Gateway: the connection bucket first, buckets per connection, no bucket for hosts without one', async () => {
  const e = await run('http://httpbin.example.com:8081/status/200');
  const steps = e.steps.map((s) => s.stage);
  expect(steps.indexOf('network_local_ratelimit')).toBeLessThan(steps.indexOf('local_ratelimit'));
  expect(stage(e, 'network_local_ratelimit')?.summary).toBe(
    "the Gateway's connection bucket: 1 token, 1 more every 100s, in each Envoy instance; a new connection takes a token",
  );
  expect(e.answer.assumptions).toContain(
    "the connection found a token in the Gateway's connection bucket when it opened (otherwise Envoy closes it at once, with no HTTP answer)",
  );
  expect(stage(e, 'local_ratelimit')?.summary).toBe(
    'no limit: neither the route nor its virtual host has a local rate limit',
  );
  expect(e.answer.headers ?? {}).not.toHaveProperty('x-ratelimit-limit');
  const admin = await run('http://admin.example.com:8081/');
  expect(stage(admin, 'local_ratelimit')?.summary).toBe(
    "the virtual host's bucket: 5 tokens, 1 more every 1s, in each client connection",
  );
});
