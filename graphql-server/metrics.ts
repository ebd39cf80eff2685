/** Prometheus metrics of one sluice-graphql instance (own registry, so tests can run several). */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BatchedObservations } from '../runtime/batched-observations.js';
import type { ExplorerAnswer } from './explorer.js';

/**
 * ok: data and no errors; partial: data with errors; error: execution failed
 * with no data; invalid: the request or document was refused before execution
 * (parse, validation, limits, introspection); not_found: no such API;
 * unavailable: no configuration yet.
 */
export type Outcome = 'ok' | 'partial' | 'error' | 'invalid' | 'not_found' | 'unavailable';

/** One label pair's requests since the last scrape: a count and their durations. */
interface Pending {
  count: number;
  durations: BatchedObservations;
}

export class Metrics {
  readonly registry = new Registry();
  readonly documentCache: Counter<'result'>;
  readonly configApplies: Counter<'result'>;
  readonly explorerRequests: Counter<'api' | 'answer'>;
  /**
   * Requests by API and outcome, handed to prom-client when it is scraped
   * (and durations when a batch is full): prom-client validates and hashes
   * the labels on every call, a cost per request otherwise.
   */
  private readonly pending = new Map<string, Map<Outcome, Pending>>();
  private readonly duration: Histogram<'api' | 'outcome'>;

  /** Counts one answer of the explorer (its page or an asset). */
  countExplorer(api: string, answer: ExplorerAnswer): void {
    this.explorerRequests.inc({ api, answer });
  }

  /** Counts one request and its duration. */
  countRequest(api: string, outcome: Outcome, seconds: number): void {
    let byOutcome = this.pending.get(api);
    if (!byOutcome) this.pending.set(api, (byOutcome = new Map()));
    let entry = byOutcome.get(outcome);
    if (!entry)
      byOutcome.set(
        outcome,
        (entry = { count: 0, durations: new BatchedObservations(this.duration.labels({ api, outcome })) }),
      );
    entry.count++;
    entry.durations.add(seconds);
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_graphql_' });
    const pending = this.pending;
    new Counter({
      name: 'sluice_graphql_requests_total',
      help: 'GraphQL requests by API and outcome (ok, partial, error, invalid, not_found, unavailable)',
      labelNames: ['api', 'outcome'],
      registers: [this.registry],
      collect() {
        for (const [api, byOutcome] of pending) {
          for (const [outcome, entry] of byOutcome) {
            if (entry.count) this.inc({ api, outcome }, entry.count);
            entry.count = 0;
          }
        }
      },
    });
    this.duration = new Histogram({
      name: 'sluice_graphql_request_duration_seconds',
      help: 'Time from request to response by API and outcome',
      labelNames: ['api', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
      collect() {
        for (const byOutcome of pending.values()) for (const entry of byOutcome.values()) entry.durations.flush();
      },
    });
    this.documentCache = new Counter({
      name: 'sluice_graphql_document_cache_total',
      help: 'Document cache lookups by result (hit, miss); a miss parses and validates the document',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.explorerRequests = new Counter({
      name: 'sluice_graphql_explorer_requests_total',
      help: 'GraphQL explorer requests by API and answer (page, asset, not_modified, unknown_asset); its GraphQL requests count as requests',
      labelNames: ['api', 'answer'],
      registers: [this.registry],
    });
    this.configApplies = new Counter({
      name: 'sluice_graphql_config_applies_total',
      help: 'Configuration sets received, by result (applied, rejected)',
      labelNames: ['result'],
      registers: [this.registry],
    });
  }
}
