import { ConfigError, type Config } from '../config/config.js';
import { silentLog, type StorageLog } from './storage-log.js';
import { FsBlobStore } from './drivers/fs/fs-blob-store.js';
import { parsePostgresUrl } from './drivers/postgres/pg-connection.js';
import { PostgresInvalidationBus } from './drivers/postgres/postgres-invalidation-bus.js';
import { PostgresMetadataStore } from './drivers/postgres/postgres-metadata-store.js';
import { createRedisCounterStore } from './drivers/redis/redis-counter-store.js';
import { RedisConnection } from './drivers/redis/redis-connection.js';
import { RedisInvalidationBus } from './drivers/redis/redis-invalidation-bus.js';
import { parseRedisUrl } from './drivers/redis/redis-location.js';
import { S3BlobStore } from './drivers/s3/s3-blob-store.js';
import { parseS3Url } from './drivers/s3/s3-location.js';
import { PostgresDownloadCounts } from './drivers/postgres/postgres-download-counts.js';
import { PostgresSearchIndex } from './drivers/postgres/postgres-search-index.js';
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
  /** The shared Redis connection, when one is configured (rate limits use it too). */
  redis: RedisConnection | undefined;
  /** True when other processes may share this storage (PostgreSQL): start-up must not assume it is alone. */
  shared: boolean;
  /** Rate-limit and login-throttle counters. */
  counters: CounterStore;
  close(): Promise<void>;
}

export interface CreateStorageOptions {
  log?: StorageLog;
  /** How long start-up waits for Redis before going on without it (it keeps reconnecting). */
  redisWaitMs?: number;
  /** Clock of the scores computed when a package is written (tests move it). */
  now?: () => Date;
}

/** Picks the drivers the configuration names; the only place that knows them all. */
export async function createStorage(config: Config, options: CreateStorageOptions = {}): Promise<Storage> {
  const log = options.log ?? silentLog;
  const opened: { close(): Promise<void> }[] = [];
  try {
    let metadata: MetadataStore;
    let search: SearchIndex;
    let downloadCounts: DownloadCountStore;
    let postgres: PostgresMetadataStore | undefined;
    const clock = options.now ? { now: options.now } : {};
    if (config.database.startsWith('sqlite:')) {
      const searchIndex = new SqliteSearchIndex({ cacheHits: config.searchCache, ...clock });
      const counts = new SqliteDownloadCounts();
      const store = new SqliteMetadataStore(config.database.slice('sqlite:'.length), [searchIndex.writeHook, counts.writeHook]);
      searchIndex.attach(store.db);
      counts.attach(store.db);
      metadata = store;
      search = searchIndex;
      downloadCounts = counts;
    } else if (/^postgres(ql)?:\/\//.test(config.database)) {
      const searchIndex = new PostgresSearchIndex(clock);
      const counts = new PostgresDownloadCounts();
      postgres = new PostgresMetadataStore(parsePostgresUrl(config.database), [searchIndex.writeHook, counts.writeHook]);
      searchIndex.attach(postgres.pool);
      counts.attach(postgres.pool);
      metadata = postgres;
      search = searchIndex;
      downloadCounts = counts;
    } else {
      throw new ConfigError(`database '${redactUrlCredentials(config.database)}' is not supported by this build`);
    }
    opened.push(metadata);

    let blobs: BlobStore;
    if (config.storage.startsWith('s3://')) {
      blobs = new S3BlobStore(parseS3Url(config.storage));
    } else {
      const fsBlobs = new FsBlobStore(config.storage);
      await fsBlobs.init();
      blobs = fsBlobs;
    }
    opened.push(blobs);

    let redis: RedisConnection | undefined;
    let bus: InvalidationBus;
    if (config.redis !== undefined) {
      redis = new RedisConnection(parseRedisUrl(config.redis), log);
      opened.push(redis);
      const redisBus = new RedisInvalidationBus(redis);
      bus = redisBus;
      // Start-up does not depend on Redis: without it the node serves, counting limits itself.
      await redisBus.waitUntilConnected(options.redisWaitMs ?? 3000);
    } else if (postgres !== undefined) {
      const pgBus = new PostgresInvalidationBus(postgres.location, postgres.pool, log);
      bus = pgBus;
      opened.push(pgBus);
    } else {
      bus = new LocalInvalidationBus();
    }

    const counters = redis ? createRedisCounterStore(redis) : createMemoryCounterStore();

    await metadata.migrate();
    if (bus instanceof PostgresInvalidationBus) await bus.start();
    return {
      metadata,
      search,
      downloadCounts,
      blobs,
      bus,
      counters,
      redis,
      shared: postgres !== undefined,
      async close() {
        await counters.close();
        await bus.close();
        await redis?.close();
        await blobs.close();
        await metadata.close();
      },
    };
  } catch (err) {
    for (const resource of opened.reverse()) await resource.close().catch(() => undefined);
    throw err;
  }
}

/** Removes tarballs no package references (a crash between blob write and metadata commit). */
export async function collectOrphanBlobs(storage: Storage, olderThanMs: number, now = new Date()): Promise<number> {
  if (storage.blobs instanceof FsBlobStore) await storage.blobs.cleanTemporary(olderThanMs, now);
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
