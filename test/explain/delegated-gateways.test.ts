/**
 * explain on hybrid Gateways made of MatchableHttpGateways (golden
 * gateway-delegated): the chain is picked as for matched gateways, with the
 * certificate the Gateway handed down and the chain's own VirtualServices.
 */
import { compileFiles } from '../../compiler/pipeline.js';
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;
beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gateway-delegated/input'], DEFAULT_OPTIONS))!;
});

const get = (url: string) => explain(config, { method: 'GET', url, headers: [['Host', new URL(url).hostname]] });

test("a delegated TLS chain: the MatchableHttpGateway's SNI, the Gateway's certificate", async () => {
  const r = await get('https://shop.example.com:8443/');
  expect(r.steps.find((s) => s.stage === 'tls')!.summary).toBe(
    'SNI shop.example.com: the filter chain for shop.example.com, certificate shop/shop-tls',
  );
  expect(r.answer).toMatchObject({ status: 'upstream', by: 'shop-shop-8080' });
});

test("plain HTTP: the internal MatchableHttpGateway's chain, for its client addresses", async () => {
  expect((await get('http://admin.shop.example.com:8080/')).answer).toMatchObject({
    status: 'upstream',
    assumptions: ['the client connects from 10.0.0.0/8 (the filter chain taken is for those addresses)'],
  });
});
