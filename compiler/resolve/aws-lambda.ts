/**
 * Gloo's aws Upstream and destinationSpec.aws: what an aws Upstream is
 * checked for (its cluster: ./aws-upstream.ts), and the function a route
 * invokes with the Secret's credentials. The Secret is read
 * where a route uses it (a lookup, so a changed Secret resolves the route
 * again); its problems are reported once, on the Upstream.
 */
import { asWarning, fieldError, notFound, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { LambdaInvokeIR } from '../ir/aws-lambda.js';
import type { ClusterRefIR, UpstreamIR } from '../ir/model.js';
import type { DestinationSpec } from '../kinds/destinations.js';
import type { UpstreamSpec } from '../kinds/upstream.js';
import type { Resource } from '../validate/validate.js';
import { refOf, showRef, type ResourceIndex } from './index.js';
import type { Lookups } from './lookups.js';
import { secretEntry } from './tls.js';
import { lambdaHost } from './aws-upstream.js';

/** Gloo's Kubernetes AWS Secret keys (glooctl create secret aws). */
const KEYS = {
  accessKeyId: 'aws_access_key_id',
  secretAccessKey: 'aws_secret_access_key',
  sessionToken: 'aws_session_token',
} as const;

/** Upstream fields that mean something for Lambda's endpoint; the rest would configure a target Sluice builds itself. */
const WITH_AWS = new Set(['aws', 'discoveryMetadata', 'circuitBreakers', 'connectionConfig', 'outlierDetection']);

type Credentials = LambdaInvokeIR['credentials'];

/** The Secret's credentials, or why there are none. */
function credentials(secret: Resource): Credentials | string {
  const value = (key: string) => secretEntry(secret, key)?.value;
  const accessKeyId = value(KEYS.accessKeyId);
  const secretAccessKey = value(KEYS.secretAccessKey);
  const sessionToken = value(KEYS.sessionToken);
  const missing = [accessKeyId ? '' : KEYS.accessKeyId, secretAccessKey ? '' : KEYS.secretAccessKey].filter(Boolean);
  if (missing.length > 0) return `has no ${missing.join(' or ')} (or it is empty)`;
  return { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, ...(sessionToken ? { sessionToken } : {}) };
}

/** Every aws Upstream's problems: what Envoy needs that Gloo does not require, its Secret, fields that do not apply. */
export function awsUpstreamProblems(index: ResourceIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) {
    const spec = upstream.spec as UpstreamSpec;
    const aws = spec.aws;
    if (!aws) continue;
    const at = (...path: FieldPath) => ['spec', 'aws', ...path];
    const error = (path: FieldPath, message: string, hint: string) =>
      out.push(fieldError('resolve', upstream.origin, path, message, hint));
    for (const field of Object.keys(spec).filter((f) => !WITH_AWS.has(f)))
      error(
        ['spec', field],
        `${field} does not apply to an aws Upstream: Sluice builds its cluster to ${lambdaHost(aws.region)}:443 with TLS itself`,
        `remove ${field}`,
      );
    out.push(
      asWarning(
        fieldError(
          'resolve',
          upstream.origin,
          at('region'),
          `Envoy will not verify the certificate of ${lambdaHost(aws.region)}, as Gloo: anyone on the path can pose as Lambda and read the payloads and answers (not the credentials: requests carry only their signature)`,
          "Gloo's aws Upstream has no TLS settings: keep the path from the proxy to AWS trusted",
        ),
      ),
    );
    if (!aws.awsAccountId)
      error(
        at('awsAccountId'),
        "awsAccountId is missing: upstream Envoy's aws_lambda filter invokes a function by its full ARN, which holds the account",
        "set awsAccountId to the 12-digit account of the functions (Gloo would invoke them by name in the credentials' own account)",
      );
    const names = (aws.lambdaFunctions ?? []).map((f) => f.logicalName);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i)
        error(
          at('lambdaFunctions', i, 'logicalName'),
          `logicalName ${JSON.stringify(name)} is also function ${names.indexOf(name)}'s`,
          'give each function its own logicalName: routes name the function by it',
        );
    });
    if (!aws.secretRef) {
      error(
        at(),
        'secretRef is missing: the route signs its requests to Lambda with the credentials of that Secret',
        "reference a Secret with aws_access_key_id and aws_secret_access_key (Gloo's credential discovery through Settings is its own Envoy build's)",
      );
      continue;
    }
    const ref = refOf(aws.secretRef, upstream);
    const secret = index.get('Secret', ref);
    if (!secret) {
      out.push(
        notFound(
          fieldError(
            'resolve',
            upstream.origin,
            at('secretRef'),
            `Secret ${showRef(ref)} not found`,
            'define the Secret (v1) with aws_access_key_id and aws_secret_access_key among the resources',
          ),
          `Secret ${showRef(ref)}`,
        ),
      );
      continue;
    }
    const found = credentials(secret);
    if (typeof found === 'string')
      error(
        at('secretRef'),
        `Secret ${showRef(ref)} ${found}`,
        'put the access key id and secret access key under aws_access_key_id and aws_secret_access_key (aws_session_token optional)',
      );
  }
  return out;
}

/**
 * What a destination to `upstream` invokes: undefined when it is no Lambda
 * destination, false after reporting why it cannot be built (a Secret's
 * problem is the Upstream's error, reported there).
 */
export function lambdaInvoke(
  at: FieldPath,
  dest: DestinationSpec,
  upstream: UpstreamIR,
  from: Resource,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): LambdaInvokeIR | undefined | false {
  const spec = dest.destinationSpec?.aws;
  const lambda = upstream.lambda;
  const shown = `${upstream.namespace}/${upstream.name}`;
  if (!lambda && !spec) return undefined;
  if (!lambda) {
    diagnostics.push(
      fieldError(
        'resolve',
        from.origin,
        [...at, 'destinationSpec', 'aws'],
        `upstream ${shown} is not an aws Upstream, so it has no Lambda function to invoke`,
        'route to an Upstream with spec.aws, or remove destinationSpec',
      ),
    );
    return false;
  }
  const logicalName = spec?.logicalName || lambda.overrides?.logicalName;
  const names = lambda.functions.map((f) => JSON.stringify(f.logicalName)).join(', ') || 'none';
  if (!logicalName) {
    diagnostics.push(
      fieldError(
        'resolve',
        from.origin,
        spec ? [...at, 'destinationSpec', 'aws'] : at,
        `upstream ${shown} is an aws Upstream: the route must name the function it invokes`,
        `set destinationSpec.aws.logicalName to one of its functions (${names})`,
      ),
    );
    return false;
  }
  const fn = lambda.functions.find((f) => f.logicalName === logicalName);
  if (!fn) {
    diagnostics.push(
      fieldError(
        'resolve',
        from.origin,
        spec?.logicalName ? [...at, 'destinationSpec', 'aws', 'logicalName'] : at,
        `upstream ${shown} has no function with logicalName ${JSON.stringify(logicalName)}`,
        `name one of its lambdaFunctions (${names})`,
      ),
    );
    return false;
  }
  const secret = lambda.secret && lookups.resource('Secret', lambda.secret);
  const found = secret ? credentials(secret) : undefined;
  if (!lambda.accountId || !found || typeof found === 'string') return false;
  return {
    arn: `arn:aws:lambda:${lambda.region}:${lambda.accountId}:function:${fn.name}${fn.qualifier ? `:${fn.qualifier}` : ''}`,
    async: spec?.invocationStyle === 'ASYNC' || (lambda.overrides?.async ?? false),
    host: lambdaHost(lambda.region),
    credentials: found,
  };
}

/** A weighted destination's cluster may not invoke a function: the reason, reported at `at`. */
export function weightedLambdaProblem(at: FieldPath, ref: ClusterRefIR, from: Resource): Diagnostic | undefined {
  if (!ref.lambda) return undefined;
  return fieldError(
    'resolve',
    from.origin,
    at,
    `upstream ${ref.cluster} is an aws Upstream: invoking a Lambda function from a weighted destination is not implemented yet`,
    'invoke the function from a route of its own (routeAction.single)',
  );
}

/** Why an aws Upstream cannot be a Gateway's TCP destination or a server it talks to: only a route invokes Lambda. */
export function lambdaOnlyProblem(upstream: UpstreamIR): { message: string; hint: string } | undefined {
  if (!upstream.lambda) return undefined;
  return {
    message: `upstream ${upstream.namespace}/${upstream.name} is an aws Upstream: only a route's destinationSpec.aws sends to Lambda, signed`,
    hint: 'name an Upstream with static hosts or a kube Service here',
  };
}
