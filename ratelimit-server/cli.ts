/** Command line of `sluice-ratelimit`. */
import { integerUpTo, type LogFormat } from '../runtime/binary.js';
import { parseSidecarFlags, sidecarCommand } from '../runtime/sidecar-cli.js';
import { DEFAULT_REDIS, DEFAULT_REDIS_TIMEOUT_MS, type RatelimitOptions } from './server.js';

/** Where the Redis password is read from: an environment variable, never a flag (flags show in `ps`). */
export const REDIS_PASSWORD_ENV = 'SLUICE_RATELIMIT_REDIS_PASSWORD';

/** The server's options, and the format of its log (--log-format). */
export function parseArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): RatelimitOptions & { logFormat?: LogFormat } {
  const program = sidecarCommand({
    name: 'sluice-ratelimit',
    description: 'Rate limit service for Envoy (envoy.service.ratelimit.v3.RateLimitService), counting in Redis',
    port: { help: 'RateLimitService gRPC port', default: 8085 },
    adminPort: 8095,
    config: { set: 'RateLimitDomainSet', file: 'ratelimit.json', resources: 'RateLimitDomains' },
  })
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
    .option('--key-prefix <prefix>', 'put before every Redis key (deployments sharing a Redis)', '');
  const { flags: o, base } = parseSidecarFlags<{
    redis: string;
    redisTimeoutMs: number;
    denyOnFail: boolean;
    responseHeaders: boolean;
    keyPrefix: string;
  }>(program, argv);
  const password = env[REDIS_PASSWORD_ENV];
  return {
    ...base,
    redis: o.redis,
    ...(password ? { redisPassword: password } : {}),
    redisTimeoutMs: o.redisTimeoutMs,
    denyOnFail: o.denyOnFail,
    responseHeaders: o.responseHeaders,
    keyPrefix: o.keyPrefix,
  };
}
