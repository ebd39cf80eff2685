/**
 * One sluice-extauth instance: the Check gRPC server, the admin HTTP server
 * (/healthz, /readyz, /metrics) and the configuration source (a watched file
 * or xDS).
 */
import { startTracing } from '../runtime/tracing.js';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type * as grpc from '@grpc/grpc-js';
import type { ConnectionOptions } from 'node:tls';
import { Authorizer } from './authorizer.js';
import { DEFAULT_POOL, loadConfigFile, type AuthConfig, type PoolSettings } from './config.js';
import { startGrpcServer } from './grpc.js';
import { Metrics } from './metrics.js';
import type { AdsClient } from '../runtime/ads-client.js';
import { listenOn, stdoutLog, type LogFormat, type SidecarPlace } from '../runtime/binary.js';
import { watchConfigFile, type WatchedFile } from '../runtime/config-file.js';
import { shutdownGrpc } from '../runtime/grpc-shutdown.js';
import { addHealthRoutes, NO_CONFIGURATION_YET } from '../runtime/health.js';
import { authConfigSource } from './xds.js';

/** How long SIGTERM waits for in-flight checks; Kubernetes' default grace period is 30 s. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface ExtauthOptions extends SidecarPlace {
  poolDefaults?: PoolSettings;
  tlsOptions?: ConnectionOptions;
  /** OTLP/HTTP endpoint for traces (`--otlp-endpoint`); undefined: OTEL_EXPORTER_OTLP_ENDPOINT, else none. */
  otlpEndpoint?: string;
  logger?: Logger;
}

export interface RunningExtauth {
  port: number;
  adminPort: number;
  authorizer: Authorizer;
  close(): Promise<void>;
}

function adminServer(authorizer: Authorizer, metrics: Metrics): FastifyInstance {
  const app = Fastify({ logger: false });
  // Only the xDS source can be without a configuration: a --config file is applied before the ports open.
  addHealthRoutes(app, () => (authorizer.ready ? { ready: true } : { ready: false, reason: NO_CONFIGURATION_YET }));
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  return app;
}

/** The binary's log on stdout (`format`: see stdoutLog), level from LOG_LEVEL; passwords and credentials redacted. */
export function extauthLogger(format?: LogFormat): Logger {
  return stdoutLog(
    {
      name: 'sluice-extauth',
      level: process.env.LOG_LEVEL ?? 'info',
      redact: ['*.password', '*.authorization', 'headers.authorization'],
    },
    format,
  );
}

export async function startExtauth(opts: ExtauthOptions): Promise<RunningExtauth> {
  if (!!opts.config === !!opts.xds) throw new Error('give exactly one of --config FILE and --xds HOST:PORT');
  const logger = opts.logger ?? extauthLogger();
  const poolDefaults = opts.poolDefaults ?? DEFAULT_POOL;
  // The pool gauge reads the authorizer's pools at scrape time.
  const metrics: Metrics = new Metrics({ poolStats: () => authorizer.poolStats() });
  const tracer = await startTracing({ endpoint: opts.otlpEndpoint, service: 'sluice-extauth' });
  const authorizer = new Authorizer({ logger, metrics, tlsOptions: opts.tlsOptions, tracer });

  let file: WatchedFile | undefined;
  let grpcServer: grpc.Server | undefined;
  let xds: AdsClient<AuthConfig[]> | undefined;
  const admin = adminServer(authorizer, metrics);
  try {
    const config = opts.config;
    // Applied all or nothing (setConfigs); a bad file stops the start, a bad edit later leaves the last good set.
    if (config)
      file = await watchConfigFile(
        config,
        async () => authorizer.setConfigs(await loadConfigFile(config, poolDefaults)),
        logger,
      );
    const started = await listenOn('--port', opts.host, opts.port, () =>
      startGrpcServer(authorizer, logger, metrics, opts.port, opts.host, tracer),
    );
    grpcServer = started.server;
    await listenOn('--admin-port', opts.host, opts.adminPort, () =>
      admin.listen({ port: opts.adminPort, host: opts.host }),
    );
    if (opts.xds) {
      xds = authConfigSource({
        address: opts.xds,
        nodeId: opts.nodeId,
        logger,
        poolDefaults,
        apply: (c) => authorizer.setConfigs(c),
      });
      xds.start();
    }
    const adminPort = (admin.server.address() as { port: number }).port;
    logger.info(
      { port: started.port, adminPort, source: opts.config ?? `xds://${opts.xds}` },
      'sluice-extauth listening',
    );
    return {
      port: started.port,
      adminPort,
      authorizer,
      async close() {
        file?.close();
        xds?.stop();
        // Finish in-flight checks (bounded: a client may keep its connection open), then drop LDAP connections.
        await shutdownGrpc(grpcServer!, SHUTDOWN_GRACE_MS);
        await admin.close();
        await authorizer.close();
        // The spans of the last checks are sent before the process ends.
        await tracer.shutdown();
      },
    };
  } catch (err) {
    file?.close();
    grpcServer?.forceShutdown();
    await admin.close();
    await authorizer.close();
    await tracer.shutdown();
    throw err;
  }
}
