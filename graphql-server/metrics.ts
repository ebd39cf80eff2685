/** Prometheus metrics of one sluice-graphql instance (own registry, so tests can run several). */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * ok: data and no errors; partial: data with errors; error: execution failed
 * with no data; invalid: the request or document was refused before execution
 * (parse, validation, limits, introspection); not_found: no such API;
 * unavailable: no configuration yet.
 */
export type Outcome = 'ok' | 'partial' | 'error' | 'invalid' | 'not_found' | 'unavailable';

export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'api' | 'outcome'>;
  readonly duration: Histogram<'api' | 'outcome'>;
  readonly documentCache: Counter<'result'>;
  readonly configApplies: Counter<'result'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_graphql_' });
    this.requests = new Counter({
      name: 'sluice_graphql_requests_total',
      help: 'GraphQL requests by API and outcome (ok, partial, error, invalid, not_found, unavailable)',
      labelNames: ['api', 'outcome'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'sluice_graphql_request_duration_seconds',
      help: 'Time from request to response by API and outcome',
      labelNames: ['api', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.documentCache = new Counter({
      name: 'sluice_graphql_document_cache_total',
      help: 'Document cache lookups by result (hit, miss); a miss parses and validates the document',
      labelNames: ['result'],
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
