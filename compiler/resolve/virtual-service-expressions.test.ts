import { formatDiagnostic } from '../diagnostics.js';
import { compileFiles } from '../pipeline.js';
import { DEFAULT_OPTIONS, type Json } from '../translate/output.js';

test("virtualServiceExpressions: each Gateway's route configuration holds the VirtualServices whose labels satisfy every expression, in its namespaces", async () => {
  const result = await compileFiles(['golden/gateway-vs-expressions/input'], DEFAULT_OPTIONS);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([
    expect.stringContaining('VirtualService blog/blog is served by no Gateway'),
  ]);
  const hosts = (routes: string) =>
    ((result.xds!.routes.get(routes) as Json).virtual_hosts as Json[]).map((vh) => vh.name);
  // In [public, partner] and no `deprecated` label, in namespace shop: not shop/legacy (deprecated), not blog/blog (namespace).
  expect(hosts('listener-::-8080-routes')).toEqual(['shop.partner', 'shop.shop']);
  // tier > 1 as a number: legacy (3) and partner (2), not blog (1) nor shop (no tier label).
  expect(hosts('listener-::-8081-routes')).toEqual(['shop.legacy', 'shop.partner']);
});

test('expressions Kubernetes would refuse are errors at the expression, and the Gateway serves nothing', async () => {
  const result = await compileFiles(['golden/gateway-vs-expressions-errors/input'], DEFAULT_OPTIONS);
  expect(result.xds).toBeUndefined();
  expect(result.diagnostics.filter((d) => d.resource === 'Gateway gloo-system/bad').map((d) => d.field)).toEqual([
    'spec.httpGateway.virtualServiceExpressions.expressions[0].values',
    'spec.httpGateway.virtualServiceExpressions.expressions[1].values',
    'spec.httpGateway.virtualServiceExpressions.expressions[2].values',
  ]);
});
