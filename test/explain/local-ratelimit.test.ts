/**
 * explain on Gloo's local rate limits (golden/gloo-local-ratelimit): which
 * bucket a request draws from, a token assumed left (explain does not count)
 * with the 429 Envoy answers when none is, and no limit where none is set.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-local-ratelimit/input'], DEFAULT_OPTIONS))!;
});

const RATE_LIMITED = {
  status: 429,
  body: 'local_rate_limited',
  headers: { 'x-envoy-ratelimited': 'true' },
  by: 'envoy.filters.http.local_ratelimit',
};

async function limitOf(url: string) {
  const e = await explain(config, { method: 'GET', url, headers: [] });
  return { step: e.steps.find((s) => s.stage === 'local_ratelimit')!, answer: e.answer };
}

test("a route with its own bucket draws from it, not from its virtual host's", async () => {
  const { step, answer } = await limitOf('http://api.example.com/search?q=rail');
  expect(step.summary).toBe("the route's bucket: 100 tokens, 100 more every 60s, in each Envoy instance");
  expect(answer).toMatchObject({ status: 'upstream', otherwise: [RATE_LIMITED] });
});

test("the other routes, a redirect among them, share the virtual host's bucket", async () => {
  for (const url of ['http://api.example.com/health', 'http://api.example.com/timetable']) {
    const { step, answer } = await limitOf(url);
    expect(step.summary).toBe("the virtual host's bucket: 10 tokens, 2 more every 2.5s, in each Envoy instance");
    expect(step.details).toEqual(['shared with every route of the virtual host that has no bucket of its own']);
    expect(answer.otherwise).toEqual([RATE_LIMITED]);
  }
});

test('a virtual host without a limit is not limited, though the filter is in the chain', async () => {
  const { step, answer } = await limitOf('http://shop.example.com/');
  expect(step.summary).toBe('no limit: neither the route nor its virtual host has a local rate limit');
  expect(answer).toMatchObject({ status: 'upstream' });
  expect(answer.otherwise ?? []).toEqual([]);
});
