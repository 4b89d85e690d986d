import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/create-storage.js';
import type { SigningKeyRecord, SigningKeyStore } from '../../src/storage/ports.js';

/** A database for one test: `open` may be called twice (two nodes sharing it). */
export interface SigningKeyDatabase {
  open(): Promise<Pick<Storage, 'signingKeys' | 'registry'>>;
  destroy(): Promise<void>;
}

function key(id: string, createdAt = '2025-01-01T00:00:00.000Z'): SigningKeyRecord {
  return { keyid: `SHA256:${id}`, privateKey: `pem ${id}`, publicKey: `spki ${id}`, createdAt, expiresAt: null };
}

/** Every driver of SigningKeyStore runs this suite on a fresh database. */
export function signingKeyContract(driver: string, freshDatabase: () => Promise<SigningKeyDatabase>): void {
  describe(`SigningKeyStore contract: ${driver}`, () => {
    let database: SigningKeyDatabase;
    let store: SigningKeyStore;

    beforeEach(async () => {
      database = await freshDatabase();
      store = (await database.open()).signingKeys;
    });
    afterEach(async () => {
      await database.destroy();
    });

    it('keeps one key in use per registry: the first of two nodes wins', async () => {
      const other = (await database.open()).signingKeys;
      expect(await store.list('')).toEqual([]);
      expect(await store.createIfNone('', key('a'))).toBe(true);
      expect(await other.createIfNone('', key('b'))).toBe(false);
      expect(await other.list('')).toEqual([key('a')]);
    });

    it('rotates: the old key expires and stays listed, the new one is in use', async () => {
      await store.createIfNone('', key('a'));
      await store.rotate('', key('b', '2025-02-01T00:00:00.000Z'), '2025-02-01T00:00:00.000Z');
      expect(await store.list('')).toEqual([
        { ...key('a'), expiresAt: '2025-02-01T00:00:00.000Z' },
        key('b', '2025-02-01T00:00:00.000Z'),
      ]);
      expect(await store.createIfNone('', key('c'))).toBe(false);
    });

    it('copies keys as they are, once', async () => {
      const expired = { ...key('old'), expiresAt: '2025-01-15T00:00:00.000Z' };
      expect(await store.copy('', expired)).toBe(true);
      expect(await store.copy('', key('new', '2025-01-15T00:00:00.000Z'))).toBe(true);
      expect(await store.copy('', expired)).toBe(false);
      expect(await store.copy('', key('another'))).toBe(false);
      expect((await store.list('')).map((k) => k.keyid)).toEqual(['SHA256:old', 'SHA256:new']);
    });

    it('keeps registries apart, remembers the one-time job, and forgets a deleted tenant', async () => {
      const { registry } = await database.open();
      await registry.tenants.create({ name: 'acme', incarnation: 'first', createdAt: '2025-01-01T00:00:00.000Z', settings: {} });
      await store.createIfNone('', key('global'));
      await store.createIfNone('acme', key('acme'));
      expect(await store.list('acme')).toEqual([key('acme')]);
      expect(await store.backfilled('acme')).toBe(false);
      await store.markBackfilled('acme', '2025-01-02T00:00:00.000Z');
      expect(await store.backfilled('acme')).toBe(true);
      expect(await store.backfilled('')).toBe(false);
      expect(await registry.tenants.delete('acme')).toBe(true);
      expect(await store.list('acme')).toEqual([]);
      expect(await store.backfilled('acme')).toBe(false);
      expect(await store.list('')).toEqual([key('global')]);
    });

    it('keeps nothing for a tenant that does not exist', async () => {
      expect(await store.createIfNone('gone', key('x'))).toBe(false);
      await store.markBackfilled('gone', '2025-01-02T00:00:00.000Z');
      expect(await store.list('gone')).toEqual([]);
      expect(await store.backfilled('gone')).toBe(false);
    });
  });
}
