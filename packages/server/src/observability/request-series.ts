import type { Registry } from 'prom-client';

type Labels = { method: string; route: string; status: string };

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), by index of the upper bound. */
  buckets: number[];
}

/** A value of a metric as prom-client's registry reads it (see its Counter and Histogram). */
interface MetricValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string | number>;
  value: number;
  metricName?: string;
  /** prom-client's histograms carry one per bucket (null: none). */
  exemplar?: null;
}

/**
 * The request counter and duration histogram, by method, route pattern and status. Counted in
 * plain numbers per series and handed to prom-client's registry only when it is scraped, in the
 * shape its own Counter and Histogram give (tests compare the text): prom-client's `inc` and
 * `observe` hash the label set on every call, which cost more than a microsecond per request.
 */
export class RequestSeries {
  readonly #series = new Map<string, Series>();
  readonly #bounds: readonly number[];

  constructor(registry: Registry, options: { counter: string; histogram: string; bounds: readonly number[] }) {
    this.#bounds = options.bounds;
    const series = this.#series;
    const bounds = this.#bounds;
    registry.registerMetric({
      name: options.counter,
      help: 'HTTP requests answered, by method, route pattern and status.',
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({
        name: options.counter,
        help: 'HTTP requests answered, by method, route pattern and status.',
        type: 'counter',
        aggregator: 'sum',
        values: [...series.values()].map((s): MetricValue => ({ labels: { ...s.labels }, value: s.count })),
      }),
      reset: () => series.clear(),
    } as unknown as Parameters<Registry['registerMetric']>[0]);
    const histogramValues = (splay: boolean): MetricValue[] => {
      const values: MetricValue[] = [];
      for (const s of series.values()) {
        const bucket = (le: number | string, value: number): MetricValue =>
          splay
            ? { labels: { le, ...s.labels }, value, metricName: `${options.histogram}_bucket`, exemplar: null }
            : { labels: { le }, sharedLabels: { ...s.labels }, value, metricName: `${options.histogram}_bucket`, exemplar: null };
        let cumulative = 0;
        bounds.forEach((bound, i) => values.push(bucket(bound, (cumulative += s.buckets[i]!))));
        values.push(bucket('+Inf', s.count));
        const total = (metricName: string, value: number): MetricValue =>
          splay
            ? { labels: { ...s.labels }, value, metricName }
            : { labels: {}, sharedLabels: { ...s.labels }, value, metricName };
        values.push(total(`${options.histogram}_sum`, s.sum), total(`${options.histogram}_count`, s.count));
      }
      return values;
    };
    const histogram = (splay: boolean) => ({
      name: options.histogram,
      help: 'Time to answer HTTP requests, by method, route pattern and status.',
      type: 'histogram',
      aggregator: 'sum',
      values: histogramValues(splay),
    });
    registry.registerMetric({
      name: options.histogram,
      help: 'Time to answer HTTP requests, by method, route pattern and status.',
      type: 'histogram',
      aggregator: 'sum',
      get: async () => histogram(true),
      getForPromString: async () => histogram(false),
      reset: () => series.clear(),
    } as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let s = this.#series.get(key);
    if (s === undefined) {
      s = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: this.#bounds.map(() => 0) };
      this.#series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        s.buckets[i]!++;
        break;
      }
    }
  }
}
