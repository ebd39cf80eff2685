/** Admin HTTP server of sluice-graphql: /healthz, /readyz (a configuration applied) and /metrics. */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';
import type { ApiRegistry } from './registry.js';

export function adminServer(registry: ApiRegistry, metrics: Metrics): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    if (!registry.ready) return reply.code(503).send({ status: 'waiting for configuration' });
    return { status: 'ready' };
  });
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  return app;
}
