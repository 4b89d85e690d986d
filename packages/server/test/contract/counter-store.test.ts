import { describe } from 'vitest';
import { freshRedisPrefix, testRedisUrl } from '@pkg/testkit';
import { MemoryCounterStore } from '../../src/storage/drivers/memory/memory-counter-store.js';
import { RedisConnection } from '../../src/storage/drivers/redis/redis-connection.js';
import { createRedisCounterStore } from '../../src/storage/drivers/redis/redis-counter-store.js';
import { parseRedisUrl } from '../../src/storage/drivers/redis/redis-location.js';
import type { CounterStore } from '../../src/storage/counter-store.js';
import { counterStoreContract } from './counter-store.contract.js';

/** A Redis counter store on its own connection, closing both (in the server, storage owns it). */
async function openRedisStore(url: string): Promise<CounterStore> {
  const redis = new RedisConnection(parseRedisUrl(url));
  // Until the connection is ready the store counts in this process only (its insurance limiter).
  if (!(await redis.waitUntilReady(5000))) throw new Error(`Redis at ${url} is not ready`);
  const store = createRedisCounterStore(redis);
  const close = store.close.bind(store);
  return Object.assign(store, {
    async close() {
      await close();
      await redis.close();
    },
  });
}

counterStoreContract('memory', async () => ({ open: async () => new MemoryCounterStore(), destroy: async () => undefined }), {
  shared: false,
});

describe.skipIf(!testRedisUrl)('Redis', () => {
  counterStoreContract(
    'Redis',
    async () => {
      const redis = freshRedisPrefix();
      return { open: () => openRedisStore(redis.url), destroy: () => redis.drop() };
    },
    { shared: true },
  );
});
