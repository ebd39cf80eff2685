/**
 * Prometheus metrics of one sluice-ratelimit instance (own registry, so
 * tests can run several). Per-call counts are kept in plain numbers and
 * handed to prom-client when it is scraped: prom-client hashes the labels on
 * every call, a cost per request otherwise.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BatchedObservations } from '../runtime/batched-observations.js';
import type { HitResult } from './decision.js';

/** ok / over_limit: the overall answer; invalid: a request refused (no domain, no descriptors, a bad override). */
export type CallResult = 'ok' | 'over_limit' | 'invalid';
const CALL_RESULTS: readonly CallResult[] = ['ok', 'over_limit', 'invalid'];

export class Metrics {
  readonly registry = new Registry();
  readonly configApplies: Counter<'result'>;
  private readonly calls: Record<CallResult, number> = { ok: 0, over_limit: 0, invalid: 0 };
  /** Hits by `domain rule` then result, since the last scrape. */
  private readonly hits = new Map<string, { domain: string; rule: string; counts: Record<HitResult, number> }>();
  private readonly failures = { allowed: 0, denied: 0 };
  private readonly durations: BatchedObservations;

  countCall(result: CallResult, seconds: number): void {
    this.calls[result]++;
    this.durations.add(seconds);
  }

  countHit(domain: string, rule: string, result: HitResult): void {
    const id = `${domain} ${rule}`;
    let entry = this.hits.get(id);
    if (!entry)
      this.hits.set(id, (entry = { domain, rule, counts: { within_limit: 0, over_limit: 0, shadow_mode: 0 } }));
    entry.counts[result]++;
  }

  /** A call Redis did not answer, and what the failure mode made of it. */
  countRedisFailure(denied: boolean): void {
    this.failures[denied ? 'denied' : 'allowed']++;
  }

  constructor(redisConnected: () => boolean) {
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_ratelimit_' });
    const { calls, hits, failures } = this;
    new Counter({
      name: 'sluice_ratelimit_calls_total',
      help: 'ShouldRateLimit calls by answer (ok, over_limit) or invalid',
      labelNames: ['result'],
      registers: [this.registry],
      collect() {
        for (const result of CALL_RESULTS) {
          if (calls[result]) this.inc({ result }, calls[result]);
          calls[result] = 0;
        }
      },
    });
    new Counter({
      name: 'sluice_ratelimit_hits_total',
      help: 'Counted rule hits by domain, rule (its descriptor path, or set) and result (within_limit, over_limit, shadow_mode)',
      labelNames: ['domain', 'rule', 'result'],
      registers: [this.registry],
      collect() {
        for (const { domain, rule, counts } of hits.values())
          for (const result of Object.keys(counts) as HitResult[]) {
            if (counts[result]) this.inc({ domain, rule, result }, counts[result]);
            counts[result] = 0;
          }
      },
    });
    new Counter({
      name: 'sluice_ratelimit_redis_failures_total',
      help: 'Calls Redis did not answer in time or could not be reached for, by the decision the failure mode made (allowed, denied)',
      labelNames: ['decision'],
      registers: [this.registry],
      collect() {
        for (const decision of ['allowed', 'denied'] as const) {
          if (failures[decision]) this.inc({ decision }, failures[decision]);
          failures[decision] = 0;
        }
      },
    });
    new Gauge({
      name: 'sluice_ratelimit_redis_up',
      help: '1 while the Redis connection is up, 0 otherwise',
      registers: [this.registry],
      collect() {
        this.set(redisConnected() ? 1 : 0);
      },
    });
    const duration = new Histogram({
      name: 'sluice_ratelimit_call_duration_seconds',
      help: 'Time from a ShouldRateLimit request to its answer, Redis included',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [this.registry],
      collect: () => this.durations.flush(),
    });
    this.durations = new BatchedObservations(duration);
    this.configApplies = new Counter({
      name: 'sluice_ratelimit_config_applies_total',
      help: 'Configuration sets received, by result (applied, rejected)',
      labelNames: ['result'],
      registers: [this.registry],
    });
  }
}
