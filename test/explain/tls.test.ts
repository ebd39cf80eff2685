/**
 * explain on an HTTPS listener (golden tls-sni): the filter chain is picked by
 * the SNI the client sends (the URL's host), and each chain routes only its
 * own VirtualServices, so a Host header naming another chain's host is a 404.
 */
import { compileFiles } from '../../compiler/pipeline.js';
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;
beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/tls-sni/input'], DEFAULT_OPTIONS))!;
});

const get = (url: string, host?: string) =>
  explain(config, { method: 'GET', url, headers: host ? [['Host', host]] : [] });

test('SNI picks the chain; the client certificate it requires is named', async () => {
  const r = await get('https://api.example.com:8443/pay', 'api.example.com');
  const tls = r.steps.find((s) => s.stage === 'tls')!;
  expect(tls.summary).toBe('SNI api.example.com: the filter chain for api.example.com, certificate shop/api-tls');
  expect(tls.details).toEqual([
    'the client must present a certificate signed by shop/api-tls/ca.crt naming checkout.example.com, or the handshake fails',
  ]);
  expect(r.answer).toMatchObject({ status: 'upstream', by: 'payments' });
});

test("a Host of another chain's VirtualService is not routed on this chain", async () => {
  const r = await get('https://shop.example.com:8443/', 'api.example.com');
  expect(r.answer.status).toBe(404);
});

test('an SNI no chain serves, and plain HTTP to the TLS listener, are errors', async () => {
  await expect(get('https://other.example.com:8443/')).rejects.toThrow(
    'no filter chain of listener listener-::-8443 matches SNI "other.example.com"',
  );
  await expect(get('http://shop.example.com:8443/')).rejects.toThrow('serves TLS only');
});

test('a hybrid gateway: plain HTTP takes the chain without SNI, and the client address it is for is an assumption', async () => {
  const hybrid = fromCompileResult(await compileFiles(['golden/gateway-hybrid/input'], DEFAULT_OPTIONS))!;
  const r = await explain(hybrid, {
    method: 'GET',
    url: 'http://admin.shop.example.com:8443/',
    headers: [['Host', 'admin.shop.example.com']],
  });
  expect(r.answer).toMatchObject({
    status: 'upstream',
    by: 'shop-shop-8080',
    assumptions: ['the client connects from 10.0.0.0/8 (the filter chain taken is for those addresses)'],
  });
  const tls = await explain(hybrid, {
    method: 'GET',
    url: 'https://shop.example.com:8443/',
    headers: [['Host', 'shop.example.com']],
  });
  expect(tls.steps.find((s) => s.stage === 'tls')!.summary).toBe(
    'SNI shop.example.com: the filter chain for shop.example.com, certificate shop/shop-tls',
  );
  expect(tls.answer).toMatchObject({ status: 'upstream', by: 'shop-shop-8080' });
});
