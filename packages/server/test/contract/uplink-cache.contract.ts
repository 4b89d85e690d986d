import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/create-storage.js';
import type { UplinkCacheStore } from '../../src/storage/ports.js';

/** A database for one test: `open` may be called twice (two nodes sharing it). */
export interface UplinkCacheDatabase {
  open(): Promise<Pick<Storage, 'uplinkCache' | 'registry'>>;
  destroy(): Promise<void>;
}

/** Every driver of UplinkCacheStore runs this suite on a fresh database. */
export function uplinkCacheContract(driver: string, freshDatabase: () => Promise<UplinkCacheDatabase>): void {
  describe(`UplinkCacheStore contract: ${driver}`, () => {
    let database: UplinkCacheDatabase;
    let store: UplinkCacheStore;

    beforeEach(async () => {
      database = await freshDatabase();
      store = (await database.open()).uplinkCache;
    });
    afterEach(async () => {
      await database.destroy();
    });

    it('keeps a record per tenant and package, replaced by the next put', async () => {
      const { registry } = await database.open();
      await registry.tenants.create({ name: 'acme', incarnation: 'first', createdAt: '2025-01-01T00:00:00.000Z', settings: {} });
      expect(await store.get('', 'com.a.b')).toBeUndefined();
      await store.put('', 'com.a.b', { uplink: 'openupm', etag: '"abc"', fetchedAt: '2025-01-01T00:00:00.000Z' });
      await store.put('acme', 'com.a.b', { uplink: 'other', etag: null, fetchedAt: '2025-01-02T00:00:00.000Z' });
      expect(await store.get('', 'com.a.b')).toEqual({ uplink: 'openupm', etag: '"abc"', fetchedAt: '2025-01-01T00:00:00.000Z' });
      expect(await store.get('acme', 'com.a.b')).toEqual({ uplink: 'other', etag: null, fetchedAt: '2025-01-02T00:00:00.000Z' });
      await store.put('', 'com.a.b', { uplink: 'openupm', etag: '"def"', fetchedAt: '2025-01-03T00:00:00.000Z' });
      expect(await store.get('', 'com.a.b')).toEqual({ uplink: 'openupm', etag: '"def"', fetchedAt: '2025-01-03T00:00:00.000Z' });
      expect(await store.get('', 'com.a.c')).toBeUndefined();
    });

    it('is seen by another node on the same database', async () => {
      const other = (await database.open()).uplinkCache;
      await store.put('', 'com.a.b', { uplink: 'openupm', etag: '"abc"', fetchedAt: '2025-01-01T00:00:00.000Z' });
      expect(await other.get('', 'com.a.b')).toEqual({ uplink: 'openupm', etag: '"abc"', fetchedAt: '2025-01-01T00:00:00.000Z' });
    });

    it('keeps nothing for a tenant that does not exist (deleted while its request ran)', async () => {
      await store.put('gone', 'com.a.b', { uplink: 'openupm', etag: null, fetchedAt: '2025-01-01T00:00:00.000Z' });
      expect(await store.get('gone', 'com.a.b')).toBeUndefined();
    });

    it("forgets a deleted tenant's records", async () => {
      const { registry } = await database.open();
      expect(
        await registry.tenants.create({
          name: 'acme',
          incarnation: 'first',
          createdAt: '2025-01-01T00:00:00.000Z',
          settings: {},
        }),
      ).toBe(true);
      await store.put('acme', 'com.a.b', { uplink: 'openupm', etag: null, fetchedAt: '2025-01-01T00:00:00.000Z' });
      await store.put('', 'com.a.b', { uplink: 'openupm', etag: null, fetchedAt: '2025-01-01T00:00:00.000Z' });
      expect(await registry.tenants.delete('acme')).toBe(true);
      expect(await store.get('acme', 'com.a.b')).toBeUndefined();
      expect(await store.get('', 'com.a.b')).toBeDefined();
    });
  });
}
