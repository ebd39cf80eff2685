/**
 * earlyHeaderManipulation (golden/gateway-early-headers): the connection
 * manager's early header mutation, adds then removals; explain applies it
 * before choosing the route, so it decides which route a request takes, and
 * shows a Secret's value by the Secret's name.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { renderText } from '../../compiler/explain/render.js';
import { earlyHeaderMutation } from '../../compiler/translate/early-headers.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS, type Json } from '../../compiler/translate/output.js';

let config: GatewayConfig;
beforeAll(async () => {
  const result = await compileFiles(['golden/gateway-early-headers/input'], DEFAULT_OPTIONS);
  expect(result.diagnostics).toEqual([]);
  config = fromCompileResult(result)!;
});

describe('translate', () => {
  test('nothing to change: no extension; otherwise the adds, then the removals, in one header_mutation', () => {
    expect(earlyHeaderMutation(undefined)).toEqual({});
    expect(earlyHeaderMutation({ add: [], remove: [] })).toEqual({});
    const out = earlyHeaderMutation({
      add: [{ key: 'x-a', value: '1', append: false }],
      remove: ['x-b'],
    }).early_header_mutation_extensions as Json[];
    expect(out).toHaveLength(1);
    expect((out[0]!.typed_config as Json).mutations).toEqual([
      { append: { header: { key: 'x-a', value: '1' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' } },
      { remove: 'x-b' },
    ]);
  });
});

describe('explain', () => {
  const run = (headers: [string, string][]) =>
    explain(config, { method: 'GET', url: 'http://shop.example.com/cart', headers });

  test("a client's x-tenant is overwritten before routing, so it cannot choose the internal route", async () => {
    const e = await run([['x-tenant', 'internal']]);
    const early = e.steps.find((s) => s.stage === 'early headers')!;
    expect(early.summary).toBe(
      'set x-tenant: public; x-edge-key: <from Secret gloo-system/edge-credentials> (before routing and the HTTP filters)',
    );
    expect(e.steps.indexOf(early)).toBeLessThan(e.steps.findIndex((s) => s.stage === 'route'));
    expect(e.matched.cluster).toBe('shop');
    expect(`${renderText(e)}${JSON.stringify(e)}`).not.toContain('fake-edge-key');
  });

  test('x-debug is removed before the routes match it', async () => {
    const e = await run([['x-debug', '1']]);
    expect(e.steps.find((s) => s.stage === 'early headers')!.summary).toMatch(/; removed x-debug \(before routing/);
    expect(e.answer.status).toBe('upstream');
  });
});
