/** explain on golden/gloo-upstream-grpc-json: which transcoder config a request meets, if any. */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;
beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-upstream-grpc-json/input'], DEFAULT_OPTIONS))!;
});

const step = async (url: string) =>
  (await explain(config, { method: 'POST', url, headers: [] })).steps.find((s) => s.stage === 'grpc_json_transcoder');

test("a route to an Upstream with a transcoder: its services, from the route's settings", async () => {
  expect(await step('http://shop.example.com:8080/users.UserService/GetUser')).toMatchObject({
    summary: 'JSON requests that match an HTTP rule of users.UserService become gRPC calls',
    details: ["the settings of the route (its Upstream's serviceSpec.grpcJsonTranscoder)"],
  });
});

test('another route: the filter is off', async () => {
  expect((await step('http://shop.example.com:8080/web'))?.summary).toBe(
    'off: disabled by default, and neither the route nor its virtual host enables it',
  );
});

test("on a Gateway with its own transcoder: the Gateway's services elsewhere, the Upstream's on its routes", async () => {
  expect((await step('http://shop.example.com:8081/web'))?.summary).toMatch(/products\.ProductService/);
  expect((await step('http://shop.example.com:8081/catalog'))?.summary).toMatch(/catalog\.Catalog/);
});
