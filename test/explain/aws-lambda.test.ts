/**
 * explain on Lambda routes (golden/gloo-aws-lambda): the request is sent to
 * the route's function, synchronously or not, a function error is 504, the
 * credentials never appear; an ordinary route has both filters off.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-aws-lambda/input'], DEFAULT_OPTIONS))!;
});

const run = (path: string) =>
  explain(config, { method: 'POST', url: `http://shop.example.com${path}`, headers: [['content-type', 'text/plain']] });
const stage = (e: Awaited<ReturnType<typeof run>>, name: string) => e.steps.find((s) => s.stage === name);
const FUNCTION_ERROR = { status: 504, by: 'envoy.filters.http.lua' };

test('a synchronous invocation: the function, its qualifier, the signed call, and 504 on a function error', async () => {
  const e = await run('/reports/2026-10');
  const lambda = stage(e, 'aws_lambda')!;
  expect(lambda.summary).toBe(
    'the request is sent to the Lambda function arn:aws:lambda:us-east-1:210987654321:function:monthly-report:7 (synchronous invocation)',
  );
  expect(lambda.details[0]).toBe(
    "sent as POST /2015-03-31/functions/arn:aws:lambda:us-east-1:210987654321:function:monthly-report:7/invocations to lambda.us-east-1.amazonaws.com, x-amz-invocation-type: RequestResponse, signed (AWS Signature V4) with the route's credentials",
  );
  expect(e.matched.cluster).toBe('reports');
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.assumptions).toContain('the Lambda function does not fail');
  expect(e.answer.otherwise).toContainEqual(FUNCTION_ERROR);
});

test("destinationOverrides' ASYNC fills a route's SYNC (Gloo's zero value): Lambda answers 202", async () => {
  for (const path of ['/quote', '/orders/7']) {
    const lambda = stage(await run(path), 'aws_lambda')!;
    expect(lambda.summary).toMatch(/\(asynchronous invocation\)$/);
    expect(lambda.details).toContain('Lambda queues the event and answers 202 at once, with no result of the function');
  }
});

test('an ordinary route: both filters are off', async () => {
  const e = await run('/static/app.js');
  expect(stage(e, 'aws_lambda')!.summary).toBe(
    'off: disabled by default, and neither the route nor its virtual host enables it',
  );
  expect(stage(e, 'lua')!.summary).toBe(
    'off: disabled by default, and neither the route nor its virtual host enables it',
  );
  expect(e.answer.otherwise).not.toContainEqual(FUNCTION_ERROR);
});

test('no credential is shown', async () => {
  const text = JSON.stringify(await Promise.all(['/quote', '/orders', '/reports'].map(run)));
  for (const secret of ['AKIAEXAMPLEKEYID', 'golden-example-secret', 'golden-example-session'])
    expect(text).not.toContain(secret);
});
