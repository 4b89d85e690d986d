import type { Routes } from '../http/routes.js';
import type { RegistryMetrics } from '../observability/metrics.js';
import type { Services } from '../services/services.js';

/**
 * `GET /-/health`: readiness for load balancers (200 ready, 503 not); `GET /-/metrics`: the
 * Prometheus text format. Neither needs a token: restrict them at the load balancer.
 */
export function healthRoutes(app: Routes, opts: { services: Services; metrics: RegistryMetrics }): void {
  // Probes and scrapes need no token and are not rate limited (they come every few seconds).
  const config = { openAccess: true, unmetered: true };

  app.get('/-/health', { config }, async (_request, reply) => {
    const report = await opts.services.health.check();
    reply.header('Cache-Control', 'no-store');
    return reply.code(report.status === 'unavailable' ? 503 : 200).send(report);
  });

  app.get('/-/metrics', { config }, async (_request, reply) => {
    const { contentType, body } = await opts.metrics.render();
    reply.header('Cache-Control', 'no-store');
    return reply.type(contentType).send(body);
  });
}
