import type { Config } from './config/config.js';
import type { RedisConnection } from './storage/drivers/redis/redis-connection.js';
import type { BlobStore, InvalidationBus, MetadataStore } from './storage/ports.js';

/** Everything the server does IO through, built by main.ts (or by a test) and passed in. */
export interface ServerDeps {
  config: Config;
  metadata: MetadataStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** The shared Redis connection, when one is configured (rate limits, readiness). */
  redis?: RedisConnection | undefined;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => Date;
}
