/**
 * envoy.filters.http.aws_lambda and the Lua filter that answers a function
 * error 504, read from their compiled configs as Envoy runs them
 * (aws_lambda_filter.cc): the filter acts only when the route's cluster is
 * marked as Lambda's endpoint, then the request becomes a signed invocation
 * of the route's function. The credentials are never shown.
 */
import type { Json } from '../translate/output.js';
import { perFilterConfig } from '../envoy/match.js';
import type { Outcome, Step } from './model.js';

export const AWS_LAMBDA_FILTER = 'envoy.filters.http.aws_lambda';
export const LUA_FILTER = 'envoy.filters.http.lua';
const CITE = 'docs/upstreams.md § AWS Lambda';

type Levels = Parameters<typeof perFilterConfig>[1];

function isLambdaEndpoint(cluster: Json | undefined): boolean {
  const meta = (cluster?.metadata as Json | undefined)?.filter_metadata as Json | undefined;
  return (meta?.['com.amazonaws.lambda'] as Json | undefined)?.egress_gateway === true;
}

/** `cluster`: the definition of the cluster the route sends to, when known. */
export function evaluateAwsLambda(filter: Json, levels: Levels, clusterName: string, cluster: Json | undefined): Step {
  const step: Step = { stage: 'aws_lambda', summary: '', details: [], cite: CITE };
  if (!isLambdaEndpoint(cluster)) {
    step.summary = `skipped: cluster ${clusterName} is not Lambda's endpoint (no com.amazonaws.lambda egress_gateway metadata)`;
    return step;
  }
  const per = perFilterConfig(AWS_LAMBDA_FILTER, levels);
  const config = ((per?.config.invoke_config as Json | undefined) ?? filter) as Json;
  const arn = String(config.arn);
  const async = config.invocation_mode === 'ASYNCHRONOUS';
  step.summary = `the request is sent to the Lambda function ${arn} (${async ? 'asynchronous' : 'synchronous'} invocation)`;
  const host = typeof config.host_rewrite === 'string' && config.host_rewrite !== '' ? config.host_rewrite : undefined;
  step.details.push(
    `sent as POST /2015-03-31/functions/${arn}/invocations${host ? ` to ${host}` : ''}, x-amz-invocation-type: ${async ? 'Event' : 'RequestResponse'}, signed (AWS Signature V4) with the ${per ? per.level : 'filter'}'s credentials`,
  );
  step.details.push(
    config.payload_passthrough === true
      ? "the request body is the function's payload as it is; the method, path, query and headers do not reach the function"
      : 'the request is wrapped as a JSON document (raw_path, method, headers, query_string_parameters, body)',
  );
  step.details.push(
    async
      ? 'Lambda queues the event and answers 202 at once, with no result of the function'
      : "the function's result is the response body, with Lambda's status (200 when invoked)",
  );
  return step;
}

export interface LuaResult {
  step: Step;
  assumption?: { text: string; otherwise: Outcome[] };
}

/** The Lua filter Sluice adds on Lambda routes: Lambda's 200 with x-amz-function-error becomes 504. */
export function evaluateLambdaErrors(levels: Levels): LuaResult {
  const step: Step = {
    stage: 'lua',
    summary: "on the response: a function error (x-amz-function-error on Lambda's answer) becomes 504",
    details: ["Lambda's error document stays the body, as Gloo answers it"],
    cite: CITE,
  };
  const per = perFilterConfig(LUA_FILTER, levels);
  if (!per) return { step: { ...step, summary: 'off: no Lua script on this route', details: [] } };
  return {
    step,
    assumption: {
      text: 'the Lambda function does not fail',
      otherwise: [{ status: 504, by: LUA_FILTER }],
    },
  };
}
