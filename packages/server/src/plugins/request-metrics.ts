import type { AfterStepRun, Step } from '../http/request-steps.js';
import type { RegistryMetrics } from '../observability/metrics.js';

/** Counts and times every answered request by its route pattern (`unmatched` for 404s), and publishes. */
export function requestMetricsStep(metrics: RegistryMetrics): Step<AfterStepRun> {
  return {
    name: 'requestMetrics',
    run(request, reply) {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      // PUT /<name> answers 201 exactly when it stored a new version (200: a retry or an edit).
      if (request.method === 'PUT' && route === '/:name' && reply.statusCode === 201) metrics.recordPublish();
    },
  };
}
