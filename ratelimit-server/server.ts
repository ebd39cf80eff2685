/**
 * One sluice-ratelimit instance: the RateLimitService gRPC server, the admin
 * HTTP server (/healthz, /readyz, /metrics), the Redis counters and the
 * configuration source (a watched file or xDS).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { AdsClient, decodeAnys } from '../runtime/ads-client.js';
import { listenOn, stdoutLog, type LogFormat, type SidecarPlace } from '../runtime/binary.js';
import { watchConfigFile, type WatchedFile } from '../runtime/config-file.js';
import { shutdownGrpc } from '../runtime/grpc-shutdown.js';
import { addHealthRoutes, NO_CONFIGURATION_YET } from '../runtime/health.js';
import { TYPE_URL } from '../contract/names.js';
import { checkDomains, loadConfigFile, parseDomain, type Domain } from './config.js';
import { startGrpcServer } from './grpc.js';
import { Limiter } from './limiter.js';
import { Metrics } from './metrics.js';
import { RedisCounter } from './redis.js';

/** How long SIGTERM waits for calls in flight (each is bounded by the Redis timeout). */
const SHUTDOWN_GRACE_MS = 5_000;
export const DEFAULT_REDIS = '127.0.0.1:6379';
/** Below the 100 ms Gloo gives Envoy's rate limit filter by default (Settings ratelimitServer.requestTimeout). */
export const DEFAULT_REDIS_TIMEOUT_MS = 50;

export interface RatelimitOptions extends SidecarPlace {
  /** Redis `host:port` or URL. */
  redis: string;
  redisPassword?: string;
  redisTimeoutMs: number;
  denyOnFail: boolean;
  responseHeaders: boolean;
  keyPrefix: string;
  logger?: Logger;
}

export interface RunningRatelimit {
  port: number;
  adminPort: number;
  limiter: Limiter;
  close(): Promise<void>;
}

/** The binary's log on stdout (`format`: see stdoutLog), level from LOG_LEVEL; the Redis password redacted. */
export function ratelimitLogger(format?: LogFormat): Logger {
  return stdoutLog(
    { name: 'sluice-ratelimit', level: process.env.LOG_LEVEL ?? 'info', redact: ['*.password'] },
    format,
  );
}

function adminServer(limiter: Limiter, redis: RedisCounter, metrics: Metrics): FastifyInstance {
  const app = Fastify({ logger: false });
  // Ready with a configuration; Redis' state is shown, not required: while it is away the failure mode answers.
  addHealthRoutes(app, () => {
    const details = { redis: redis.connected ? 'connected' : 'unreachable' };
    return limiter.ready ? { ready: true, details } : { ready: false, reason: NO_CONFIGURATION_YET, details };
  });
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  return app;
}

export async function startRatelimit(opts: RatelimitOptions): Promise<RunningRatelimit> {
  if (!!opts.config === !!opts.xds) throw new Error('give exactly one of --config FILE and --xds HOST:PORT');
  const logger = opts.logger ?? ratelimitLogger();
  const redis = new RedisCounter({
    address: opts.redis,
    timeoutMs: opts.redisTimeoutMs,
    logger,
    ...(opts.redisPassword ? { password: opts.redisPassword } : {}),
  });
  const metrics = new Metrics(() => redis.connected);
  const limiter = new Limiter({
    redis,
    metrics,
    logger,
    denyOnFail: opts.denyOnFail,
    responseHeaders: opts.responseHeaders,
    keyPrefix: opts.keyPrefix,
  });
  // Every set, from the file or xDS, is applied here, so each rejection is counted whatever its cause.
  const apply = async (load: () => Map<string, Domain> | Promise<Map<string, Domain>>) => {
    try {
      limiter.setDomains(await load());
      metrics.configApplies.inc({ result: 'applied' });
    } catch (err) {
      metrics.configApplies.inc({ result: 'rejected' });
      throw err;
    }
  };
  const admin = adminServer(limiter, redis, metrics);
  let file: WatchedFile | undefined;
  let xds: AdsClient<Record<string, unknown>[]> | undefined;
  let grpcServer: grpc.Server | undefined;
  try {
    const config = opts.config;
    // A bad file stops the start; a bad edit later leaves the last good set in force.
    if (config) file = await watchConfigFile(config, () => apply(() => loadConfigFile(config)), logger);
    const started = await listenOn('--port', opts.host, opts.port, () =>
      startGrpcServer(limiter, metrics, logger, opts.port, opts.host),
    );
    grpcServer = started.server;
    await listenOn('--admin-port', opts.host, opts.adminPort, () =>
      admin.listen({ port: opts.adminPort, host: opts.host }),
    );
    if (opts.xds) {
      xds = new AdsClient<Record<string, unknown>[]>({
        address: opts.xds,
        node: { id: opts.nodeId, cluster: 'sluice-ratelimit' },
        typeUrl: TYPE_URL.rateLimitDomain,
        logger,
        decode: (resources) => decodeAnys(TYPE_URL.rateLimitDomain, resources),
        // A set that does not parse is NACKed; the previous one stays.
        apply: (raw) => apply(() => checkDomains(raw.map((r, i) => parseDomain(r, `resource ${i}`)))),
      });
      xds.start();
    }
    const adminPort = (admin.server.address() as { port: number }).port;
    logger.info(
      { port: started.port, adminPort, source: opts.config ?? `xds://${opts.xds}`, redis: opts.redis },
      'sluice-ratelimit listening',
    );
    return {
      port: started.port,
      adminPort,
      limiter,
      async close() {
        file?.close();
        xds?.stop();
        await shutdownGrpc(grpcServer!, SHUTDOWN_GRACE_MS);
        await admin.close();
        await redis.close();
      },
    };
  } catch (err) {
    file?.close();
    xds?.stop();
    grpcServer?.forceShutdown();
    await admin.close();
    await redis.close();
    throw err;
  }
}
