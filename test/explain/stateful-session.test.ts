/**
 * explain on a Gateway's stateful_session filter (golden/gateway-stateful-session):
 * which cookie or header pins the upstream host, with the host itself an
 * assumption (explain knows no hosts), and strict's 503.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gateway-stateful-session/input'], DEFAULT_OPTIONS))!;
});

const run = (url: string, headers: [string, string][] = []) => explain(config, { method: 'GET', url, headers });
const stage = (e: Awaited<ReturnType<typeof run>>) => e.steps.find((s) => s.stage === 'stateful_session');

test('no cookie yet: the load balancer picks the host and the answer sets the cookie', async () => {
  const e = await run('http://app.example.com:8080/route1', [['cookie', 'other=1']]);
  expect(stage(e)?.summary).toBe(
    'no cookie statefulsessioncookie in the request: the load balancer picks the host, and the answer names it in Set-Cookie statefulsessioncookie (Max-Age 60s, Path /route1)',
  );
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.assumptions.some((a) => a.startsWith('explain does not know which host'))).toBe(true);
});

test('the cookie sent back: that host gets the request; not strict, another host if it is gone', async () => {
  const e = await run('http://app.example.com:8080/route1', [
    ['cookie', 'a=1; statefulsessioncookie=MTAuMjQ0LjAuNDU6ODA4MA=='],
  ]);
  expect(stage(e)?.summary).toBe(
    'the cookie statefulsessioncookie names the upstream host: the request goes to that host',
  );
  expect(e.answer.assumptions).toContain(
    "the cookie statefulsessioncookie names a healthy host of the route's cluster (explain does not decode which host the value names); if it is gone or unhealthy, the load balancer picks another",
  );
  expect(e.answer.otherwise).toEqual([]);
});

test('strict header sessions: 503 is the other outcome when the named host is gone; no header, no pinning', async () => {
  const pinned = await run('http://app.example.com:8081/route1', [
    ['StatefulSessionHeader', 'MTAuMjQ0LjAuNDU6ODA4MA=='],
  ]);
  expect(stage(pinned)?.summary).toBe(
    'the header statefulsessionheader names the upstream host: the request goes to that host',
  );
  expect(pinned.answer.otherwise).toContainEqual({ status: 503, body: 'no healthy upstream', by: 'envoy' });
  const fresh = await run('http://app.example.com:8081/route1');
  expect(stage(fresh)?.summary).toBe(
    'no header statefulsessionheader in the request: the load balancer picks the host, and the answer names it in the header statefulsessionheader',
  );
});
