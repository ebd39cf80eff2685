/**
 * The rate limiter of one sidecar: the domains in force (replaced as a
 * whole by each configuration), the Redis counters and the failure mode.
 */
import type { Logger } from 'pino';
import { NO_CONFIGURATION_YET } from '../runtime/health.js';
import type { Domain } from './config.js';
import { answer, plan, type Answer, type RateLimitRequest } from './decision.js';
import type { Metrics } from './metrics.js';
import type { RedisCounter } from './redis.js';

export interface LimiterOptions {
  redis: RedisCounter;
  metrics: Metrics;
  logger: Logger;
  /** When Redis cannot answer: OVER_LIMIT (true) or OK (false). */
  denyOnFail: boolean;
  /** Add x-ratelimit-limit/remaining/reset to the response. */
  responseHeaders: boolean;
  /** Put before every Redis key, to share a Redis between deployments. */
  keyPrefix: string;
}

/** No configuration yet (xDS has not sent one): Envoy applies its filter's failure mode. */
export class NotConfiguredError extends Error {}

export class Limiter {
  private domains: ReadonlyMap<string, Domain> | undefined;

  constructor(private readonly opts: LimiterOptions) {}

  /** Whether a configuration is in force. */
  get ready(): boolean {
    return this.domains !== undefined;
  }

  /** Puts a parsed set of domains in force, all at once. */
  setDomains(domains: ReadonlyMap<string, Domain>): void {
    this.domains = domains;
  }

  /** The answer to one ShouldRateLimit; throws RequestError for a request that cannot be answered, NotConfiguredError before a configuration. */
  async shouldRateLimit(request: RateLimitRequest): Promise<Answer['response']> {
    const { metrics, redis, denyOnFail, responseHeaders } = this.opts;
    if (!this.domains) throw new NotConfiguredError(NO_CONFIGURATION_YET);
    const p = plan(this.domains, request, Math.floor(Date.now() / 1000), this.opts.keyPrefix);
    let counts: number[] | undefined = [];
    if (p.hits.length) {
      try {
        counts = await redis.count(
          p.hits.map((h) => h.key),
          p.hits.map((h) => h.ttl),
          p.addend,
        );
      } catch (err) {
        counts = undefined;
        metrics.countRedisFailure(denyOnFail);
        if (this.opts.logger.isLevelEnabled('debug'))
          this.opts.logger.debug({ err: (err as Error).message, domain: request.domain }, 'Redis did not count a call');
      }
    }
    const result = answer(p, counts ? { counts } : { failed: true, denyOnFail }, responseHeaders);
    // Hits Redis did not count are in the failure metric, not among the rules' results.
    if (counts) p.hits.forEach((h, i) => metrics.countHit(request.domain, h.limit.rule, result.results[i]!));
    return result.response;
  }
}
