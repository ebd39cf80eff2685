/**
 * explain on a Service's endpoints from its EndpointSlices and Pods
 * (golden/kube-subsets, golden/kube-endpoints): a route's subset picks the
 * pods with its labels, a subset no pod is in falls back as the Upstream's
 * fallbackPolicy says, and a terminating pod is shown draining.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

async function configOf(dir: string): Promise<GatewayConfig> {
  const config = fromCompileResult(await compileFiles([dir], DEFAULT_OPTIONS));
  if (!config) throw new Error(`${dir} does not compile`);
  return config;
}

async function destinationOf(config: GatewayConfig, url: string): Promise<string> {
  const e = await explain(config, { method: 'GET', url, headers: [] });
  return e.steps.find((s) => s.stage === 'destination')!.summary;
}

test("a route's subset reaches the pods with its labels; without a matching pod the fallback decides", async () => {
  const config = await configOf('golden/kube-subsets/input');
  expect(await destinationOf(config, 'http://reviews.example.com/')).toBe(
    'cluster reviews (EDS, subset version=v1): 10.244.0.11:9080',
  );
  // Weighted: the first destination (v1, weight 90) is the one shown.
  expect(await destinationOf(config, 'http://reviews.example.com/canary')).toBe(
    'cluster reviews (EDS, subset version=v1): 10.244.0.11:9080',
  );
  // No pod has version v3: reviews-any falls back to ANY_ENDPOINT (Gloo's default).
  expect(await destinationOf(config, 'http://reviews.example.com/any')).toBe(
    'cluster reviews-any (EDS, no endpoint in subset version=v3: fallback ANY_ENDPOINT, every endpoint): 10.244.0.11:9080, 10.244.0.12:9080, 10.244.0.13:9080, 10.244.0.14:9080',
  );
  // kube.selector: only the v2 pod is an endpoint (10.244.0.14, whose Pod is not among the inputs, is left out).
  expect(await destinationOf(config, 'http://reviews.example.com/v2')).toBe(
    'cluster reviews-v2 (EDS): 10.244.0.12:9080',
  );
});

test('a terminating pod that still serves is an endpoint, shown draining; one neither ready nor serving is none', async () => {
  const config = await configOf('golden/kube-endpoints/input');
  const e = await explain(config, { method: 'GET', url: 'http://shop.example.com/pets', headers: [] });
  const step = e.steps.find((s) => s.stage === 'destination')!;
  expect(step.summary).toBe(
    'cluster shop-petstore-8080 (EDS): 10.244.1.5:3000, 10.244.2.4:3000 (draining), 10.244.2.9:3000',
  );
  expect(step.details).toContain(
    "draining endpoints (terminating pods) get new requests only when fewer than half of the endpoints are healthy (Envoy's panic threshold); their open connections are not cut",
  );
  expect(await destinationOf(config, 'http://shop.example.com/pay')).toBe(
    'cluster shop-payments-443 (STRICT_DNS, resolved by Envoy): payments.example.net:443',
  );
});
