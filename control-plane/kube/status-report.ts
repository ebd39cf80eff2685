/**
 * What serve's admin port shows of status writing (`serve --kube
 * --status-lease`): on /status, the Lease (whether this replica holds it,
 * when it last renewed it, the timing) and the writer (writes done, failed,
 * waiting, the last failure); on /metrics, the same as Prometheus series.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { StatusReporter } from './status.js';

/** The /status section. */
export function statusWriting(reporter: StatusReporter) {
  const { elector, writer } = reporter;
  const { name, namespace, identity, timing } = elector.lease;
  return {
    lease: { name, namespace, identity, leader: elector.leading, renewedAt: elector.renewedAt?.toISOString(), timing },
    rate: reporter.rate,
    writes: writer.writes,
    failures: writer.failures,
    pending: writer.pending,
    lastFailure: writer.lastFailure && { ...writer.lastFailure, at: writer.lastFailure.at.toISOString() },
  };
}

/** The metrics, in `registry`. */
export function registerStatusMetrics(registry: Registry, reporter: StatusReporter): void {
  const { elector, writer } = reporter;
  new Gauge({
    name: 'sluice_status_leader',
    help: 'Whether this replica holds the status Lease and writes status (1) or not (0)',
    registers: [registry],
    collect() {
      this.set(elector.leading ? 1 : 0);
    },
  });
  const writes = new Counter({ name: 'sluice_status_writes_total', help: 'Status writes done', registers: [registry] });
  const failures = new Counter({
    name: 'sluice_status_write_failures_total',
    help: 'Status writes that failed after their retries (the last one is on /status)',
    registers: [registry],
  });
  // Whatever was done before the admin port started.
  if (writer.writes > 0) writes.inc(writer.writes);
  if (writer.failures > 0) failures.inc(writer.failures);
  writer.on('written', () => writes.inc());
  writer.on('failed', () => failures.inc());
  new Gauge({
    name: 'sluice_status_writes_pending',
    help: 'Status writes waiting for their turn (the write rate) or for the Lease',
    registers: [registry],
    collect() {
      this.set(writer.pending);
    },
  });
  new Gauge({
    name: 'sluice_status_last_failure_timestamp_seconds',
    help: 'When the last status write failed (0: none has)',
    registers: [registry],
    collect() {
      this.set(writer.lastFailure ? writer.lastFailure.at.getTime() / 1000 : 0);
    },
  });
}
