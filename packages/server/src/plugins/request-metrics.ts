import type { FastifyInstance } from 'fastify';
import type { RegistryMetrics } from '../observability/metrics.js';

/** Counts and times every answered request by its route pattern (`unmatched` for 404s), and publishes. */
export function installRequestMetrics(app: FastifyInstance, metrics: RegistryMetrics): void {
  // Callback-style: it runs on every request, and a synchronous callback costs no promise.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // PUT /<name> answers 201 exactly when it stored a new version (200: a retry or an edit).
    if (request.method === 'PUT' && route === '/:name' && reply.statusCode === 201) metrics.recordPublish();
    done();
  });
}
