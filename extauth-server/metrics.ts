/** Prometheus metrics of one server instance (own registry, so tests can run several). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type CheckResult = 'ok' | 'unauthenticated' | 'forbidden' | 'error' | 'unavailable';

export interface PoolGaugeSource {
  poolStats(): { server: string; size: number; inUse: number; idle: number; waiting: number }[];
}

export type LdapOperation = 'bind' | 'search';
export type LdapOutcome = 'success' | 'ldap_error' | 'connection_error';

export class Metrics {
  readonly registry = new Registry();
  readonly checks: Counter<'result'>;
  readonly ldapLatency: Histogram<'operation' | 'outcome'>;
  /** Each label set's child, made once: looking a child up by its labels hashes them on every call, a cost per check. */
  private readonly checkChildren = new Map<CheckResult, { inc(): void }>();
  private readonly latencyChildren = new Map<string, { observe(seconds: number): void }>();

  /** Counts one Check by its result. */
  countCheck(result: CheckResult): void {
    let child = this.checkChildren.get(result);
    if (!child) this.checkChildren.set(result, (child = this.checks.labels({ result })));
    child.inc();
  }

  /** Records one LDAP operation's latency. */
  observeLdap(operation: LdapOperation, outcome: LdapOutcome, seconds: number): void {
    const key = `${operation} ${outcome}`;
    let child = this.latencyChildren.get(key);
    if (!child) this.latencyChildren.set(key, (child = this.ldapLatency.labels({ operation, outcome })));
    child.observe(seconds);
  }

  constructor(pools: PoolGaugeSource) {
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_extauth_' });
    this.checks = new Counter({
      name: 'sluice_extauth_checks_total',
      help: 'Check calls by result',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.ldapLatency = new Histogram({
      name: 'sluice_extauth_ldap_operation_seconds',
      help: 'Latency of LDAP operations (bind, search) by outcome (success, ldap_error, connection_error)',
      labelNames: ['operation', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
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
