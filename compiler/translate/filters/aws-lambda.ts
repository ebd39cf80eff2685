/**
 * AWS Lambda (Gloo's aws Upstream and destinationSpec.aws) with upstream
 * Envoy's filters. aws_lambda turns a request into a signed invocation of
 * the route's function (PerRouteConfig): POST to
 * /2015-03-31/functions/<arn>/invocations, the body passed as it is
 * (payload_passthrough, Gloo's default), the Host Lambda's endpoint as Gloo
 * sends it. It acts only on clusters marked as Lambda's endpoint (cluster
 * metadata com.amazonaws.lambda egress_gateway, see ../clusters.ts).
 *
 * Gloo's filter answers a function error (Lambda's 200 with
 * x-amz-function-error) with 504; upstream Envoy's hands Lambda's 200 back.
 * A Lua filter on the same routes sets that 504, keeping Lambda's error
 * document as the body, as Gloo does.
 *
 * Both are disabled by default (HttpFilter.disabled): they run only on the
 * routes that invoke a function.
 */
import type { LambdaInvokeIR } from '../../ir/aws-lambda.js';
import type { RouteIR, VirtualHostIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';

export const AWS_LAMBDA_FILTER_NAME = 'envoy.filters.http.aws_lambda';
const CONFIG_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.aws_lambda.v3.Config';
const PER_ROUTE_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.aws_lambda.v3.PerRouteConfig';

export const LAMBDA_ERRORS_FILTER_NAME = 'envoy.filters.http.lua';
const LUA_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua';
const LUA_PER_ROUTE_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute';
/** The Lua source's name: what a route's LuaPerRoute runs. */
export const LAMBDA_ERRORS_SCRIPT = 'lambda-function-error';
export const LAMBDA_ERRORS_SOURCE = [
  "-- A Lambda function error (x-amz-function-error on Lambda's 200) is answered 504, as Gloo does.",
  'function envoy_on_response(response_handle)',
  '  if response_handle:headers():get("x-amz-function-error") ~= nil then',
  '    response_handle:headers():replace(":status", "504")',
  '  end',
  'end',
  '',
].join('\n');

const lambdaOf = (route: RouteIR): LambdaInvokeIR | undefined =>
  route.action.kind === 'cluster' ? route.action.lambda : undefined;

const usedBy = (vh: VirtualHostIR) => vh.routes.some((r) => lambdaOf(r) !== undefined);

/** Envoy's aws_lambda Config of one function. */
function invokeConfig(l: LambdaInvokeIR): Json {
  return {
    arn: l.arn,
    payload_passthrough: true,
    ...(l.async ? { invocation_mode: 'ASYNCHRONOUS' } : {}),
    host_rewrite: l.host,
    credentials: {
      access_key_id: l.credentials.accessKeyId,
      secret_access_key: l.credentials.secretAccessKey,
      ...(l.credentials.sessionToken ? { session_token: l.credentials.sessionToken } : {}),
    },
  };
}

/**
 * The filter's own Config is never used (disabled by default, each route
 * brings its function), but Envoy requires a parsable ARN, and gives it a
 * credentials provider: placeholder inline credentials keep Envoy from
 * looking for AWS credentials in its environment or instance metadata.
 */
const IDLE_LAMBDA: Json = {
  name: AWS_LAMBDA_FILTER_NAME,
  disabled: true,
  typed_config: {
    '@type': CONFIG_TYPE,
    arn: 'arn:aws:lambda:us-east-1:000000000000:function:unused',
    payload_passthrough: true,
    credentials: { access_key_id: 'unused', secret_access_key: 'unused' },
  },
};

export const awsLambdaConcern: HttpFilterConcern = {
  filterName: AWS_LAMBDA_FILTER_NAME,
  usedBy,
  httpFilter: () => IDLE_LAMBDA,
  perRoute: (route) => {
    const lambda = lambdaOf(route);
    return lambda ? { '@type': PER_ROUTE_TYPE, invoke_config: invokeConfig(lambda) } : undefined;
  },
};

export const lambdaErrorsConcern: HttpFilterConcern = {
  filterName: LAMBDA_ERRORS_FILTER_NAME,
  usedBy,
  httpFilter: () => ({
    name: LAMBDA_ERRORS_FILTER_NAME,
    disabled: true,
    typed_config: {
      '@type': LUA_TYPE,
      source_codes: { [LAMBDA_ERRORS_SCRIPT]: { inline_string: LAMBDA_ERRORS_SOURCE } },
    },
  }),
  perRoute: (route) => (lambdaOf(route) ? { '@type': LUA_PER_ROUTE_TYPE, name: LAMBDA_ERRORS_SCRIPT } : undefined),
};
