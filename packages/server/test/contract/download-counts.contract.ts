import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/create-storage.js';
import type { DownloadCountStore, DownloadIncrement } from '../../src/storage/ports.js';

/**
 * A store for one test: `open` may be called twice (two nodes adding to the same counts). Its
 * database holds the global registry and tenant `acme`, and no other tenant.
 */
export interface DownloadCountsDatabase {
  open(): Promise<Pick<Storage, 'downloadCounts'>>;
  destroy(): Promise<void>;
}

function inc(name: string, version: string, day: string, count: number, tenant = ''): DownloadIncrement {
  return { tenant, name, version, day, count };
}

/** Every download-count driver runs this suite on a fresh database. */
export function downloadCountsContract(driver: string, freshDatabase: () => Promise<DownloadCountsDatabase>): void {
  describe(`DownloadCountStore contract: ${driver}`, () => {
    let database: DownloadCountsDatabase;
    let store: DownloadCountStore;

    beforeEach(async () => {
      database = await freshDatabase();
      store = (await database.open()).downloadCounts;
    });
    afterEach(async () => {
      await database.destroy();
    });

    it('drops the counts of a tenant that does not exist (deleted while they were buffered)', async () => {
      await store.add([inc('com.a.b', '1.0.0', '2025-01-01', 2, 'gone'), inc('com.a.b', '1.0.0', '2025-01-01', 3, 'acme')]);
      expect(await store.list('gone')).toEqual([]);
      expect(await store.list('acme')).toEqual([inc('com.a.b', '1.0.0', '2025-01-01', 3, 'acme')]);
    });

    it('adds increments, summing repeated keys, and reports them per day', async () => {
      await store.add([inc('com.a.b', '1.0.0', '2025-01-01', 2), inc('com.a.b', '1.0.0', '2025-01-01', 3)]);
      await store.add([inc('com.a.b', '1.1.0', '2025-01-01', 1), inc('com.a.b', '1.1.0', '2025-01-03', 4)]);
      await store.add([inc('com.a.b', '1.0.0', '2025-01-01', 9, 'acme'), inc('com.a.c', '1.0.0', '2025-01-01', 9)]);
      await store.add([]);
      expect(await store.perDay('', 'com.a.b', '2025-01-01', '2025-01-31')).toEqual([
        { day: '2025-01-01', downloads: 6 },
        { day: '2025-01-03', downloads: 4 },
      ]);
      expect(await store.perDay('', 'com.a.b', '2025-01-02', '2025-01-02')).toEqual([]);
      expect(await store.perDay('acme', 'com.a.b', '2025-01-01', '2025-01-01')).toEqual([{ day: '2025-01-01', downloads: 9 }]);
    });

    it('lists every count of a tenant and replaces counts with exact values', async () => {
      await store.add([inc('com.a.b', '1.0.0', '2025-01-01', 2), inc('com.a.a', '1.0.0', '2025-01-02', 1)]);
      await store.add([inc('com.a.b', '1.0.0', '2025-01-01', 1, 'acme')]);
      expect(await store.list('')).toEqual([inc('com.a.a', '1.0.0', '2025-01-02', 1), inc('com.a.b', '1.0.0', '2025-01-01', 2)]);
      await store.replace([inc('com.a.b', '1.0.0', '2025-01-01', 10), inc('com.a.z', '2.0.0', '2025-01-05', 4)]);
      await store.replace([inc('com.a.b', '1.0.0', '2025-01-01', 10)]);
      expect(await store.list('')).toEqual([
        inc('com.a.a', '1.0.0', '2025-01-02', 1),
        inc('com.a.b', '1.0.0', '2025-01-01', 10),
        inc('com.a.z', '2.0.0', '2025-01-05', 4),
      ]);
      expect(await store.list('acme')).toEqual([inc('com.a.b', '1.0.0', '2025-01-01', 1, 'acme')]);
    });

    it('loses no increment when two nodes add to the same counts at once', async () => {
      const second = (await database.open()).downloadCounts;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? second : store).add([inc('com.a.b', '1.0.0', '2025-01-01', 1), inc('com.a.b', '1.1.0', '2025-01-01', 2)]),
        ),
      );
      expect(await store.perDay('', 'com.a.b', '2025-01-01', '2025-01-01')).toEqual([{ day: '2025-01-01', downloads: 60 }]);
    });
  });
}
