import type { Config } from './config/config.js';
import type { CounterStore } from './storage/counter-store.js';
import type { BlobStore, DownloadCountStore, InvalidationBus, MetadataStore, SearchIndex } from './storage/ports.js';

/** Everything the server does IO through, built by main.ts (or by a test) and passed in. */
export interface ServerDeps {
  config: Config;
  metadata: MetadataStore;
  /** Read side of the search index that `metadata` keeps in its write transactions. */
  search: SearchIndex;
  downloadCounts: DownloadCountStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** Rate-limit and login-throttle counters; in-process ones when not given. */
  counters?: CounterStore;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => Date;
}

/** The deps of a server on `storage` (what main and the test kit both build). */
export function serverDeps(
  config: Config,
  storage: Pick<ServerDeps, 'metadata' | 'search' | 'downloadCounts' | 'blobs' | 'bus' | 'counters'>,
  now: () => Date = () => new Date(),
): ServerDeps {
  const { metadata, search, downloadCounts, blobs, bus, counters } = storage;
  return { config, metadata, search, downloadCounts, blobs, bus, ...(counters ? { counters } : {}), now };
}
