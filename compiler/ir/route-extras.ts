/** Route and virtual host fields Envoy has and Gloo's options set one to one (../resolve/route-extras.ts). */

export interface RouteExtrasIR {
  /** The Host header sent upstream: the request's path, rewritten by an RE2 pattern. */
  hostRewritePathRegex?: { pattern: string; substitution: string };
  /** The Host header sent upstream, from this request header when the request has it. */
  hostRewriteHeader?: string;
  /** With a host rewrite: the original Host is appended to x-forwarded-host. */
  appendXForwardedHost?: boolean;
  /** Proto3 JSON durations; "0s": none. */
  idleTimeout?: string;
  maxStreamDuration?: { max?: string; grpcTimeoutHeaderMax?: string; grpcTimeoutHeaderOffset?: string };
  /** Envoy's route tracing: the span's operation name, and the shares (0 to 100) of requests traced. */
  tracing?: {
    operation?: string;
    propagate?: boolean;
    clientSample: number;
    randomSample: number;
    overallSample: number;
  };
}

export interface VirtualHostExtrasIR {
  /** x-envoy-attempt-count on the requests sent upstream. */
  includeRequestAttemptCount?: boolean;
  /** x-envoy-attempt-count on the responses sent downstream. */
  includeAttemptCountInResponse?: boolean;
  /** Statistics per matching request (vhost.<host>.vcluster.<name>.*): a whole-path RE2 regex, and a method. */
  virtualClusters?: { name: string; pattern: string; method?: string }[];
}
