import { describe, expect, it } from 'vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestSeries } from '../../src/observability/request-series.js';

const bounds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const observations: [string, string, number, number][] = [
  ['GET', '/:name', 200, 0.0004],
  ['GET', '/:name', 200, 0.003],
  ['GET', '/:name', 404, 0.0011],
  ['PUT', '/:name', 201, 0.2],
  ['GET', '/:name', 200, 45],
  ['GET', '/-/whoami', 401, 0.001],
];

/** The same metrics through prom-client's own Counter and Histogram. */
function promClientRegistry(): Registry {
  const registry = new Registry();
  const counter = new Counter({
    name: 'x_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const histogram = new Histogram({
    name: 'x_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: bounds,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of observations) {
    const labels = { method, route, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  }
  return registry;
}

function ourRegistry(): Registry {
  const registry = new Registry();
  const series = new RequestSeries(registry, { counter: 'x_requests_total', histogram: 'x_duration_seconds', bounds });
  for (const [method, route, status, seconds] of observations) series.observe(method, route, status, seconds);
  return registry;
}

describe('request series', () => {
  it('scrape exactly as prom-client Counter and Histogram fed the same observations', async () => {
    const ours = await ourRegistry().metrics();
    expect(ours).toContain('x_duration_seconds_bucket{le="0.001",method="GET",route="/:name",status="200"} 1');
    expect(ours).toBe(await promClientRegistry().metrics());
  });

  it('give the same JSON as prom-client', async () => {
    expect(await ourRegistry().getMetricsAsJSON()).toEqual(await promClientRegistry().getMetricsAsJSON());
  });

  it('are emptied by a registry reset', async () => {
    const registry = ourRegistry();
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('x_requests_total{');
  });
});
