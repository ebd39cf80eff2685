/**
 * explain on Gloo's one-field route and virtual host options
 * (golden/gloo-route-extras): the host each route sends upstream, the
 * timeouts, and the attempt-count headers, in the destination step.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/gloo-route-extras/input'], DEFAULT_OPTIONS))!;
});

async function destinationOf(url: string) {
  const e = await explain(config, { method: 'GET', url, headers: [] });
  return e.steps.find((s) => s.stage === 'destination')!.details;
}

const ATTEMPTS = ['x-envoy-attempt-count sent upstream', 'x-envoy-attempt-count on the response'];

test('the host comes from the path by the pattern, or from a request header with x-forwarded-host appended', async () => {
  expect(await destinationOf('http://api.example.com/tenants/acme/orders')).toEqual(
    expect.arrayContaining([
      'host rewritten to the path with "^/tenants/([^/]+)/.*$" replaced by "\\\\1.tenants.internal" (host_rewrite_path_regex)',
      ...ATTEMPTS,
    ]),
  );
  expect(await destinationOf('http://api.example.com/proxied/x')).toEqual(
    expect.arrayContaining([
      'host rewritten to the request\'s "x-target-host" header, when it has one (host_rewrite_header)',
      'the original host appended to x-forwarded-host',
      'idle timeout 300s',
    ]),
  );
});

test('the stream limits of a gRPC route are named; a route without options has none of these lines', async () => {
  expect(await destinationOf('http://api.example.com/grpc/Svc/Call')).toContain(
    'stream duration: at most 60s; grpc-timeout honoured up to 30s less 0.05s (max_stream_duration)',
  );
  const plain = await destinationOf('http://api.example.com/tenants/acme');
  expect(plain.filter((d) => d.startsWith('stream duration') || d.startsWith('idle timeout'))).toEqual([]);
});
