/**
 * headerSecretRef (golden/gloo-header-secrets, gloo-error-header-secrets):
 * the Secret's entries become Envoy's request header lists, each with the
 * option's append; explain, --dump-ir and errors name the Secret and never
 * carry a value; an edit of the Secret reaches the next compile.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { fromCompileResult } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { renderText } from '../../compiler/explain/render.js';
import { dumpIr } from '../../compiler/ir/dump.js';
import { Compiler, compileFiles, type CompileResult } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS, type Json } from '../../compiler/translate/output.js';
import { tempDir } from '../../harness/temp-dir.js';

const INPUT = 'golden/gloo-header-secrets/input';
/** The Secrets' values in the golden input (all fake), none of which may be shown. */
const VALUES = ['fake-partner-key-0000', 'example-partner', 'Bearer fake-billing-token-0000', 'fake-next-token-0000'];

let result: CompileResult;
beforeAll(async () => {
  result = await compileFiles([INPUT], DEFAULT_OPTIONS);
});

const virtualHost = (r: CompileResult) =>
  ([...r.xds!.routes.values()][0]!.virtual_hosts as Json[]).find((v) => v.name === 'gloo-system.partner')!;
const added = (holder: Json) =>
  ((holder.request_headers_to_add as Json[] | undefined) ?? []).map((a) => [
    (a.header as Json).key,
    (a.header as Json).value,
    a.append_action,
  ]);

describe('translate', () => {
  test("each entry of the Secret is a header, in the order of the entry names, with the option's append", () => {
    const vh = virtualHost(result);
    expect(added(vh)).toEqual([
      ['x-partner-id', 'example-partner', 'OVERWRITE_IF_EXISTS_OR_ADD'],
      ['x-partner-key', 'fake-partner-key-0000', 'OVERWRITE_IF_EXISTS_OR_ADD'],
      ['x-gateway', 'sluice', 'APPEND_IF_EXISTS_OR_ADD'],
    ]);
    const [billing, split] = vh.routes as Json[];
    // An Opaque Secret in another namespace, append unset (Gloo: append).
    expect(added(billing!)).toEqual([['authorization', 'Bearer fake-billing-token-0000', 'APPEND_IF_EXISTS_OR_ADD']]);
    const clusters = ((split!.route as Json).weighted_clusters as Json).clusters as Json[];
    expect(added(clusters[0]!)).toEqual([]);
    expect(added(clusters[1]!)).toEqual([['x-next-token', 'fake-next-token-0000', 'OVERWRITE_IF_EXISTS_OR_ADD']]);
  });

  test('--dump-ir names the Secret instead of each value', () => {
    const ir = dumpIr(result.ir!);
    for (const v of VALUES) expect(ir).not.toContain(v);
    expect(ir).toContain('value: <from Secret gloo-system/partner-credentials>');
    expect(ir).toContain('value: sluice');
  });

  test('an edit of the Secret reaches the next compile of the VirtualService that names it', async () => {
    const dir = tempDir('header-secrets');
    const file = path.join(dir, 'partner.yaml');
    const text = readFileSync(path.join(INPUT, 'partner.yaml'), 'utf8');
    writeFileSync(file, text);
    const compiler = new Compiler(DEFAULT_OPTIONS);
    expect(added((virtualHost(await compiler.compile([dir])).routes as Json[])[0]!)[0]![1]).toBe(
      'Bearer fake-billing-token-0000',
    );
    writeFileSync(file, text.replace('Bearer fake-billing-token-0000', 'Bearer fake-billing-token-0001'));
    expect(added((virtualHost(await compiler.compile([dir])).routes as Json[])[0]!)[0]![1]).toBe(
      'Bearer fake-billing-token-0001',
    );
  });
});

describe('explain', () => {
  test('shows where each value comes from, never the value, in text and JSON', async () => {
    const config = fromCompileResult(result)!;
    for (const url of ['http://partner.example.com/billing/invoices', 'http://partner.example.com/']) {
      const e = await explain(config, { method: 'GET', url, headers: [] });
      const text = `${renderText(e)}\n${JSON.stringify(e)}`;
      for (const v of VALUES) expect(text).not.toContain(v);
      expect(text).toContain(
        'x-partner-id: <from Secret gloo-system/partner-credentials>; x-partner-key: <from Secret gloo-system/partner-credentials>; x-gateway: sluice',
      );
    }
    const billing = await explain(config, { method: 'GET', url: 'http://partner.example.com/billing/x', headers: [] });
    expect(renderText(billing)).toContain(
      'headers set: authorization: <from Secret billing/billing-token>; x-partner-id',
    );
  });
});

test('errors name the Secret and its entry, never the value', async () => {
  const failed = await compileFiles(['golden/gloo-error-header-secrets/input'], DEFAULT_OPTIONS);
  const text = failed.diagnostics.map(formatDiagnostic).join('\n');
  expect(text).toContain(`Secret gloo-system/echoed's entry "x-api-key" is not a valid header value`);
  for (const v of ['fake-token', 'fake.example.com', 'fake-user']) expect(text).not.toContain(v);
});
