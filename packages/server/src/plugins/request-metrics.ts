import type { FastifyInstance } from 'fastify';
import type { RegistryMetrics } from '../observability/metrics.js';

/** Counts and times every answered request by its route pattern (`unmatched` for 404s). */
export function installRequestMetrics(app: FastifyInstance, metrics: RegistryMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
}
