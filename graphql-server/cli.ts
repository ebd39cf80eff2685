/** Command line of `sluice-graphql`. */
import { Command, InvalidArgumentError } from 'commander';
import { VERSION } from '../protos/version.js';
import { MAX_TIMEOUT_MS } from './config.js';
import { DEFAULT_LIMITS } from './limits.js';
import { DEFAULT_DOCUMENT_CACHE_SIZE, DEFAULT_UPSTREAM_TIMEOUT_MS, type GraphqlOptions } from './server.js';

// Digits only: Number() would also take "1e3", "0x50" and " 80".
const digits = (v: string) => (/^\d{1,10}$/.test(v) ? Number(v) : NaN);

function port(v: string): number {
  const n = digits(v);
  if (!(n >= 0 && n <= 65535)) throw new InvalidArgumentError('not a port number');
  return n;
}

function upTo(max: number): (v: string) => number {
  return (v) => {
    const n = digits(v);
    if (!(n >= 1 && n <= max)) throw new InvalidArgumentError(`not an integer from 1 to ${max}`);
    return n;
  };
}

export function parseArgs(argv: string[]): GraphqlOptions {
  const program = new Command('sluice-graphql')
    .version(VERSION, '-V, --version', 'print the version')
    .description('GraphQL server for the GraphQLApis Envoy routes to it (header x-sluice-graphql-api)')
    .option('--port <port>', 'GraphQL HTTP port', port, 8084)
    .option('--admin-port <port>', 'admin HTTP port (/healthz, /readyz, /metrics)', port, 8094)
    .option('--bind <host>', 'address both ports bind to (0.0.0.0 to serve other hosts or containers)', '127.0.0.1')
    .option('--config <file>', 'GraphQLApiSet JSON written by `sluice compile -o DIR` (DIR/graphql.json); watched for changes')
    .option('--xds <host:port>', 'xDS server (`sluice serve`) to get GraphQLApis from')
    .option('--node-id <id>', 'xDS node id', 'sluice-graphql')
    .option('--max-body-bytes <n>', 'largest request body', upTo(64 * 1024 * 1024), DEFAULT_LIMITS.maxBodyBytes)
    .option('--max-depth <n>', "deepest field nesting of an operation (an API's maxDepth overrides it)", upTo(1000), DEFAULT_LIMITS.maxDepth)
    .option('--max-aliases <n>', 'most aliases in an operation', upTo(100_000), DEFAULT_LIMITS.maxAliases)
    .option('--max-fields <n>', 'most fields in an operation, fragments expanded', upTo(1_000_000), DEFAULT_LIMITS.maxFields)
    .option('--document-cache-size <n>', 'parsed and validated documents kept (LRU)', upTo(1_000_000), DEFAULT_DOCUMENT_CACHE_SIZE)
    .option('--upstream-timeout-ms <ms>', 'deadline of an upstream call whose resolver sets none', upTo(MAX_TIMEOUT_MS), DEFAULT_UPSTREAM_TIMEOUT_MS)
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
  };
}
