import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/create-storage.js';
import type { AdvisoryRecord, AdvisoryStore } from '../../src/storage/ports.js';

/** A database for one test: `open` may be called twice (two nodes sharing it). */
export interface AdvisoryDatabase {
  open(): Promise<Pick<Storage, 'advisories' | 'registry'>>;
  destroy(): Promise<void>;
}

function advisory(name: string, id: string, publishedAt = '2025-01-01T00:00:00.000Z'): AdvisoryRecord {
  return {
    name,
    id,
    severity: 'high',
    vulnerableVersions: '<1.0.2',
    patchedVersions: '>=1.0.2',
    title: `Flaw ${id}`,
    description: 'A crafted file runs code.',
    url: null,
    publishedBy: 'owner',
    publishedAt,
    updatedAt: publishedAt,
    withdrawnAt: null,
  };
}

/** Every driver of AdvisoryStore runs this suite on a fresh database. */
export function advisoryStoreContract(driver: string, freshDatabase: () => Promise<AdvisoryDatabase>): void {
  describe(`AdvisoryStore contract: ${driver}`, () => {
    let database: AdvisoryDatabase;
    let store: AdvisoryStore;

    beforeEach(async () => {
      database = await freshDatabase();
      store = (await database.open()).advisories;
    });
    afterEach(async () => {
      await database.destroy();
    });

    it("lists a package's advisories oldest first, ties by id, and another node sees them", async () => {
      const other = (await database.open()).advisories;
      expect(await store.list('', 'com.acme.tool')).toEqual([]);
      await store.put('', advisory('com.acme.tool', 'B', '2025-02-01T00:00:00.000Z'));
      await store.put('', advisory('com.acme.tool', 'Z', '2025-01-01T00:00:00.000Z'));
      await store.put('', advisory('com.acme.tool', 'A', '2025-02-01T00:00:00.000Z'));
      await store.put('', advisory('com.acme.other', 'C'));
      expect((await other.list('', 'com.acme.tool')).map((a) => a.id)).toEqual(['Z', 'A', 'B']);
      expect(await other.list('', 'com.acme.other')).toEqual([advisory('com.acme.other', 'C')]);
    });

    it('replaces the advisory of a (name, id), and keeps one of the same id of another package apart', async () => {
      await store.put('', advisory('com.acme.tool', 'CVE-1'));
      await store.put('', advisory('com.acme.other', 'CVE-1'));
      const changed = { ...advisory('com.acme.tool', 'CVE-1'), severity: 'critical' as const, title: 'Worse' };
      await store.put('', changed);
      expect(await store.list('', 'com.acme.tool')).toEqual([changed]);
      expect(await store.list('', 'com.acme.other')).toEqual([advisory('com.acme.other', 'CVE-1')]);
    });

    it('answers the advisories in force of the names asked, by name; a withdrawn one is listed, not in force', async () => {
      await store.put('', advisory('com.acme.tool', 'A'));
      await store.put('', advisory('com.acme.tool', 'B', '2025-03-01T00:00:00.000Z'));
      await store.put('', advisory('com.acme.other', 'C'));
      await store.put('', advisory('com.acme.unasked', 'D'));
      const withdrawn = {
        ...advisory('com.acme.tool', 'B', '2025-03-01T00:00:00.000Z'),
        withdrawnAt: '2025-04-01T00:00:00.000Z',
      };
      await store.put('', withdrawn);
      const found = await store.inForce('', ['com.acme.tool', 'com.acme.other', 'com.acme.none']);
      expect([...found.keys()].sort()).toEqual(['com.acme.other', 'com.acme.tool']);
      expect(found.get('com.acme.tool')).toEqual([advisory('com.acme.tool', 'A')]);
      expect(found.get('com.acme.other')).toEqual([advisory('com.acme.other', 'C')]);
      expect((await store.list('', 'com.acme.tool')).at(-1)).toEqual(withdrawn);
      expect(await store.inForce('', [])).toEqual(new Map());
    });

    it('keeps registries apart and forgets a deleted tenant', async () => {
      const { registry } = await database.open();
      await registry.tenants.create({ name: 'acme', incarnation: 'first', createdAt: '2025-01-01T00:00:00.000Z', settings: {} });
      await store.put('', advisory('com.acme.tool', 'GLOBAL'));
      await store.put('acme', advisory('com.acme.tool', 'TENANT'));
      expect((await store.list('acme', 'com.acme.tool')).map((a) => a.id)).toEqual(['TENANT']);
      expect([...(await store.inForce('acme', ['com.acme.tool'])).values()].flat().map((a) => a.id)).toEqual(['TENANT']);
      expect(await registry.tenants.delete('acme')).toBe(true);
      expect(await store.list('acme', 'com.acme.tool')).toEqual([]);
      await registry.tenants.create({ name: 'acme', incarnation: 'second', createdAt: '2025-01-02T00:00:00.000Z', settings: {} });
      expect(await store.list('acme', 'com.acme.tool')).toEqual([]);
      expect((await store.list('', 'com.acme.tool')).map((a) => a.id)).toEqual(['GLOBAL']);
    });

    it("lists every advisory of a registry, withdrawn ones too, oldest first, and no other registry's", async () => {
      const { registry } = await database.open();
      await registry.tenants.create({ name: 'acme', incarnation: 'first', createdAt: '2025-01-01T00:00:00.000Z', settings: {} });
      const withdrawn = {
        ...advisory('com.acme.other', 'W', '2025-03-01T00:00:00.000Z'),
        updatedAt: '2025-03-02T00:00:00.000Z',
        withdrawnAt: '2025-03-02T00:00:00.000Z',
      };
      await store.put('', withdrawn);
      await store.put('', advisory('com.acme.tool', 'B', '2025-02-01T00:00:00.000Z'));
      await store.put('', advisory('com.acme.tool', 'A', '2025-01-01T00:00:00.000Z'));
      await store.put('acme', advisory('com.acme.tool', 'TENANT'));
      expect(await store.listAll('')).toEqual([
        advisory('com.acme.tool', 'A', '2025-01-01T00:00:00.000Z'),
        advisory('com.acme.tool', 'B', '2025-02-01T00:00:00.000Z'),
        withdrawn,
      ]);
      expect((await store.listAll('acme')).map((a) => a.id)).toEqual(['TENANT']);
      expect(await store.listAll('gone')).toEqual([]);
    });

    it('keeps nothing for a tenant that does not exist', async () => {
      await store.put('gone', advisory('com.acme.tool', 'X'));
      expect(await store.list('gone', 'com.acme.tool')).toEqual([]);
      expect(await store.inForce('gone', ['com.acme.tool'])).toEqual(new Map());
    });

    it('keeps every field as written, text of any kind included', async () => {
      const odd = {
        ...advisory('com.acme.tool', 'GHSA-xxxx-yyyy-zzzz'),
        title: 'Ünïcode "quotes" \'and\' <tags> 🎮',
        description: 'line one\nline two\u0000end',
        url: 'https://example.com/a?b=c#d',
        severity: 'info' as const,
      };
      await store.put('', odd);
      expect(await store.list('', 'com.acme.tool')).toEqual([odd]);
    });
  });
}
