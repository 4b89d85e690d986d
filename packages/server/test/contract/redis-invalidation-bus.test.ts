import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRedisPrefix, startOwnRedisServer, testRedisUrl, type OwnRedisServer } from '@pkg/testkit';
import type { StorageLog } from '../../src/storage/storage-log.js';
import { RedisConnection } from '../../src/storage/drivers/redis/redis-connection.js';
import { RedisInvalidationBus } from '../../src/storage/drivers/redis/redis-invalidation-bus.js';
import { parseRedisUrl } from '../../src/storage/drivers/redis/redis-location.js';
import type { TenantId } from '../../src/storage/ports.js';
import { invalidationBusContract, waitFor } from './invalidation-bus.contract.js';

/** A bus on its own connection, closing both (in the server, storage owns the connection). */
async function openBus(url: string, log?: StorageLog): Promise<RedisInvalidationBus> {
  const redis = new RedisConnection(parseRedisUrl(url), log);
  const bus = new RedisInvalidationBus(redis);
  await bus.waitUntilConnected(5000);
  const close = bus.close.bind(bus);
  return Object.assign(bus, {
    async close() {
      await close();
      await redis.close();
    },
  });
}

describe.skipIf(!testRedisUrl)('Redis invalidation bus', () => {
  invalidationBusContract(
    'Redis pub/sub',
    async () => {
      const redis = freshRedisPrefix();
      return { open: () => openBus(redis.url), destroy: () => redis.drop() };
    },
    { shared: true },
  );

  describe('when Redis goes down and comes back', () => {
    let server: OwnRedisServer;
    beforeAll(async () => {
      server = await startOwnRedisServer();
    });
    afterAll(async () => {
      await server.close();
    });

    it('keeps publishing, says so once, and resumes by itself with a cache reset', async () => {
      const logged: string[] = [];
      const log: StorageLog = {
        info: (_details, message) => logged.push(`info: ${message}`),
        warn: (_details, message) => logged.push(`warn: ${message}`),
      };
      const a = await openBus(server.url, log);
      const b = await openBus(server.url);
      const heardByB: [TenantId, string][] = [];
      b.subscribe((tenant, name) => heardByB.push([tenant, name]));
      let resetsOfB = 0;
      b.subscribeReset(() => resetsOfB++);
      try {
        expect(a.connected && b.connected).toBe(true);

        await server.stop();
        await waitFor(() => !a.connected && !b.connected);
        expect(a.connected).toBe(false);
        expect(b.connected).toBe(false);
        expect(resetsOfB).toBe(1);
        // Writes go on: publishing still resolves and still reaches local subscribers.
        const heardByA: string[] = [];
        a.subscribe((_tenant, name) => heardByA.push(name));
        for (let i = 0; i < 5; i++) await expect(a.publish('', `com.acme.down${i}`)).resolves.toBeUndefined();
        expect(heardByA).toHaveLength(5);
        // Let ioredis retry a few times: the log must still say it only once.
        await new Promise((resolve) => setTimeout(resolve, 600));
        expect(logged.filter((line) => line.startsWith('warn:'))).toHaveLength(1);
        expect(logged[0]).toMatch(/Redis is unreachable/);

        await server.start();
        await waitFor(() => a.connected && b.connected, 10_000);
        expect(a.connected && b.connected).toBe(true);
        expect(resetsOfB).toBe(2);
        await waitFor(() => logged.some((line) => line.startsWith('info:')));
        expect(logged.filter((line) => line.startsWith('info:'))).toEqual(['info: Redis is reachable again']);

        await a.publish('', 'com.acme.after');
        await waitFor(() => heardByB.length > 0);
        expect(heardByB).toEqual([['', 'com.acme.after']]);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});

describe('redis:// URLs', () => {
  it('reads the prefix and leaves the rest to ioredis', () => {
    expect(parseRedisUrl('redis://:secret@127.0.0.1:6380/2?prefix=reg1:')).toEqual({
      url: 'redis://:secret@127.0.0.1:6380/2',
      prefix: 'reg1:',
    });
    expect(parseRedisUrl('rediss://cache.internal').prefix).toBe('pkg-registry:');
  });

  it.each(['http://127.0.0.1:6379', 'not a url', 'redis://h?prefix=a b'])('refuses %s', (url) => {
    expect(() => parseRedisUrl(url)).toThrow(/setting 'redis'/);
  });
});
