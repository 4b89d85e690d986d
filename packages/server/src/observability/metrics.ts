import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { UplinkStats } from '../services/uplinks/uplink-service.js';
import { RequestSeries } from './request-series.js';
import type { StorageFigures } from './storage-figures.js';

/** Sources of figures kept elsewhere, read when Prometheus scrapes. */
export interface MetricSources {
  /** Document cache lookups so far. */
  cacheStats?: () => { hits: number; misses: number; rejected?: number };
  /** Document cache misses, by how they were answered. */
  renderStats?: () => { read: number; rendered: number };
  /** Whether the invalidation bus hears other nodes. */
  busConnected?: () => boolean;
  /** Whether Redis answers commands; undefined when none is configured. */
  redisReady?: () => boolean | undefined;
  /** Figures of each uplink used since start. */
  uplinkStats?: () => UplinkStats[];
  /** Storage usage per registry and the last collection (observability/storage-figures.ts). */
  storageFigures?: () => Promise<StorageFigures | undefined>;
}

/**
 * The registry's Prometheus metrics, one registry per app (tests build several apps in one
 * process). Route labels are route patterns, never raw URLs, so the series stay few.
 */
export class RegistryMetrics {
  readonly registry = new Registry();
  readonly #requests: RequestSeries;
  readonly #publishes: Counter;
  readonly #rateLimited: Counter<'route'>;
  #sources: MetricSources = {};

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'pkg_registry_' });
    this.#requests = new RequestSeries(this.registry, {
      counter: 'pkg_registry_http_requests_total',
      histogram: 'pkg_registry_http_request_duration_seconds',
      bounds: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    this.#publishes = new Counter({
      name: 'pkg_registry_publishes_total',
      help: 'Versions published.',
      registers,
    });
    this.#rateLimited = new Counter({
      name: 'pkg_registry_rate_limit_rejections_total',
      help: 'Requests refused with 429 because a rate limit was passed, by route pattern.',
      labelNames: ['route'],
      registers,
    });
    const sources = () => this.#sources;
    new Counter({
      name: 'pkg_registry_document_cache_lookups_total',
      help: 'Package document cache lookups, by result (hit or miss).',
      labelNames: ['result'],
      registers,
      collect() {
        const stats = sources().cacheStats?.();
        if (!stats) return;
        this.reset();
        this.inc({ result: 'hit' }, stats.hits);
        this.inc({ result: 'miss' }, stats.misses);
      },
    });
    new Counter({
      name: 'pkg_registry_document_cache_rejected_total',
      help: 'Documents built after a miss and not kept: the cache was full of documents asked for at least as often.',
      registers,
      collect() {
        const stats = sources().cacheStats?.();
        if (!stats) return;
        this.reset();
        this.inc(stats.rejected ?? 0);
      },
    });
    new Counter({
      name: 'pkg_registry_document_renders_total',
      help: 'Package documents the cache missed, by how they were made: read (a render the database kept) or rendered (from the package, then kept).',
      labelNames: ['result'],
      registers,
      collect() {
        const stats = sources().renderStats?.();
        if (!stats) return;
        this.reset();
        this.inc({ result: 'read' }, stats.read);
        this.inc({ result: 'rendered' }, stats.rendered);
      },
    });
    new Gauge({
      name: 'pkg_registry_document_cache_hit_ratio',
      help: 'Share of package document lookups answered from the cache since start (0 to 1).',
      registers,
      collect() {
        const stats = sources().cacheStats?.();
        const total = stats ? stats.hits + stats.misses : 0;
        this.set(stats && total > 0 ? stats.hits / total : 0);
      },
    });
    new Gauge({
      name: 'pkg_registry_invalidation_bus_connected',
      help: '1 when this node hears cache invalidations from the other nodes.',
      registers,
      collect() {
        this.set(sources().busConnected?.() === false ? 0 : 1);
      },
    });
    new Gauge({
      name: 'pkg_registry_redis_up',
      help: '1 when Redis answers, 0 when it does not; absent without Redis.',
      registers,
      collect() {
        const ready = sources().redisReady?.();
        this.reset();
        if (ready !== undefined) this.set(ready ? 1 : 0);
      },
    });
    this.#storageGauges();
    // Counted by the uplink service as plain numbers (a cache hit is counted on every read), read here.
    this.#uplinkCounter('pkg_registry_uplink_requests_total', 'Requests sent to upstream registries, by uplink.', 'requests');
    this.#uplinkCounter(
      'pkg_registry_uplink_cache_hits_total',
      'Answers for covered packages given from the cache without asking the upstream, by uplink.',
      'hits',
    );
    this.#uplinkCounter(
      'pkg_registry_uplink_stale_total',
      'Cached documents served stale because the upstream could not be asked, by uplink.',
      'stale',
    );
    this.#uplinkCounter(
      'pkg_registry_uplink_failures_total',
      'Upstream requests that failed (down, refused, unusable, or a tarball failing its integrity), by uplink.',
      'failures',
    );
  }

  #uplinkCounter(name: string, help: string, field: 'requests' | 'hits' | 'stale' | 'failures'): void {
    const sources = () => this.#sources;
    new Counter({
      name,
      help,
      labelNames: ['tenant', 'uplink'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const stats of sources().uplinkStats?.() ?? [])
          this.inc({ tenant: stats.tenant, uplink: stats.uplink }, stats[field]);
      },
    });
  }

  /**
   * Storage figures, read when scraped. Per registry for the largest ones only, the rest summed
   * under `tenant="(other)"`, so thousands of tenants cost a bounded number of series.
   */
  #storageGauges(): void {
    const sources = () => this.#sources;
    const registers = [this.registry];
    const perRegistry = (name: string, help: string, field: 'bytes' | 'packages') =>
      new Gauge({
        name,
        help,
        labelNames: ['tenant'],
        registers,
        async collect() {
          const figures = await sources().storageFigures?.();
          this.reset();
          for (const { tenant, usage } of figures?.registries ?? []) this.set({ tenant }, usage[field]);
        },
      });
    perRegistry(
      'pkg_registry_storage_bytes',
      "Bytes of the versions' tarballs and provenance bundles, by registry (tenant '' is the global one; the registries beyond the 100 largest are summed under '(other)').",
      'bytes',
    );
    perRegistry(
      'pkg_registry_storage_packages',
      'Packages with at least one version, by registry (as pkg_registry_storage_bytes).',
      'packages',
    );
    const scalar = (name: string, help: string, value: (figures: StorageFigures) => number | undefined) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const figures = await sources().storageFigures?.();
          const v = figures && value(figures);
          this.reset();
          if (v !== undefined) this.set(v);
        },
      });
    scalar(
      'pkg_registry_storage_blobs',
      'Blobs (tarballs and provenance bundles) the versions of every registry hold.',
      (f) => f.total.files,
    );
    scalar(
      'pkg_registry_storage_registries',
      'Registries holding at least one version (the global one and tenants).',
      (f) => f.registryCount,
    );
    scalar(
      'pkg_registry_storage_collect_last_timestamp_seconds',
      'When the last storage collection finished (pkg-registry storage collect, or the start-up sweep), in seconds since the epoch; 0 before the first.',
      (f) => (f.lastCollect ? Date.parse(f.lastCollect.at) / 1000 : 0),
    );
    new Gauge({
      name: 'pkg_registry_storage_collect_last_removed',
      help: 'What the last storage collection removed, by kind: orphans (unreferenced blobs), temporary_files (file system), incomplete_uploads (S3 multipart).',
      labelNames: ['kind'],
      registers,
      async collect() {
        const last = (await sources().storageFigures?.())?.lastCollect;
        this.reset();
        if (!last) return;
        this.set({ kind: 'orphans' }, last.orphans);
        this.set({ kind: 'temporary_files' }, last.temporaryFiles);
        this.set({ kind: 'incomplete_uploads' }, last.incompleteUploads);
      },
    });
  }

  /** Where the scrape-time figures come from (set once the services exist). */
  setSources(sources: MetricSources): void {
    this.#sources = { ...this.#sources, ...sources };
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requests.observe(method, route, status, seconds);
    if (status === 429) this.#rateLimited.inc({ route });
  }

  recordPublish(): void {
    this.#publishes.inc();
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
