/**
 * /healthz and /readyz of every binary's admin port, in one shape:
 * /healthz 200 `{"status":"ok"}` while the process runs; /readyz 200
 * `{"status":"ready", ...}` or 503 `{"status":"<why not>", ...}`. A binary
 * may add fields of its own next to `status`.
 */
import type { FastifyInstance } from 'fastify';

export type Readiness =
  | { ready: true; details?: Record<string, unknown> }
  | { ready: false; reason: string; details?: Record<string, unknown> };

/** Why a sidecar fed over xDS is not ready yet (its Checks and requests answer 503 meanwhile). */
export const NO_CONFIGURATION_YET = 'not ready: no configuration from the control plane yet';

export function addHealthRoutes(app: FastifyInstance, readiness: () => Readiness): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const r = readiness();
    if (r.ready) return { status: 'ready', ...r.details };
    return reply.code(503).send({ status: r.reason, ...r.details });
  });
}
