import { ConfigError, type Config } from '../config/config.js';
import { FsBlobStore } from './drivers/fs/fs-blob-store.js';
import { SqliteMetadataStore } from './drivers/sqlite/sqlite-metadata-store.js';
import { LocalInvalidationBus } from './memory-invalidation-bus.js';
import type { BlobStore, InvalidationBus, MetadataStore } from './ports.js';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';

export interface Storage {
  metadata: MetadataStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** Rate-limit and login-throttle counters. */
  counters: CounterStore;
  close(): Promise<void>;
}

/** Picks the drivers the configuration names; the only place that knows them all. */
export async function createStorage(config: Config): Promise<Storage> {
  let metadata: MetadataStore;
  if (config.database.startsWith('sqlite:')) {
    metadata = new SqliteMetadataStore(config.database.slice('sqlite:'.length));
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
