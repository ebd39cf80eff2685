/** Admin HTTP server of sluice-graphql: /healthz, /readyz (a configuration applied) and /metrics. */
import Fastify, { type FastifyInstance } from 'fastify';
import { addHealthRoutes, NO_CONFIGURATION_YET } from '../runtime/health.js';
import type { Metrics } from './metrics.js';
import type { ApiRegistry } from './registry.js';

export function adminServer(registry: ApiRegistry, metrics: Metrics): FastifyInstance {
  const app = Fastify({ logger: false });
  // Only the xDS source can be without a configuration: a --config file is applied before the ports open.
  addHealthRoutes(app, () => (registry.ready ? { ready: true } : { ready: false, reason: NO_CONFIGURATION_YET }));
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  return app;
}
