/**
 * `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit` over
 * @grpc/grpc-js, its messages encoded and decoded by protobufjs types of
 * Envoy's own protos (the shared Root of contract/envoy.ts). A request that
 * cannot be answered (no domain, no descriptors) fails with
 * INVALID_ARGUMENT, as envoyproxy/ratelimit fails it, and a call before the
 * first configuration with UNAVAILABLE; Envoy then applies its filter's
 * failure mode.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { lookupType } from '../contract/envoy.js';
import { CODE, RequestError, type RateLimitRequest } from './decision.js';
import { NotConfiguredError, type Limiter } from './limiter.js';
import type { Metrics } from './metrics.js';

export const SHOULD_RATE_LIMIT_PATH = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

/** The service's definition: paths and (de)serializers of Envoy's RateLimitRequest / RateLimitResponse. */
export function rateLimitService(): grpc.ServiceDefinition {
  const Request = lookupType('envoy.service.ratelimit.v3.RateLimitRequest');
  const Response = lookupType('envoy.service.ratelimit.v3.RateLimitResponse');
  return {
    ShouldRateLimit: {
      path: SHOULD_RATE_LIMIT_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: (m: object) => Buffer.from(Request.encode(Request.fromObject(m)).finish()),
      requestDeserialize: (b: Buffer) => Request.decode(b),
      // The answer is built in the types' own shapes (enum and int64 numbers): encoded as it is.
      responseSerialize: (m: object) => Buffer.from(Response.encode(m).finish()),
      responseDeserialize: (b: Buffer) => Response.toObject(Response.decode(b), { enums: String, longs: Number }),
    },
  };
}

export function shouldRateLimitHandler(
  limiter: Limiter,
  metrics: Metrics,
  logger: Logger,
): grpc.handleUnaryCall<RateLimitRequest, unknown> {
  return (call, callback) => {
    const started = performance.now();
    limiter.shouldRateLimit(call.request).then(
      (response) => {
        callback(null, response);
        metrics.countCall(
          response.overall_code === CODE.OVER_LIMIT ? 'over_limit' : 'ok',
          (performance.now() - started) / 1000,
        );
      },
      (err: unknown) => {
        metrics.countCall('invalid', (performance.now() - started) / 1000);
        if (err instanceof NotConfiguredError) callback({ code: grpc.status.UNAVAILABLE, details: err.message });
        else if (err instanceof RequestError) {
          logger.info({ domain: call.request.domain, err: err.message }, 'refused a ShouldRateLimit call');
          callback({ code: grpc.status.INVALID_ARGUMENT, details: err.message });
        } else {
          logger.error({ err: (err as Error).message }, 'answering a ShouldRateLimit call failed');
          callback({ code: grpc.status.INTERNAL, details: 'internal error' });
        }
      },
    );
  };
}

export async function startGrpcServer(
  limiter: Limiter,
  metrics: Metrics,
  logger: Logger,
  port: number,
  host: string,
): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server();
  server.addService(rateLimitService(), { ShouldRateLimit: shouldRateLimitHandler(limiter, metrics, logger) });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { server, port: bound };
}
