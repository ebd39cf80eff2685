/** Gloo's aws Upstream as a cluster: AWS Lambda's endpoint of its region, with TLS, and its functions. */
import type { LambdaUpstreamIR } from '../ir/aws-lambda.js';
import type { UpstreamIR } from '../ir/model.js';
import type { AwsUpstreamSpec } from '../kinds/aws.js';
import type { Resource } from '../validate/validate.js';
import { refOf } from './index.js';

export const lambdaHost = (region: string) => `lambda.${region}.amazonaws.com`;

/** The cluster's target, TLS (no certificate check, as Gloo's) and functions of an aws Upstream. */
export function awsUpstream(aws: AwsUpstreamSpec, from: Resource): Pick<UpstreamIR, 'target' | 'tls' | 'lambda'> {
  const host = lambdaHost(aws.region);
  const lambda: LambdaUpstreamIR = {
    region: aws.region,
    ...(aws.awsAccountId ? { accountId: aws.awsAccountId } : {}),
    functions: (aws.lambdaFunctions ?? []).map((f) => ({
      logicalName: f.logicalName,
      name: f.lambdaFunctionName,
      ...(f.qualifier ? { qualifier: f.qualifier } : {}),
    })),
    ...(aws.secretRef ? { secret: refOf(aws.secretRef, from) } : {}),
    ...(aws.destinationOverrides
      ? {
          overrides: {
            ...(aws.destinationOverrides.logicalName ? { logicalName: aws.destinationOverrides.logicalName } : {}),
            async: aws.destinationOverrides.invocationStyle === 'ASYNC',
          },
        }
      : {}),
  };
  return {
    target: { kind: 'dns', host, port: 443 },
    tls: { sni: host, parameters: {}, alpnProtocols: [], verifySubjectAltNames: [], oneWayTls: false },
    lambda,
  };
}
