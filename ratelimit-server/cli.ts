/** Command line of `sluice-ratelimit`. */
import { Command } from 'commander';
import { integerUpTo, logFormatOption, portArg, type LogFormat } from '../runtime/binary.js';
import { VERSION } from '../runtime/version.js';
import { DEFAULT_REDIS, DEFAULT_REDIS_TIMEOUT_MS, type RatelimitOptions } from './server.js';

/** Where the Redis password is read from: an environment variable, never a flag (flags show in `ps`). */
export const REDIS_PASSWORD_ENV = 'SLUICE_RATELIMIT_REDIS_PASSWORD';

/** The server's options, and the format of its log (--log-format). */
export function parseArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): RatelimitOptions & { logFormat?: LogFormat } {
  const program = new Command('sluice-ratelimit')
    .version(VERSION, '-V, --version', 'print the version')
    .description('Rate limit service for Envoy (envoy.service.ratelimit.v3.RateLimitService), counting in Redis')
    .option('--port <port>', 'RateLimitService gRPC port', portArg, 8085)
    .option('--admin-port <port>', 'admin HTTP port (/healthz, /readyz, /metrics)', portArg, 8095)
    .option('--bind <host>', 'address both ports bind to (0.0.0.0 to serve other hosts or containers)', '127.0.0.1')
    .option(
      '--config <file>',
      'RateLimitDomainSet JSON written by `sluice compile -o DIR` (DIR/ratelimit.json); watched for changes',
    )
    .option('--xds <host:port>', 'xDS server (`sluice serve`) to get RateLimitDomains from')
    .option('--node-id <id>', 'xDS node id', 'sluice-ratelimit')
    .option(
      '--redis <address>',
      `Redis as host:port or a redis:// (rediss:// for TLS) URL; password from $${REDIS_PASSWORD_ENV}`,
      DEFAULT_REDIS,
    )
    .option(
      '--redis-timeout-ms <ms>',
      'longest wait for Redis per call; then the failure mode answers',
      integerUpTo(60_000),
      DEFAULT_REDIS_TIMEOUT_MS,
    )
    .option(
      '--deny-on-fail',
      'answer OVER_LIMIT (Envoy: 429) when Redis cannot count; default: OK, counted in a metric',
      false,
    )
    .option(
      '--response-headers',
      'add x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset to the answers',
      false,
    )
    .option('--key-prefix <prefix>', 'put before every Redis key (deployments sharing a Redis)', '')
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
    redis: string;
    redisTimeoutMs: number;
    denyOnFail: boolean;
    responseHeaders: boolean;
    keyPrefix: string;
    logFormat?: LogFormat;
  }>();
  if (!!o.config === !!o.xds) program.error('give exactly one of --config FILE and --xds HOST:PORT');
  const password = env[REDIS_PASSWORD_ENV];
  return {
    port: o.port,
    adminPort: o.adminPort,
    host: o.bind,
    ...(o.config ? { config: o.config } : { xds: o.xds }),
    nodeId: o.nodeId,
    redis: o.redis,
    ...(password ? { redisPassword: password } : {}),
    redisTimeoutMs: o.redisTimeoutMs,
    denyOnFail: o.denyOnFail,
    responseHeaders: o.responseHeaders,
    keyPrefix: o.keyPrefix,
    ...(o.logFormat ? { logFormat: o.logFormat } : {}),
  };
}
