import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PackageStore, AccountStores, StorageUsageStore, StoredPackage, UsageLimit } from '../../src/storage/ports.js';
import { QuotaExceededError } from '../../src/storage/storage-usage.js';
import { addVersion, stored, tenant } from './metadata-fixtures.js';

/** A database for one test: `open` may be called twice (two nodes sharing it). */
export interface StorageUsageDatabase {
  open(): Promise<{ usage: StorageUsageStore; registry: AccountStores; packages: PackageStore }>;
  destroy(): Promise<void>;
}

/** Every driver of StorageUsageStore runs this suite on a fresh database. */
export function storageUsageContract(driver: string, freshDatabase: () => Promise<StorageUsageDatabase>): void {
  describe(`StorageUsageStore contract: ${driver}`, () => {
    let database: StorageUsageDatabase;
    let node: Awaited<ReturnType<StorageUsageDatabase['open']>>;

    beforeEach(async () => {
      database = await freshDatabase();
      node = await database.open();
      await node.registry.tenants.create(tenant('acme'));
    });
    afterEach(async () => {
      await database.destroy();
    });

    /** Publishes `version` of `name` with `bytes` (one file), under `limit`. */
    const publish = (tenantName: string, name: string, version: string, bytes: number, limit?: UsageLimit, on = node) =>
      on.packages.package(tenantName, name).update((current) => {
        const next: StoredPackage = {
          ...addVersion(current, name, version),
          usage: { added: { [version]: { bytes, files: 1 } }, ...(limit ? { limit } : {}) },
        };
        return { next, result: undefined };
      });

    it('counts the bytes, blobs and packages of each registry as versions are published and removed', async () => {
      expect(await node.usage.usage('acme')).toEqual({ bytes: 0, files: 0, packages: 0 });
      await publish('acme', 'com.a.one', '1.0.0', 100);
      await publish('acme', 'com.a.one', '1.1.0', 50);
      await publish('acme', 'com.a.two', '1.0.0', 7);
      await publish('', 'com.a.one', '1.0.0', 1000);
      expect(await node.usage.usage('acme')).toEqual({ bytes: 157, files: 3, packages: 2 });
      expect(await node.usage.usage('')).toEqual({ bytes: 1000, files: 1, packages: 1 });
      expect(Object.fromEntries(await node.usage.all())).toEqual({
        '': { bytes: 1000, files: 1, packages: 1 },
        acme: { bytes: 157, files: 3, packages: 2 },
      });

      // A version removed (retention, unpublish of a version) takes its bytes with it.
      await node.packages.package('acme', 'com.a.one').update((current) => {
        const next = structuredClone(current!);
        delete next.document.versions['1.0.0'];
        return { next, result: undefined };
      });
      expect(await node.usage.usage('acme')).toEqual({ bytes: 57, files: 2, packages: 2 });
      // A whole package unpublished: no longer a package of the registry.
      await node.packages.package('acme', 'com.a.two').update((current) => ({
        next: { ...current!, unpublished: true, document: { ...current!.document, versions: {} } },
        result: undefined,
      }));
      expect(await node.usage.usage('acme')).toEqual({ bytes: 50, files: 1, packages: 1 });
      // A write that measures nothing (a dist-tag, an uplink's cached document) changes nothing.
      await node.packages
        .package('acme', 'com.a.one')
        .update((current) => ({ next: structuredClone(current!), result: undefined }));
      await node.packages
        .package('acme', 'com.a.cached')
        .update(() => ({ next: stored('com.a.cached', ['1.0.0']), result: undefined }));
      expect(await node.usage.usage('acme')).toEqual({ bytes: 50, files: 1, packages: 1 });
    });

    it('refuses a write past a quota in its own transaction, and writes nothing of it', async () => {
      await publish('acme', 'com.a.one', '1.0.0', 90, { bytes: 100 });
      await expect(publish('acme', 'com.a.one', '1.1.0', 11, { bytes: 100 })).rejects.toThrow(QuotaExceededError);
      await expect(publish('acme', 'com.a.one', '1.1.0', 11, { bytes: 100 })).rejects.toThrow(
        /storage quota of 100 bytes .*90 bytes .* in use and this publish adds 11/,
      );
      expect((await node.packages.package('acme', 'com.a.one').read())!.document.versions['1.1.0']).toBeUndefined();
      await publish('acme', 'com.a.one', '1.1.0', 10, { bytes: 100 });
      expect(await node.usage.usage('acme')).toEqual({ bytes: 100, files: 2, packages: 1 });

      await expect(publish('acme', 'com.a.two', '1.0.0', 0, { packages: 1 })).rejects.toThrow(/quota of 1 packages \(1 in use\)/);
      expect(await node.packages.package('acme', 'com.a.two').read()).toBeUndefined();
      // Quotas are per registry: the global one is not acme.
      await publish('', 'com.a.two', '1.0.0', 500, { bytes: 1000, packages: 1 });
      // A registry over a lowered quota still takes removals.
      await node.packages.package('acme', 'com.a.one').update((current) => {
        const next = structuredClone(current!);
        delete next.document.versions['1.0.0'];
        return { next: { ...next, usage: { added: {}, limit: { bytes: 5 } } }, result: undefined };
      });
      expect(await node.usage.usage('acme')).toEqual({ bytes: 10, files: 1, packages: 1 });
    });

    it('lets only what fits through when publishes of several packages race on two nodes', async () => {
      const other = await database.open();
      const limit = { bytes: 1000 };
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => publish('acme', `com.a.p${i}`, '1.0.0', 300, limit, i % 2 === 0 ? node : other)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(QuotaExceededError);
      expect(await other.usage.usage('acme')).toEqual({ bytes: 900, files: 3, packages: 3 });
    });

    it('counts packages written together as it counts their updates, quotas included', async () => {
      await publish('acme', 'com.a.old', '1.0.0', 40);
      await publish('acme', 'com.a.old', '1.1.0', 60);
      const measured = (name: string, versions: Record<string, number>): StoredPackage => ({
        ...stored(name, Object.keys(versions)),
        usage: { added: Object.fromEntries(Object.entries(versions).map(([v, bytes]) => [v, { bytes, files: 1 }])) },
      });
      await node.packages.writePackages('acme', [
        { name: 'com.a.one', next: measured('com.a.one', { '1.0.0': 100, '1.1.0': 50 }) },
        // A write that drops a version drops its bytes; one that measures nothing changes nothing.
        { name: 'com.a.old', next: measured('com.a.old', { '1.1.0': 60 }) },
        { name: 'com.a.cached', next: stored('com.a.cached', ['1.0.0']) },
      ]);
      expect(await node.usage.usage('acme')).toEqual({ bytes: 210, files: 3, packages: 2 });
      const limited = (name: string, bytes: number): StoredPackage => ({
        ...measured(name, { '1.0.0': bytes }),
        usage: { added: { '1.0.0': { bytes, files: 1 } }, limit: { bytes: 300 } },
      });
      await expect(
        node.packages.writePackages('acme', [
          { name: 'com.a.two', next: limited('com.a.two', 50) },
          { name: 'com.a.three', next: limited('com.a.three', 50) },
        ]),
      ).rejects.toThrow(QuotaExceededError);
      expect(await node.packages.package('acme', 'com.a.two').read()).toBeUndefined();
      expect(await node.usage.usage('acme')).toEqual({ bytes: 210, files: 3, packages: 2 });
      await node.packages.writePackages('acme', [{ name: 'com.a.two', next: limited('com.a.two', 90) }]);
      expect(await node.usage.usage('acme')).toEqual({ bytes: 300, files: 4, packages: 3 });
    });

    it("forgets a deleted tenant's usage", async () => {
      await publish('acme', 'com.a.one', '1.0.0', 100);
      await node.registry.tenants.delete('acme');
      await node.registry.tenants.create(tenant('acme', {}, 'acme-second'));
      expect(await node.usage.usage('acme')).toEqual({ bytes: 0, files: 0, packages: 0 });
    });

    it('keeps the last collection, seen by every node', async () => {
      expect(await node.usage.lastCollect()).toBeUndefined();
      const result = { at: '2026-01-02T03:04:05.000Z', orphans: 3, temporaryFiles: 1, incompleteUploads: 2 };
      await node.usage.recordCollect(result);
      await node.usage.recordCollect({ ...result, orphans: 4 });
      expect(await (await database.open()).usage.lastCollect()).toEqual({ ...result, orphans: 4 });
    });
  });
}
