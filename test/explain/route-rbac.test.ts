/**
 * explain on route-level RBAC policies (golden/gloo-route-rbac): a route's
 * own policies replace its virtual host's, on a VirtualService route and on
 * a delegated RouteTable route, and the verdict names the route's policy.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-route-rbac/input'], DEFAULT_OPTIONS))!;
});

const run = (method: string, path: string, claims: Record<string, unknown>) =>
  explain(config, { method, url: `http://api.example.com${path}`, headers: [], claims });
const rbac = async (...args: Parameters<typeof run>) => (await run(...args)).steps.find((s) => s.stage === 'rbac')!;

test("the virtual host's policy applies where a route has none: a reader may GET, not DELETE", async () => {
  expect((await run('GET', '/items', { role: 'reader' })).answer.status).toBe('upstream');
  const denied = await run('DELETE', '/items', { role: 'reader' });
  expect(denied.answer).toMatchObject({ status: 403, body: 'RBAC: access denied' });
});

test("a route's own policies replace the host's: admins only on /admin, a reader refused", async () => {
  expect((await run('DELETE', '/admin/users/1', { role: 'admin' })).answer.status).toBe('upstream');
  const reader = await rbac('GET', '/admin', { role: 'reader' });
  expect(reader.summary).toBe('denied: no ALLOW policy matches');
  expect(reader.details).toEqual(['policy admins: no match: claim role of provider corp "reader" is not "admin"']);
});

test("a delegated route's policy on a nested claim and a path", async () => {
  expect((await run('GET', '/audit/logs/today', { org: { role: 'auditor' } })).answer.status).toBe('upstream');
  const elsewhere = await run('GET', '/audit/other', { org: { role: 'auditor' } });
  expect(elsewhere.answer.status).toBe(403);
});
