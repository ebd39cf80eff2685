/**
 * explain on a Gateway's own filters (golden/gateway-http-filters): the
 * health check answered by Envoy, the compressed answer's headers, the
 * buffer's 413 as the other outcome, and a matched gateway's own filters.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { renderText } from '../../compiler/explain/render.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gateway-http-filters/input'], DEFAULT_OPTIONS))!;
});

const run = (url: string, headers: [string, string][] = [], method = 'GET') =>
  explain(config, { method, url, headers });
const stage = (e: Awaited<ReturnType<typeof run>>, name: string) => e.steps.find((s) => s.stage === name);

test('the health check path is answered 200 by Envoy, before any route or upstream', async () => {
  const e = await run('http://shop.example.com:8080/healthz');
  expect(e.answer).toMatchObject({
    status: 200,
    by: 'envoy.filters.http.health_check',
    otherwise: [{ status: 503, by: 'envoy.filters.http.health_check' }],
  });
  expect(e.steps.some((s) => s.stage === 'router')).toBe(false);
  // Any Host: the filter does not look at the virtual host.
  expect((await run('http://10.1.2.3:8080/healthz')).answer.status).toBe(200);
});

test('the health check matches the whole path: with a query it goes to the route', async () => {
  const e = await run('http://shop.example.com:8080/healthz?verbose=1');
  expect(stage(e, 'health_check')?.summary).toBe('/healthz?verbose=1 is not the health check path /healthz: passed on');
  expect(e.answer.status).toBe('upstream');
});

test('a client accepting gzip gets the upstream answer gzipped, on the stated conditions', async () => {
  const e = await run('http://shop.example.com:8080/items', [['Accept-Encoding', 'br, gzip;q=0.8']]);
  expect(e.answer).toMatchObject({
    status: 'upstream',
    headers: { 'content-encoding': 'gzip', vary: 'accept-encoding' },
  });
  expect(stage(e, 'compressor')?.details).toEqual(['accept-encoding is removed before the request goes upstream']);
  expect(e.answer.assumptions).toContain(
    "the upstream's answer has a content type of application/json, text/html, at least 100 bytes, no ETag, no content-encoding of its own and no cache-control: no-transform (otherwise it comes back as it is)",
  );
  // The text form names the headers Envoy adds to the upstream's answer too.
  expect(renderText(e)).toMatch(
    /^answer: upstream \(cluster [^)]+ answers\), content-encoding: gzip, vary: accept-encoding$/m,
  );
});

test('gzip refused (q=0) or not asked for: no content-encoding', async () => {
  for (const headers of [[['Accept-Encoding', 'gzip;q=0, br']], []] as [string, string][][]) {
    const e = await run('http://shop.example.com:8080/items', headers);
    expect(stage(e, 'compressor')?.summary).toBe('not compressed: the request does not accept gzip (accept-encoding)');
    expect(e.answer.headers?.['content-encoding']).toBeUndefined();
  }
});

test("the buffer's limit is an assumption with 413 as the other outcome", async () => {
  const e = await run('http://shop.example.com:8080/items', [], 'POST');
  expect(stage(e, 'buffer')?.summary).toBe('the body is read whole before the request goes on, at most 65536 bytes');
  expect(e.answer.otherwise).toContainEqual({
    status: 413,
    body: 'Payload Too Large',
    by: 'envoy.filters.http.buffer',
  });
});

test('gRPC-Web requests are converted, others passed on', async () => {
  const grpc = await run('http://shop.example.com:8080/users.UserService/GetUser', [
    ['content-type', 'application/grpc-web+proto'],
  ]);
  expect(stage(grpc, 'grpc_web')?.summary).toBe(
    'content-type application/grpc-web+proto: converted to a gRPC request, and the answer back to gRPC-Web',
  );
  expect(stage(await run('http://shop.example.com:8080/'), 'grpc_web')?.summary).toMatch(/^not a gRPC-Web request/);
});

test("a matched gateway has its own filters: the internal chain's health check, no gzip there", async () => {
  const e = await run('http://shop.example.com:9090/ready', [['Accept-Encoding', 'gzip']]);
  expect(e.answer).toMatchObject({ status: 200, by: 'envoy.filters.http.health_check' });
  expect(stage(e, 'compressor')).toBeUndefined();
});

describe('stripAnyHostPort (golden/gateway-hcm-settings)', () => {
  let settings: GatewayConfig;
  beforeAll(async () => {
    settings = fromCompileResult(await compileFiles(['golden/gateway-hcm-settings/input'], DEFAULT_OPTIONS))!;
  });

  test("the Host's port is dropped before the domains are matched", async () => {
    const e = await explain(settings, { method: 'GET', url: 'http://shop.example.com:9090/', headers: [] });
    expect(e.steps.find((s) => s.stage === 'host')?.summary).toBe(
      'shop.example.com:9090 without its port (strip_any_host_port)',
    );
    expect(e.matched.virtualHost).toBe('shop.shop');
    expect(e.answer.status).toBe('upstream');
  });

  test('without it, a Host with a port does not match a domain without one', async () => {
    const e = await explain(settings, { method: 'GET', url: 'http://shop.example.com:8080/', headers: [] });
    expect(e.steps.some((s) => s.stage === 'host')).toBe(false);
    expect(e.answer.status).toBe(404);
  });
});
