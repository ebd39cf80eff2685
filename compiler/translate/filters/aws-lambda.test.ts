import type { LambdaInvokeIR } from '../../ir/aws-lambda.js';
import type { RouteIR, UpstreamIR, VirtualHostIR } from '../../ir/model.js';
import { checkMessage } from '../../verify/proto-json.js';
import { upstreamCluster } from '../clusters.js';
import { awsLambdaConcern, LAMBDA_ERRORS_SCRIPT, lambdaErrorsConcern } from './aws-lambda.js';

const invoke = (over: Partial<LambdaInvokeIR> = {}): LambdaInvokeIR => ({
  arn: 'arn:aws:lambda:eu-west-1:123456789012:function:quote-price:prod',
  async: false,
  host: 'lambda.eu-west-1.amazonaws.com',
  credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' },
  ...over,
});
const route = (lambda?: LambdaInvokeIR): RouteIR =>
  ({ name: 'r', match: {}, action: { kind: 'cluster', cluster: 'lambdas', ...(lambda ? { lambda } : {}) } }) as RouteIR;
const host = (routes: RouteIR[]) => ({ routes }) as unknown as VirtualHostIR;

describe('aws_lambda', () => {
  test("a route's PerRouteConfig: its function, the body passed as is, Lambda's Host, the credentials; valid for Envoy", () => {
    const config = awsLambdaConcern.perRoute!(route(invoke()))!;
    expect(config).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.aws_lambda.v3.PerRouteConfig',
      invoke_config: {
        arn: 'arn:aws:lambda:eu-west-1:123456789012:function:quote-price:prod',
        payload_passthrough: true,
        host_rewrite: 'lambda.eu-west-1.amazonaws.com',
        credentials: { access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secret' },
      },
    });
    expect(checkMessage('google.protobuf.Any', config)).toEqual([]);
    // The check reads inside the Any: an empty ARN is Envoy's min_len error.
    expect(checkMessage('google.protobuf.Any', { ...config, invoke_config: { arn: '' } })).toMatchObject([
      { rule: 'string.min_len' },
    ]);
  });

  test('ASYNC is the Event invocation; a session token goes with the keys', () => {
    const config = awsLambdaConcern.perRoute!(
      route(invoke({ async: true, credentials: { accessKeyId: 'a', secretAccessKey: 's', sessionToken: 't' } })),
    )!;
    expect(config.invoke_config).toMatchObject({
      invocation_mode: 'ASYNCHRONOUS',
      credentials: { access_key_id: 'a', secret_access_key: 's', session_token: 't' },
    });
  });

  test('in use only where a route invokes a function; the filters are disabled by default and valid', () => {
    expect(awsLambdaConcern.usedBy(host([route()]))).toBe(false);
    expect(awsLambdaConcern.usedBy(host([route(), route(invoke())]))).toBe(true);
    expect(awsLambdaConcern.perRoute!(route())).toBeUndefined();
    for (const concern of [awsLambdaConcern, lambdaErrorsConcern]) {
      const filter = concern.httpFilter!();
      expect(filter.disabled).toBe(true);
      expect(checkMessage('envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter', filter)).toEqual(
        [],
      );
    }
  });

  test('the Lua filter runs its function-error script on the routes that invoke a function', () => {
    expect(lambdaErrorsConcern.perRoute!(route(invoke()))).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute',
      name: LAMBDA_ERRORS_SCRIPT,
    });
    expect(lambdaErrorsConcern.perRoute!(route())).toBeUndefined();
    const lua = lambdaErrorsConcern.httpFilter!().typed_config as {
      source_codes: Record<string, { inline_string: string }>;
    };
    expect(lua.source_codes[LAMBDA_ERRORS_SCRIPT]!.inline_string).toContain(
      'response_handle:headers():replace(":status", "504")',
    );
  });

  test("an aws Upstream's cluster: Lambda's endpoint with TLS and the metadata the filter acts on", () => {
    const upstream: UpstreamIR = {
      name: 'lambdas',
      namespace: 'gloo-system',
      origin: {} as UpstreamIR['origin'],
      target: { kind: 'dns', host: 'lambda.eu-west-1.amazonaws.com', port: 443 },
      tls: {
        sni: 'lambda.eu-west-1.amazonaws.com',
        parameters: {},
        alpnProtocols: [],
        verifySubjectAltNames: [],
        oneWayTls: false,
      },
      lambda: { region: 'eu-west-1', accountId: '123456789012', functions: [] },
    };
    const { cluster } = upstreamCluster(upstream);
    expect(cluster).toMatchObject({
      type: 'STRICT_DNS',
      metadata: { filter_metadata: { 'com.amazonaws.lambda': { egress_gateway: true } } },
      transport_socket: { typed_config: { sni: 'lambda.eu-west-1.amazonaws.com' } },
    });
    expect(checkMessage('envoy.config.cluster.v3.Cluster', cluster)).toEqual([]);
  });
});
