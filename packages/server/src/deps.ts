import type { Config } from './config/config.js';
import type { RedisConnection } from './storage/drivers/redis/redis-connection.js';
import type { CounterStore } from './storage/counter-store.js';
import type {
  BlobStore,
  DownloadCountStore,
  InvalidationBus,
  MetadataStore,
  SearchIndex,
  UplinkCacheStore,
} from './storage/ports.js';

/** Everything the server does IO through, built by main.ts (or by a test) and passed in. */
export interface ServerDeps {
  config: Config;
  metadata: MetadataStore;
  /** Read side of the search index that `metadata` keeps in its write transactions. */
  search: SearchIndex;
  downloadCounts: DownloadCountStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** The shared Redis connection, when one is configured (rate limits, readiness). */
  redis?: RedisConnection | undefined;
  /** Rate-limit and login-throttle counters; in-process ones when not given. */
  counters?: CounterStore;
  /** Freshness of packages cached from uplinks; kept in memory when not given. */
  uplinkCache?: UplinkCacheStore | undefined;
  /** Where uplink tokens (`tokenEnv`) are read; process.env when not given. */
  env?: NodeJS.ProcessEnv;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => Date;
}

/** The deps of a server on `storage` (what main and the test kit both build). */
export function serverDeps(
  config: Config,
  storage: Pick<ServerDeps, 'metadata' | 'search' | 'downloadCounts' | 'blobs' | 'bus' | 'counters' | 'redis' | 'uplinkCache'>,
  now: () => Date = () => new Date(),
): ServerDeps {
  const { metadata, search, downloadCounts, blobs, bus, counters, redis, uplinkCache } = storage;
  return { config, metadata, search, downloadCounts, blobs, bus, ...(counters ? { counters } : {}), redis, uplinkCache, now };
}
