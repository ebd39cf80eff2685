/**
 * explain on Gloo's global rate limits (goldens gloo-ratelimit-configs and
 * gloo-ratelimit-settings): the descriptors Envoy sends for a request, the
 * rule of the compiled domain each reaches, the virtual host's limits where
 * the route has none and the route's own (with what it inherits) where it
 * has some; no counting, so the 429 is the other outcome.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let configs: GatewayConfig;
let settings: GatewayConfig;

beforeAll(async () => {
  configs = fromCompileResult(await compileFiles(['golden/gloo-ratelimit-configs/input'], DEFAULT_OPTIONS))!;
  settings = fromCompileResult(await compileFiles(['golden/gloo-ratelimit-settings/input'], DEFAULT_OPTIONS))!;
});

const OVER_LIMIT = { status: 429, body: '', headers: { 'x-envoy-ratelimited': 'true' } };

async function limits(config: GatewayConfig, url: string, headers: [string, string][] = []) {
  const e = await explain(config, { method: 'GET', url, headers });
  return { steps: e.steps.filter((s) => s.stage.startsWith('ratelimit ')), answer: e.answer };
}

test("RateLimitConfigs of the virtual host: each policy's descriptor reaches its own rules", async () => {
  const { steps, answer } = await limits(configs, 'http://any/echo-1');
  expect(steps.map((s) => s.summary)).toEqual(['2 descriptors of the virtual host to domain solo.io (stage 2)']);
  expect(steps[0]!.details).toEqual([
    '(generic_key, gloo-system.global-limit) (generic_key, count) -> rule generic_key=gloo-system.global-limit > generic_key=count: 4 per minute',
    '(generic_key, gloo-system.per-upstream-counter) (destination_cluster, echo-1) -> rule generic_key=gloo-system.per-upstream-counter > destination_cluster: 3 per minute, one counter per destination_cluster',
  ]);
  expect(answer).toMatchObject({ status: 'upstream', otherwise: [OVER_LIMIT] });
});

test("a route's own RateLimitConfig replaces the host's; set rules match as a set, a missing header skipped", async () => {
  const { steps } = await limits(configs, 'http://any/echo-2', [
    ['x-number', '7'],
    ['x-type', 'Messenger'],
  ]);
  expect(steps[0]!.summary).toBe('1 descriptor of the route to domain solo.io (stage 2)');
  expect(steps[0]!.details).toEqual([
    '(generic_key, solo.setDescriptor.uniqueValue) (generic_key, gloo-system.by-type) (type, Messenger) (number, 7) -> set rule {generic_key=gloo-system.by-type, type=Messenger}: 2 per minute; set rule {generic_key=gloo-system.by-type, number}: 10 per hour',
  ]);
  const without = await limits(configs, 'http://any/echo-2', [['x-number', '7']]);
  expect(without.steps[0]!.details).toEqual([
    '(generic_key, solo.setDescriptor.uniqueValue) (generic_key, gloo-system.by-type) (number, 7) -> set rule {generic_key=gloo-system.by-type, number}: 10 per hour',
  ]);
});

test('Settings rules: a header that is absent sends no descriptor; ratelimitBasic counts an anonymous client per address', async () => {
  const { steps, answer } = await limits(settings, 'http://any/', [
    ['x-account-id', '42'],
    ['x-plan', 'PLUS'],
  ]);
  const ingress = steps.find((s) => s.stage === 'ratelimit ingress')!;
  expect(ingress.details).toEqual([
    'the headers do not match: the header_match is-authenticated descriptor is not sent',
    "(generic_key, gloo-system.petstore) (header_match, not-authenticated) (remote_address, <the client's address>) -> rule generic_key=gloo-system.petstore > header_match=not-authenticated > remote_address: 1000 per hour, one counter per remote_address",
  ]);
  const custom = steps.find((s) => s.stage === 'ratelimit custom' && s.details.length > 0)!;
  expect(custom.details).toEqual([
    '(generic_key, per-minute) -> rule generic_key=per-minute: 1 per minute',
    '(account_id, 42) (plan, PLUS) -> rule account_id > plan=PLUS: 20 per minute',
  ]);
  // denyOnFail: a service that does not answer is a 503.
  expect(answer.otherwise).toEqual([expect.objectContaining(OVER_LIMIT), expect.objectContaining({ status: 503 })]);
});

test('a descriptor with a limit override says where its limit may come from instead of the rule', async () => {
  const override = fromCompileResult(await compileFiles(['golden/gloo-ratelimit-override/input'], DEFAULT_OPTIONS))!;
  const { steps } = await limits(override, 'http://api.example.com/', [['x-tenant', 'acme']]);
  expect(steps.find((s) => s.stage === 'ratelimit custom')!.details).toEqual([
    '(tenant, acme) -> rule tenant: 100 per minute, one counter per tenant, unless dynamic metadata envoy.filters.http.ext_authz: tenant.limit holds a limit, which the service counts instead (explain does not see dynamic metadata)',
    "(remote_address, <the client's address>) -> no rule for remote_address: not limited",
  ]);
});
