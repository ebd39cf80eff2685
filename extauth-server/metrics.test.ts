/** The batched recording gives the same exposition as prom-client fed each value as it comes. */
import { Counter, Histogram, Registry } from 'prom-client';
import { Metrics, type CheckResult } from './metrics.js';

const LATENCY = 'sluice_extauth_ldap_operation_seconds';
const CHECKS = 'sluice_extauth_checks_total';

/** The lines of one metric family in an exposition, sorted: the order of label sets carries no meaning. */
function family(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(name) || line.startsWith(`# HELP ${name}`) || line.startsWith(`# TYPE ${name}`))
    .sort();
}

test('checks and LDAP latencies read at every scrape equal prom-client fed directly, across batch boundaries', async () => {
  const metrics = new Metrics({ poolStats: () => [] });
  const direct = new Registry();
  const latency = new Histogram({
    name: LATENCY,
    help: 'Latency of LDAP operations (bind, search) by outcome (success, ldap_error, connection_error)',
    labelNames: ['operation', 'outcome'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [direct],
  });
  const checks = new Counter({
    name: CHECKS,
    help: 'Check calls by result',
    labelNames: ['result'],
    registers: [direct],
  });
  const results: CheckResult[] = ['ok', 'ok', 'forbidden', 'ok', 'unauthenticated', 'unavailable'];
  // More values than one batch holds, spread over every bucket, then a few more after the first scrape.
  for (const [step, count] of [
    [0, 2500],
    [2500, 7],
  ] as const) {
    for (let i = step; i < step + count; i++) {
      const seconds = ((i * 7919) % 6000) / 1000;
      const [operation, outcome] =
        i % 5 === 0
          ? (['bind', 'ldap_error'] as const)
          : i % 3
            ? (['search', 'success'] as const)
            : (['bind', 'success'] as const);
      metrics.observeLdap(operation, outcome, seconds);
      latency.observe({ operation, outcome }, seconds);
      metrics.countCheck(results[i % results.length]!);
      checks.inc({ result: results[i % results.length]! });
    }
    const [ours, theirs] = [await metrics.registry.metrics(), await direct.metrics()];
    expect(family(ours, LATENCY)).toEqual(family(theirs, LATENCY));
    expect(family(ours, CHECKS)).toEqual(family(theirs, CHECKS));
  }
  const text = await metrics.registry.metrics();
  expect(text).toContain(`${LATENCY}_count{operation="bind",outcome="ldap_error"} 502`);
  expect(text).toContain(`${CHECKS}{result="ok"} 1254`);
  // A label set never seen is not exposed, as with prom-client alone.
  expect(text).not.toContain('outcome="connection_error"');
});
