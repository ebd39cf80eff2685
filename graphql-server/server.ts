/**
 * One sluice-graphql instance: the GraphQL HTTP server, the admin HTTP
 * server (/healthz, /readyz, /metrics) and the configuration source (a
 * watched file or xDS).
 */
import type { Logger } from 'pino';
import { AdsClient, decodeAnys } from '../runtime/ads-client.js';
import { listenOn, stdoutLog, type LogFormat, type SidecarPlace } from '../runtime/binary.js';
import { watchConfigFile, type WatchedFile } from '../runtime/config-file.js';
import { TYPE_URL } from '../contract/names.js';
import { NO_CONFIGURATION_YET } from '../runtime/health.js';
import { startTracing } from '../runtime/tracing.js';
import { adminServer } from './admin.js';
import type { GraphQLApiConfig } from './api.js';
import { checkApiSet, loadConfigFile, parseGraphQLApi } from './config.js';
import { DocumentCache } from './documents.js';
import { graphqlHttpServer } from './http.js';
import { DEFAULT_LIMITS, type Limits } from './limits.js';
import { Metrics } from './metrics.js';
import { ApiRegistry } from './registry.js';

/** How long SIGTERM waits for requests in flight; Kubernetes' default grace period is 30 s. */
const SHUTDOWN_GRACE_MS = 10_000;

export const DEFAULT_DOCUMENT_CACHE_SIZE = 1000;
/** Deadline of an upstream call whose resolver sets none: below Envoy's default route timeout (15 s), so the client gets the GraphQL error. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

export interface GraphqlOptions extends SidecarPlace {
  limits?: Limits;
  documentCacheSize?: number;
  upstreamTimeoutMs?: number;
  /** OTLP/HTTP endpoint for traces (`--otlp-endpoint`); undefined: OTEL_EXPORTER_OTLP_ENDPOINT, else none. */
  otlpEndpoint?: string;
  logger?: Logger;
}

export interface RunningGraphql {
  port: number;
  adminPort: number;
  registry: ApiRegistry;
  metrics: Metrics;
  close(): Promise<void>;
}

/** The binary's log on stdout (`format`: see stdoutLog), level from LOG_LEVEL; headers and secrets redacted. */
export function graphqlLogger(format?: LogFormat): Logger {
  return stdoutLog(
    {
      name: 'sluice-graphql',
      level: process.env.LOG_LEVEL ?? 'info',
      redact: ['*.authorization', '*.cookie', 'headers.authorization', 'headers.cookie', '*.password', '*.token'],
    },
    format,
  );
}

export async function startGraphql(opts: GraphqlOptions): Promise<RunningGraphql> {
  if (!!opts.config === !!opts.xds) throw new Error('give exactly one of --config FILE and --xds HOST:PORT');
  const logger = opts.logger ?? graphqlLogger();
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const metrics = new Metrics();
  const tracer = await startTracing({ endpoint: opts.otlpEndpoint, service: 'sluice-graphql' });
  const registry = new ApiRegistry({
    logger,
    defaultTimeoutMs: opts.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    tracer,
  });
  // Every set, from the file or xDS, is parsed and built here, so each rejection is counted whatever its cause.
  const apply = async (load: () => GraphQLApiConfig[] | Promise<GraphQLApiConfig[]>) => {
    try {
      await registry.apply(await load());
      metrics.configApplies.inc({ result: 'applied' });
    } catch (err) {
      metrics.configApplies.inc({ result: 'rejected' });
      throw err;
    }
  };
  const documents = new DocumentCache(opts.documentCacheSize ?? DEFAULT_DOCUMENT_CACHE_SIZE, limits, metrics, tracer);
  const app = graphqlHttpServer({
    registry,
    documents,
    metrics,
    logger,
    limits,
    notReadyMessage: NO_CONFIGURATION_YET,
    tracer,
  });
  const admin = adminServer(registry, metrics);

  let file: WatchedFile | undefined;
  let xds: AdsClient<unknown[]> | undefined;
  try {
    const config = opts.config;
    if (config) file = await watchConfigFile(config, () => apply(() => loadConfigFile(config)), logger);
    await listenOn('--port', opts.host, opts.port, () => app.listen(opts.port, opts.host));
    await listenOn('--admin-port', opts.host, opts.adminPort, () =>
      admin.listen({ port: opts.adminPort, host: opts.host }),
    );
    if (opts.xds) {
      xds = new AdsClient<unknown[]>({
        address: opts.xds,
        node: { id: opts.nodeId, cluster: 'sluice-graphql' },
        typeUrl: TYPE_URL.graphqlApi,
        logger,
        decode: (resources) => decodeAnys(TYPE_URL.graphqlApi, resources),
        // A set that does not parse or build is NACKed; the previous one stays.
        apply: (raw) => apply(() => checkApiSet(raw.map((r, i) => parseGraphQLApi(r, `resource ${i}`)))),
      });
      xds.start();
    }
  } catch (err) {
    file?.close();
    xds?.stop();
    await app.close();
    await admin.close();
    await registry.close();
    await tracer.shutdown();
    throw err;
  }
  const port = (app.server.address() as { port: number }).port;
  const adminPort = (admin.server.address() as { port: number }).port;
  logger.info({ port, adminPort, source: opts.config ?? `xds://${opts.xds}` }, 'sluice-graphql listening');
  return {
    port,
    adminPort,
    registry,
    metrics,
    async close() {
      file?.close();
      xds?.stop();
      // Requests in flight finish (bounded: a slow upstream must not hold the shutdown), then upstream pools close.
      const timer = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await app.close();
      clearTimeout(timer);
      await admin.close();
      await registry.close();
      // The spans of the last requests are sent before the process ends.
      await tracer.shutdown();
    },
  };
}
