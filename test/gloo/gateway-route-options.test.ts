/**
 * A Gateway's routeOptions (golden/gateway-route-options): fields of its own
 * route configuration only; a direct response body is checked against the
 * limit of each Gateway that serves it; explain applies the header levels in
 * the order most_specific_header_mutations_wins gives.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { fromCompileResult } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles, type CompileResult } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { tempDir } from '../../harness/temp-dir.js';

const INPUT = 'golden/gateway-route-options/input';
let result: CompileResult;
beforeAll(async () => {
  result = await compileFiles([INPUT], DEFAULT_OPTIONS);
});

describe('translate', () => {
  test("the fields are on the route configuration of the Gateway that sets them, not on the other's", () => {
    const pub = result.xds!.routes.get('listener-::-8080-routes')!;
    const internal = result.xds!.routes.get('listener-::-8081-routes')!;
    expect(pub).toMatchObject({ max_direct_response_body_size_bytes: 8192, most_specific_header_mutations_wins: true });
    expect(Object.keys(internal!).sort()).toEqual(['name', 'virtual_hosts']);
  });

  test('a body over 4096 bytes compiles on the Gateway that allows it, and is an error where a Gateway with the default serves it', async () => {
    const dir = tempDir('route-options');
    const text = readFileSync(path.join(INPUT, 'resources.yaml'), 'utf8').replace(
      "'down for maintenance'",
      `'${'d'.repeat(5000)}'`,
    );
    // Only the public Gateway (8192 bytes) serves the VirtualService.
    writeFileSync(
      path.join(dir, 'resources.yaml'),
      text.replace(
        '  bindPort: 8081\n  httpGateway:\n    virtualServices: [{name: status, namespace: gloo-system}]',
        '  bindPort: 8081\n  httpGateway:\n    virtualServiceSelector: {tier: none}',
      ),
    );
    const allowed = await compileFiles([dir], DEFAULT_OPTIONS);
    expect(allowed.diagnostics.map(formatDiagnostic)).toEqual([expect.stringContaining('serves no VirtualService')]);
    expect(allowed.xds!.routes.get('listener-::-8080-routes')!.virtual_hosts).toHaveLength(1);
    writeFileSync(path.join(dir, 'resources.yaml'), text);
    const refused = await compileFiles([dir], DEFAULT_OPTIONS);
    expect(refused.diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringContaining(
        'spec.virtualHost.routes[0].directResponseAction.body: the body is 5000 bytes, and Envoy refuses a route configuration with a direct response body over 4096 bytes — shorten the body, serve it from an upstream, or raise routeOptions.maxDirectResponseBodySizeBytes on Gateway gloo-system/internal',
      ),
    ]);
  });
});

describe('explain', () => {
  const headersSet = async (port: number) => {
    const e = await explain(fromCompileResult(result)!, {
      method: 'GET',
      url: `http://status.example.com:${port}/`,
      headers: [['Host', 'status.example.com']],
    });
    return e.steps.find((s) => s.stage === 'destination')!.details.find((d) => d.startsWith('headers set:'));
  };

  test("with most_specific_header_mutations_wins the route's overwrite is applied last; without it, the virtual host's", async () => {
    expect(await headersSet(8080)).toMatch(
      /^headers set: x-env: host; x-env: route \(.*most specific overwrite wins\)$/,
    );
    expect(await headersSet(8081)).toBe('headers set: x-env: route; x-env: host');
  });
});
