/** The RouteAction and VirtualHost fields of ../resolve/route-extras.ts, as Envoy's route configuration has them. */
import type { RouteExtrasIR, VirtualHostExtrasIR } from '../ir/model.js';
import type { Json } from './output.js';

/** envoy.config.route.v3.RouteAction fields. */
export function routeActionExtras(o: RouteExtrasIR): Json {
  const m = o.maxStreamDuration;
  return {
    ...(o.hostRewritePathRegex
      ? {
          host_rewrite_path_regex: {
            pattern: { regex: o.hostRewritePathRegex.pattern },
            substitution: o.hostRewritePathRegex.substitution,
          },
        }
      : {}),
    ...(o.hostRewriteHeader !== undefined ? { host_rewrite_header: o.hostRewriteHeader } : {}),
    ...(o.appendXForwardedHost !== undefined ? { append_x_forwarded_host: o.appendXForwardedHost } : {}),
    ...(o.idleTimeout !== undefined ? { idle_timeout: o.idleTimeout } : {}),
    ...(m
      ? {
          max_stream_duration: {
            ...(m.max !== undefined ? { max_stream_duration: m.max } : {}),
            ...(m.grpcTimeoutHeaderMax !== undefined ? { grpc_timeout_header_max: m.grpcTimeoutHeaderMax } : {}),
            ...(m.grpcTimeoutHeaderOffset !== undefined
              ? { grpc_timeout_header_offset: m.grpcTimeoutHeaderOffset }
              : {}),
          },
        }
      : {}),
  };
}

/** envoy.config.route.v3.Route fields: tracing shares as Gloo writes them (millionths), the decorator. */
export function routeFieldExtras(o: RouteExtrasIR | undefined): Json {
  const t = o?.tracing;
  if (!t) return {};
  const share = (percent: number) => ({ numerator: Math.round(percent * 10_000), denominator: 'MILLION' });
  return {
    ...(t.operation !== undefined
      ? { decorator: { operation: t.operation, ...(t.propagate !== undefined ? { propagate: t.propagate } : {}) } }
      : {}),
    tracing: {
      client_sampling: share(t.clientSample),
      random_sampling: share(t.randomSample),
      overall_sampling: share(t.overallSample),
    },
  };
}

/** envoy.config.route.v3.VirtualHost fields; virtual clusters as Gloo writes them (a :path regex, an exact :method). */
export function virtualHostExtras(v: VirtualHostExtrasIR): Json {
  return {
    ...(v.includeRequestAttemptCount !== undefined
      ? { include_request_attempt_count: v.includeRequestAttemptCount }
      : {}),
    ...(v.includeAttemptCountInResponse !== undefined
      ? { include_attempt_count_in_response: v.includeAttemptCountInResponse }
      : {}),
    ...(v.virtualClusters?.length
      ? {
          virtual_clusters: v.virtualClusters.map((c) => ({
            name: c.name,
            headers: [
              { name: ':path', string_match: { safe_regex: { regex: c.pattern } } },
              ...(c.method ? [{ name: ':method', string_match: { exact: c.method } }] : []),
            ],
          })),
        }
      : {}),
  };
}
