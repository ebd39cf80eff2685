/**
 * A RateLimitService client as Envoy calls it, built with @grpc/proto-loader
 * from Envoy's own rls.proto (not from the sidecar's code), for the tests and
 * the benchmark: requests in Envoy's shapes, answers with enums by name.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { INCLUDE_DIRS } from '../contract/envoy.js';

export interface RateLimitAnswer {
  overall_code: 'OK' | 'OVER_LIMIT' | 'UNKNOWN';
  statuses: {
    code: string;
    current_limit: { requests_per_unit: number; unit: string; name: string } | null;
    limit_remaining: number;
    duration_until_reset: { seconds: number; nanos: number } | null;
  }[];
  response_headers_to_add: { key: string; value: string }[];
}

export type Descriptor = Record<string, string> | [string, string][];

/** RateLimitDescriptor.limit, as Envoy sends it from a RateLimit.Override (unit: envoy.type.v3.RateLimitUnit). */
export interface LimitOverride {
  requests_per_unit: number;
  unit: 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY' | 'MONTH' | 'YEAR';
}

export interface RateLimitCaller {
  /** One ShouldRateLimit of `domain` with each descriptor's entries in order; rejects on a gRPC error or after `deadlineMs`. */
  (
    domain: string,
    descriptors: Descriptor[],
    opts?: { hitsAddend?: number; deadlineMs?: number; limits?: (LimitOverride | undefined)[] },
  ): Promise<RateLimitAnswer>;
  close(): void;
}

let service: grpc.ServiceClientConstructor | undefined;

function serviceClient(): grpc.ServiceClientConstructor {
  if (!service) {
    const pkg = protoLoader.loadSync(['envoy/service/ratelimit/v3/rls.proto'], {
      keepCase: true,
      longs: Number,
      enums: String,
      defaults: true,
      includeDirs: [...INCLUDE_DIRS],
    });
    const loaded = grpc.loadPackageDefinition(pkg) as unknown as {
      envoy: { service: { ratelimit: { v3: { RateLimitService: grpc.ServiceClientConstructor } } } };
    };
    service = loaded.envoy.service.ratelimit.v3.RateLimitService;
  }
  return service;
}

const entriesOf = (d: Descriptor) => (Array.isArray(d) ? d : Object.entries(d)).map(([key, value]) => ({ key, value }));

export function rateLimitCaller(port: number): RateLimitCaller {
  const Client = serviceClient();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    ShouldRateLimit(
      req: unknown,
      opts: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res: RateLimitAnswer) => void,
    ): void;
  };
  const call = ((domain, descriptors, opts = {}) =>
    new Promise<RateLimitAnswer>((resolve, reject) =>
      client.ShouldRateLimit(
        {
          domain,
          descriptors: descriptors.map((d, i) => ({
            entries: entriesOf(d),
            ...(opts.limits?.[i] ? { limit: opts.limits[i] } : {}),
          })),
          hits_addend: opts.hitsAddend ?? 0,
        },
        { deadline: Date.now() + (opts.deadlineMs ?? 10_000) },
        (err, res) => (err ? reject(err) : resolve(res)),
      ),
    )) as RateLimitCaller;
  call.close = () => client.close();
  return call;
}
