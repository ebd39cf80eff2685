/** Command line of `sluice-graphql`. */
import { integerUpTo, type LogFormat } from '../runtime/binary.js';
import { parseSidecarFlags, sidecarCommand } from '../runtime/sidecar-cli.js';
import { MAX_TIMEOUT_MS } from './config.js';
import { DEFAULT_LIMITS } from './limits.js';
import { DEFAULT_DOCUMENT_CACHE_SIZE, DEFAULT_UPSTREAM_TIMEOUT_MS, type GraphqlOptions } from './server.js';

/** The server's options, and the format of its log (--log-format). */
export function parseArgs(argv: string[]): GraphqlOptions & { logFormat?: LogFormat } {
  const program = sidecarCommand({
    name: 'sluice-graphql',
    description: 'GraphQL server for the GraphQLApis Envoy routes to it (header x-sluice-graphql-api)',
    port: { help: 'GraphQL HTTP port', default: 8084 },
    adminPort: 8094,
    config: { set: 'GraphQLApiSet', file: 'graphql.json', resources: 'GraphQLApis' },
  })
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
    );
  const { flags: o, base } = parseSidecarFlags<{
    maxBodyBytes: number;
    maxDepth: number;
    maxAliases: number;
    maxFields: number;
    documentCacheSize: number;
    upstreamTimeoutMs: number;
    otlpEndpoint?: string;
  }>(program, argv);
  return {
    ...base,
    limits: { maxBodyBytes: o.maxBodyBytes, maxDepth: o.maxDepth, maxAliases: o.maxAliases, maxFields: o.maxFields },
    documentCacheSize: o.documentCacheSize,
    upstreamTimeoutMs: o.upstreamTimeoutMs,
    ...(o.otlpEndpoint ? { otlpEndpoint: o.otlpEndpoint } : {}),
  };
}
