/**
 * Admin HTTP of `sluice serve`: /healthz, /readyz (once a first snapshot
 * exists), /metrics (Prometheus), /status (JSON: snapshot, current
 * compile errors per resource, connected nodes with what each ACKed or
 * NACKed, and the status page's view: status/view.ts) and the status page
 * (status/routes.ts).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { addHealthRoutes } from '../runtime/health.js';
import { formatDiagnostic, type Diagnostic } from '../compiler/diagnostics.js';
import type { ControlPlane } from './control.js';
import { registerStatusMetrics, statusWriting } from './kube/status-report.js';
import type { StatusReporter } from './kube/status.js';
import type { Snapshot } from './cache/snapshot.js';
import type { XdsServer } from './server/server.js';
import { StatusPages } from './status/routes.js';

const typeLabel = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** Counts what the control plane and the xDS server do; exposes it in the Prometheus format. */
export function createMetrics(control: ControlPlane, server: XdsServer, reporter?: StatusReporter): Registry {
  const registry = new Registry();
  if (reporter) registerStatusMetrics(registry, reporter);
  const pushes = new Counter({
    name: 'sluice_xds_pushes_total',
    help: 'xDS responses sent',
    labelNames: ['type'],
    registers: [registry],
  });
  const nacks = new Counter({
    name: 'sluice_xds_nacks_total',
    help: 'xDS responses rejected by clients',
    labelNames: ['type'],
    registers: [registry],
  });
  new Gauge({
    name: 'sluice_xds_connected_clients',
    help: 'Open ADS streams',
    registers: [registry],
    collect() {
      this.set(server.connectedClients);
    },
  });
  new Gauge({
    name: 'sluice_xds_snapshot_version',
    help: 'Generation of the snapshot being served (1 = first; 0 = none yet)',
    registers: [registry],
    collect() {
      this.set(control.generation);
    },
  });
  new Gauge({
    name: 'sluice_compile_errors',
    help: 'Errors of the latest compile (0 when it succeeded)',
    registers: [registry],
    collect() {
      this.set(control.errors.length);
    },
  });
  const failures = new Counter({
    name: 'sluice_compile_failures_total',
    help: 'Compile runs that failed',
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'sluice_compile_duration_seconds',
    help: 'Duration of compile runs (load to snapshot)',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  server.on('push', (e) => pushes.inc({ type: typeLabel(e.typeUrl) }));
  server.on('nack', (r) => nacks.inc({ type: typeLabel(r.typeUrl) }));
  control.on('compiled', (o) => {
    duration.observe(o.durationMs / 1000);
    if (!o.ok) failures.inc();
  });
  return registry;
}

function errorsByResource(diagnostics: Diagnostic[]): Record<string, Array<Diagnostic & { text: string }>> {
  const out: Record<string, Array<Diagnostic & { text: string }>> = {};
  for (const d of diagnostics)
    (out[d.resource ?? d.file ?? '(input)'] ??= []).push({ ...d, text: formatDiagnostic(d) });
  return out;
}

function types(snapshot: Snapshot) {
  return Object.fromEntries(
    [...snapshot.types].map(([url, t]) => [url, { version: t.version, resources: t.resources.size }]),
  );
}

export function status(control: ControlPlane, server: XdsServer, pages: StatusPages, reporter?: StatusReporter) {
  const snapshot = control.snapshot;
  const proxies = control.cache.proxies;
  return {
    ready: control.ready,
    at: new Date().toISOString(),
    snapshot: snapshot && {
      version: control.version,
      generation: control.generation,
      at: control.snapshotAt?.toISOString(),
      types: types(snapshot),
      // A fleet: what each proxy is served (the types above are gateway-proxy's, or the shared sidecar types').
      ...(proxies.size > 0
        ? {
            proxies: Object.fromEntries(
              [...proxies].map(([name, s]) => [name, { version: s.version, types: types(s) }]),
            ),
          }
        : {}),
    },
    lastCompile: control.lastCompile && { ...control.lastCompile, at: control.lastCompile.at.toISOString() },
    errors: errorsByResource(control.errors),
    clients: server.status(),
    nacks: control.cache
      .allNacks()
      .map((n) => ({ ...n, resources: Object.fromEntries(n.resources), at: n.at.toISOString() })),
    ...pages.view(),
    // serve --kube --status-lease: who writes status, and how it goes.
    ...(reporter ? { statusWriting: statusWriting(reporter) } : {}),
  };
}

export async function startAdmin(
  control: ControlPlane,
  server: XdsServer,
  host: string,
  port: number,
  reporter?: StatusReporter,
): Promise<{ app: FastifyInstance; port: number }> {
  const registry = createMetrics(control, server, reporter);
  const pages = new StatusPages(control, server);
  const app = Fastify({ logger: false });
  // The shape every binary shares (runtime/health.ts), with the snapshot version or the compile errors.
  addHealthRoutes(app, () =>
    control.ready
      ? { ready: true, details: { version: control.version } }
      : {
          ready: false,
          reason: 'not ready: the inputs have not compiled yet',
          details: { errors: control.errors.map(formatDiagnostic) },
        },
  );
  app.get('/metrics', async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  app.get('/status', async () => status(control, server, pages, reporter));
  pages.register(app);
  await app.listen({ host, port });
  const address = app.server.address();
  return { app, port: typeof address === 'object' && address ? address.port : port };
}
