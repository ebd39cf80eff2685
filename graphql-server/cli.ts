/** Command line of `sluice-graphql`. */
import { Command } from 'commander';
import { integerUpTo, logFormatOption, portArg, type LogFormat } from '../runtime/binary.js';
import { VERSION } from '../runtime/version.js';
import { MAX_TIMEOUT_MS } from './config.js';
import { DEFAULT_LIMITS } from './limits.js';
import { DEFAULT_DOCUMENT_CACHE_SIZE, DEFAULT_UPSTREAM_TIMEOUT_MS, type GraphqlOptions } from './server.js';

/** The server's options, and the format of its log (--log-format). */
export function parseArgs(argv: string[]): GraphqlOptions & { logFormat?: LogFormat } {
  const program = new Command('sluice-graphql')
    .version(VERSION, '-V, --version', 'print the version')
    .description('GraphQL server for the GraphQLApis Envoy routes to it (header x-sluice-graphql-api)')
    .option('--port <port>', 'GraphQL HTTP port', portArg, 8084)
    .option('--admin-port <port>', 'admin HTTP port (/healthz, /readyz, /metrics)', portArg, 8094)
    .option('--bind <host>', 'address both ports bind to (0.0.0.0 to serve other hosts or containers)', '127.0.0.1')
    .option(
      '--config <file>',
      'GraphQLApiSet JSON written by `sluice compile -o DIR` (DIR/graphql.json); watched for changes',
    )
    .option('--xds <host:port>', 'xDS server (`sluice serve`) to get GraphQLApis from')
    .option('--node-id <id>', 'xDS node id', 'sluice-graphql')
    .option('--max-body-bytes <n>', 'largest request body', integerUpTo(64 * 1024 * 1024), DEFAULT_LIMITS.maxBodyBytes)
    .option(
      '--max-depth <n>',
      "deepest field nesting of an operation (an API's maxDepth overrides it)",
      integerUpTo(1000),
      DEFAULT_LIMITS.maxDepth,
    )
    .option('--max-aliases <n>', 'most aliases in an operation', integerUpTo(100_000), DEFAULT_LIMITS.maxAliases)
    .option(
      '--max-fields <n>',
      'most fields in an operation, fragments expanded',
      integerUpTo(1_000_000),
      DEFAULT_LIMITS.maxFields,
    )
    .option(
      '--document-cache-size <n>',
      'parsed and validated documents kept (LRU)',
      integerUpTo(1_000_000),
      DEFAULT_DOCUMENT_CACHE_SIZE,
    )
    .option(
      '--upstream-timeout-ms <ms>',
      'deadline of an upstream call whose resolver sets none',
      integerUpTo(MAX_TIMEOUT_MS),
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    )
    .option(
      '--otlp-endpoint <url>',
      'send traces over OTLP/HTTP to <url>/v1/traces (default: OTEL_EXPORTER_OTLP_ENDPOINT; none: off)',
    )
    .addOption(logFormatOption())
    .exitOverride()
    .parse(argv, { from: 'user' });
  const o = program.opts<{
    port: number;
    adminPort: number;
    bind: string;
    config?: string;
    xds?: string;
    nodeId: string;
    maxBodyBytes: number;
    maxDepth: number;
    maxAliases: number;
    maxFields: number;
    documentCacheSize: number;
    upstreamTimeoutMs: number;
    otlpEndpoint?: string;
    logFormat?: LogFormat;
  }>();
  if (!!o.config === !!o.xds) program.error('give exactly one of --config FILE and --xds HOST:PORT');
  return {
    port: o.port,
    adminPort: o.adminPort,
    host: o.bind,
    ...(o.config ? { config: o.config } : { xds: o.xds }),
    nodeId: o.nodeId,
    limits: { maxBodyBytes: o.maxBodyBytes, maxDepth: o.maxDepth, maxAliases: o.maxAliases, maxFields: o.maxFields },
    documentCacheSize: o.documentCacheSize,
    upstreamTimeoutMs: o.upstreamTimeoutMs,
    ...(o.otlpEndpoint ? { otlpEndpoint: o.otlpEndpoint } : {}),
    ...(o.logFormat ? { logFormat: o.logFormat } : {}),
  };
}
