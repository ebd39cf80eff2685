/**
 * Gloo's aws.proto: an Upstream of AWS Lambda functions and a route's
 * destinationSpec.aws, built on upstream Envoy's aws_lambda filter in its
 * pass-through mode (the request body is the function's payload, its result
 * the response body), which is what Gloo does without a transformation.
 * Gloo's request and response transformations are its own Envoy build's and
 * are refused with what upstream Envoy would do instead.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import { object, protoEnum, singleLine } from './schema.js';

export const INVOCATION_STYLES = ['SYNC', 'ASYNC'] as const;

const roleRefusal =
  "Gloo's own Envoy build assumes this role through STS for each request; upstream Envoy's aws_lambda filter signs with the credentials it is given and assumes no role";
const envoyWraps =
  "upstream Envoy's aws_lambda filter wraps a request as its own JSON document (raw_path, method, headers, query_string_parameters, body, is_base64_encoded) and unwraps only that document's answer, neither of which is Gloo's API Gateway or ALB format, so the function would see and answer different JSON";

/** Gloo's aws DestinationSpec fields that upstream Envoy cannot give. */
const transformations = {
  requestTransformation: refused(envoyWraps, 'send the body as it is (unset) and read the request in the function'),
  responseTransformation: refused(
    `deprecated in Gloo for unwrapAsApiGateway; ${envoyWraps}`,
    "return the response body from the function as it is (Lambda's answer is the response)",
  ),
  unwrapAsAlb: refused(
    envoyWraps,
    "return the response body from the function as it is (Lambda's answer is the response)",
  ),
  unwrapAsApiGateway: refused(
    envoyWraps,
    "return the response body from the function as it is (Lambda's answer is the response)",
  ),
  wrapAsApiGateway: refused(
    `an Enterprise Gloo feature of its own Envoy build; ${envoyWraps}`,
    'send the body as it is (unset) and read the request in the function',
  ),
};

const invocationStyle = note(
  protoEnum(INVOCATION_STYLES),
  "SYNC (unset): Lambda's answer is the response; ASYNC: Lambda queues the event and answers 202 at once",
);

export const awsDestination = object({
  logicalName: note(singleLine, "the logicalName of one of the Upstream's lambdaFunctions (required)"),
  invocationStyle,
  ...transformations,
});

export const awsUpstream = object(
  {
    region: note(
      Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]+$' }),
      'the region, e.g. us-east-1 (required): the cluster reaches lambda.<region>.amazonaws.com:443 with TLS',
    ),
    secretRef: note(
      resourceRef,
      'required: a Secret with aws_access_key_id, aws_secret_access_key and optionally aws_session_token; the route signs its requests with them',
    ),
    lambdaFunctions: Type.Array(
      object(
        {
          logicalName: note(singleLine, 'what routes name in destinationSpec.aws.logicalName'),
          lambdaFunctionName: note(
            Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
            "the function's name in AWS Lambda",
          ),
          qualifier: note(
            Type.String({ pattern: '^(\\$LATEST|[A-Za-z0-9_-]{1,128})$' }),
            'a version or alias; unset: $LATEST',
          ),
        },
        ['logicalName', 'lambdaFunctionName'],
      ),
    ),
    roleArn: refused(roleRefusal, 'give the Secret credentials of the role'),
    awsAccountId: note(
      Type.String({ pattern: '^[0-9]{12}$' }),
      "required: upstream Envoy invokes a function by its full ARN, arn:aws:lambda:<region>:<awsAccountId>:function:<name>[:<qualifier>] (Gloo without it invokes the function by name in the credentials' own account)",
    ),
    disableRoleChaining: refused(roleRefusal),
    destinationOverrides: note(
      object({ logicalName: singleLine, invocationStyle, ...transformations }),
      "fills what a route's destinationSpec.aws leaves unset (as Gloo merges it): the logicalName, and ASYNC over an unset invocationStyle",
    ),
  },
  ['region'],
);

export type AwsUpstreamSpec = Static<typeof awsUpstream>;
export type AwsDestinationSpec = Static<typeof awsDestination>;
