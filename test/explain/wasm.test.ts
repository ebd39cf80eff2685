/** explain on a Gateway's wasm filters (golden/gateway-wasm): each plugin is named where it runs, and the answer rests on it. */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gateway-wasm/input'], DEFAULT_OPTIONS))!;
});

test('both plugins run in chain order, with their module, root id and failure mode; the answer rests on them', async () => {
  const e = await explain(config, {
    method: 'GET',
    url: 'http://shop.example.com:8080/',
    headers: [],
    claims: { sub: 'alice' },
  });
  const wasm = e.steps.filter((s) => s.stage === 'wasm');
  expect(wasm.map((s) => s.summary)).toEqual([
    'the WebAssembly plugin add-header runs; explain cannot run its code',
    'the WebAssembly plugin tenant-tagger runs; explain cannot run its code',
  ]);
  expect(wasm[0]!.details).toEqual([
    'module /wasm-filters/add-header.wasm, root id add_header',
    'if its VM has failed, requests are answered 503',
  ]);
  expect(wasm[1]!.details[1]).toBe('if its VM has failed, requests pass the filter (fail_open)');
  // The order of the chain: add-header (fault stage), jwt_authn, then tenant-tagger (before authentication, after jwt_authn by name).
  const stages = e.steps.map((s) => s.stage);
  expect(stages.indexOf('wasm')).toBeLessThan(stages.indexOf('jwt_authn'));
  expect(stages.lastIndexOf('wasm')).toBeGreaterThan(stages.indexOf('jwt_authn'));
  expect(e.answer.assumptions).toEqual(
    expect.arrayContaining([
      'the wasm plugin add-header lets the request through unchanged',
      'the wasm plugin tenant-tagger lets the request through unchanged',
    ]),
  );
});
