import { ConfigError, type Config } from '../config/config.js';
import { FsBlobStore } from './drivers/fs/fs-blob-store.js';
import { SqliteDownloadCounts } from './drivers/sqlite/sqlite-download-counts.js';
import { SqliteMetadataStore } from './drivers/sqlite/sqlite-metadata-store.js';
import { SqliteSearchIndex } from './drivers/sqlite/sqlite-search-index.js';
import { LocalInvalidationBus } from './memory-invalidation-bus.js';
import type { BlobStore, DownloadCountStore, InvalidationBus, MetadataStore, SearchIndex } from './ports.js';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';

export interface Storage {
  metadata: MetadataStore;
  /** Written by `metadata` in each package's write transaction; read here. */
  search: SearchIndex;
  downloadCounts: DownloadCountStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** Rate-limit and login-throttle counters. */
  counters: CounterStore;
  close(): Promise<void>;
}

export interface StorageOptions {
  /** Clock of the scores computed when a package is written (tests move it). */
  now?: () => Date;
}

/** Picks the drivers the configuration names; the only place that knows them all. */
export async function createStorage(config: Config, options: StorageOptions = {}): Promise<Storage> {
  let metadata: MetadataStore;
  let search: SearchIndex;
  let downloadCounts: DownloadCountStore;
  if (config.database.startsWith('sqlite:')) {
    const searchIndex = new SqliteSearchIndex({
      cacheHits: config.searchCache,
      ...(options.now ? { now: options.now } : {}),
    });
    const counts = new SqliteDownloadCounts();
    const store = new SqliteMetadataStore(config.database.slice('sqlite:'.length), [searchIndex.writeHook, counts.writeHook]);
    searchIndex.attach(store.db);
    counts.attach(store.db);
    metadata = store;
    search = searchIndex;
    downloadCounts = counts;
  } else {
    throw new ConfigError(`database '${redactUrlCredentials(config.database)}' is not supported by this build`);
  }
  let blobs: BlobStore;
  if (config.storage.startsWith('s3://')) {
    throw new ConfigError('s3:// storage is not supported by this build');
  } else {
    const fsBlobs = new FsBlobStore(config.storage);
    await fsBlobs.init();
    blobs = fsBlobs;
  }
  const bus: InvalidationBus = new LocalInvalidationBus();
  const counters = createMemoryCounterStore();
  await metadata.migrate();
  return {
    metadata,
    search,
    downloadCounts,
    blobs,
    bus,
    counters,
    async close() {
      await counters.close();
      await bus.close();
      await blobs.close();
      await metadata.close();
    },
  };
}

/** Removes tarballs no package references (a crash between blob write and metadata commit). */
export async function collectOrphanBlobs(storage: Storage, olderThanMs: number, now = new Date()): Promise<number> {
  if (storage.blobs instanceof FsBlobStore) await storage.blobs.cleanTemporary();
  const referenced = await storage.metadata.referencedBlobKeys();
  let removed = 0;
  for await (const blob of storage.blobs.list()) {
    if (referenced.has(blob.key)) continue;
    if (now.getTime() - blob.modified.getTime() < olderThanMs) continue;
    await storage.blobs.delete(blob.key);
    removed++;
  }
  return removed;
}

export function redactUrlCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
