/**
 * `sluice serve` hands the rate limit service its rules over ADS: a real
 * client subscribed to sluice.ratelimit.v1.RateLimitDomain (as
 * sluice-ratelimit subscribes) gets one resource per domain, named by it,
 * with the compiled rules of the RateLimitConfigs in the inputs.
 */
import { TYPE_URL } from '../../contract/names.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { SotwClient } from '../../harness/xds-client.js';
import { testLogger } from '../../harness/log-check.js';

let serving: Serving | undefined;
let client: SotwClient | undefined;

afterAll(async () => {
  client?.close();
  await serving?.close();
});

test('a RateLimitDomain per domain, named by it, with each RateLimitConfig under its own generic_key', async () => {
  serving = await startServe({
    paths: ['golden/gloo-ratelimit-configs/input'],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
    debounceMs: 20,
  });
  client = new SotwClient(serving.xdsPort, 'sluice-ratelimit');
  client.send({ type_url: TYPE_URL.rateLimitDomain });
  const r = await client.expect(TYPE_URL.rateLimitDomain);
  expect(r.resources.map((d) => d.domain)).toEqual(['solo.io']);
  const [domain] = r.resources;
  expect(domain!.descriptors.map((d: { key: string; value: string }) => `${d.key}=${d.value}`)).toEqual([
    'generic_key=gloo-system.global-limit',
    'generic_key=gloo-system.per-upstream-counter',
  ]);
  expect(domain!.descriptors[0].descriptors).toEqual([
    { key: 'generic_key', value: 'count', rate_limit: { unit: 'MINUTE', requests_per_unit: 4 } },
  ]);
  expect(domain!.set_descriptors[1]).toEqual({
    simple_descriptors: [{ key: 'generic_key', value: 'gloo-system.by-type' }, { key: 'number' }],
    rate_limit: { unit: 'HOUR', requests_per_unit: 10 },
    always_apply: true,
  });
  client.ack(r);
});
