/** Prometheus metrics of one server instance (own registry, so tests can run several). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BatchedObservations } from '../runtime/batched-observations.js';

/** `redirect`: a 3xx a config answers (a login page); `denied`: any other 4xx than 401 and 403. */
const CHECK_RESULTS = ['ok', 'unauthenticated', 'forbidden', 'denied', 'redirect', 'error', 'unavailable'] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

export interface PoolGaugeSource {
  poolStats(): { server: string; size: number; inUse: number; idle: number; waiting: number }[];
}

const LDAP_OPERATIONS = ['bind', 'search'] as const;
export type LdapOperation = (typeof LDAP_OPERATIONS)[number];
const LDAP_OUTCOMES = ['success', 'ldap_error', 'connection_error'] as const;
export type LdapOutcome = (typeof LDAP_OUTCOMES)[number];

/** `value(key)` for each of `keys`, as a record. */
function recordOf<K extends string, V>(keys: readonly K[], value: (key: K) => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, value(key)])) as Record<K, V>;
}

export class Metrics {
  readonly registry = new Registry();
  /** Checks per result since the last scrape, added to the counter when it is read (for the same reason as BatchedObservations). */
  private readonly uncountedChecks = recordOf(CHECK_RESULTS, () => 0);
  private readonly latencies: Record<LdapOperation, Record<LdapOutcome, BatchedObservations>>;

  /** Counts one Check by its result. */
  countCheck(result: CheckResult): void {
    this.uncountedChecks[result]++;
  }

  /** Records one LDAP operation's latency. */
  observeLdap(operation: LdapOperation, outcome: LdapOutcome, seconds: number): void {
    this.latencies[operation][outcome].add(seconds);
  }

  constructor(pools: PoolGaugeSource) {
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_extauth_' });
    const uncounted = this.uncountedChecks;
    new Counter({
      name: 'sluice_extauth_checks_total',
      help: 'Check calls by result',
      labelNames: ['result'],
      registers: [this.registry],
      collect() {
        for (const result of CHECK_RESULTS) {
          if (uncounted[result]) this.inc({ result }, uncounted[result]);
          uncounted[result] = 0;
        }
      },
    });
    const latency = new Histogram({
      name: 'sluice_extauth_ldap_operation_seconds',
      help: 'Latency of LDAP operations (bind, search) by outcome (success, ldap_error, connection_error)',
      labelNames: ['operation', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
      collect() {
        // `batches` is set below, before any scrape can come.
        for (const batch of batches) batch.flush();
      },
    });
    this.latencies = recordOf(LDAP_OPERATIONS, (operation) =>
      recordOf(LDAP_OUTCOMES, (outcome) => new BatchedObservations(latency.labels({ operation, outcome }))),
    );
    const batches = Object.values(this.latencies).flatMap((byOutcome) => Object.values(byOutcome));
    new Gauge({
      name: 'sluice_extauth_ldap_pool_connections',
      help: 'LDAP pool connections per server by state (in_use, idle), and checks waiting for one',
      labelNames: ['server', 'state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const p of pools.poolStats()) {
          this.set({ server: p.server, state: 'in_use' }, p.inUse);
          this.set({ server: p.server, state: 'idle' }, p.idle);
          this.set({ server: p.server, state: 'waiting' }, p.waiting);
        }
      },
    });
  }
}
