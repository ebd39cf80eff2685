/** Gloo's aws Upstream and destinationSpec.aws, as upstream Envoy's aws_lambda filter takes them. */
/** An aws Upstream: its cluster reaches `lambda.<region>.amazonaws.com:443`; its functions are what routes may invoke. */
export interface LambdaUpstreamIR {
  region: string;
  /** Unset: an error on the Upstream (Envoy needs a function's full ARN). */
  accountId?: string;
  functions: { logicalName: string; name: string; qualifier?: string }[];
  /** The Secret with the credentials (unset: an error on the Upstream). */
  secret?: { name: string; namespace: string };
  /** Gloo's destinationOverrides: what fills a route's unset logicalName and SYNC invocation. */
  overrides?: { logicalName?: string; async: boolean };
}

/** What a route invokes: Envoy's aws_lambda PerRouteConfig. */
export interface LambdaInvokeIR {
  /** arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>] */
  arn: string;
  /** Gloo's ASYNC invocationStyle: Lambda's `Event` invocation (202 at once). */
  async: boolean;
  /** lambda.<region>.amazonaws.com: the Host the request is signed with and sent under, as Gloo sends it. */
  host: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}
