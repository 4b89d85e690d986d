import { beforeEach, describe, expect, it } from 'vitest';
import type { MetadataStore, TenantStore, TokenStore } from '../../src/storage/ports.js';
import { eachTestDatabase, type MetadataStoreDatabase } from './metadata-database.js';
import { tenant, token } from './metadata-fixtures.js';

/**
 * The definition of "the token store works" (TokenStore), with the database's migrations: every
 * driver runs it, each test on a fresh, empty database.
 */
export function tokenStoreContract(driver: string, freshDatabase: () => Promise<MetadataStoreDatabase>): void {
  describe(`TokenStore contract: ${driver}`, () => {
    const stores = eachTestDatabase(freshDatabase);
    let store: MetadataStore;
    let tenants: TenantStore;
    let tokens: TokenStore;
    beforeEach(() => {
      store = stores.store;
      ({ tenants, tokens } = store.accounts);
    });

    describe('tokens', () => {
      // Writes to a tenant need the tenant (a deleted one takes none).
      beforeEach(async () => {
        for (const name of ['acme', 'other']) await tenants.create(tenant(name));
      });

      it('round-trips a token, with and without expiry', async () => {
        const forever = token('aa', 'ada');
        const expiring = { ...token('bb', 'ada'), expiresAt: '2030-01-01T00:00:00.000Z', readonly: true };
        await tokens.create('', forever);
        await tokens.create('', expiring);
        expect(await tokens.get('', 'aa')).toEqual(forever);
        expect(await tokens.get('', 'bb')).toEqual(expiring);
        expect(await tokens.get('acme', 'aa')).toBeUndefined();
        expect(await tokens.get('', 'cc')).toBeUndefined();
      });

      it('refuses a second token of the same hash', async () => {
        await tokens.create('', token('aa', 'ada'));
        await expect(tokens.create('', token('aa', 'eve'))).rejects.toThrow();
        expect((await tokens.get('', 'aa'))?.user).toBe('ada');
      });

      it('deletes one token, answering whether it existed', async () => {
        await tokens.create('', token('aa', 'ada'));
        await tokens.create('', token('bb', 'ada'));
        expect(await tokens.delete('', 'aa')).toBe(true);
        expect(await tokens.delete('', 'aa')).toBe(false);
        expect(await tokens.get('', 'aa')).toBeUndefined();
        expect(await tokens.get('', 'bb')).toEqual(token('bb', 'ada'));
      });

      it('lists the tokens of one tenant, ordered by hash', async () => {
        expect(await tokens.list('')).toEqual([]);
        await tokens.create('', token('cc', 'eve'));
        await tokens.create('', { ...token('aa', 'ada'), expiresAt: '2030-01-01T00:00:00.000Z', readonly: true });
        await tokens.create('', token('bb', 'ada'));
        await tokens.create('acme', token('dd', 'ada'));
        expect(await tokens.list('')).toEqual([
          { ...token('aa', 'ada'), expiresAt: '2030-01-01T00:00:00.000Z', readonly: true },
          token('bb', 'ada'),
          token('cc', 'eve'),
        ]);
        expect(await tokens.list('acme')).toEqual([token('dd', 'ada')]);
      });

      it('round-trips the limits of a scoped token', async () => {
        const scoped = {
          ...token('sc', 'ada'),
          prefix: 'abcdef',
          scope: {
            name: 'CI for the studio',
            cidrWhitelist: ['10.0.0.0/8', '192.168.1.7/32'],
            packages: ['com.studio.*', 'com.other.tool'],
            publishOnly: true,
            automation: true,
          },
        };
        await tokens.create('', scoped);
        expect(await tokens.get('', 'sc')).toEqual(scoped);
        expect(await tokens.listOfUser('', 'ada')).toEqual([scoped]);
      });

      it('records the last use of tokens in batches, and skips tokens that are gone', async () => {
        await tokens.create('', token('aa', 'ada'));
        await tokens.create('', token('bb', 'ada'));
        await tokens.create('acme', token('aa', 'ada'));
        const version = store.accounts.credentialsVersion?.();
        await tokens.recordUses('', [
          { hash: 'aa', at: '2026-01-02T03:04:05.000Z', address: '10.1.2.3' },
          { hash: 'gone', at: '2026-01-02T03:04:05.000Z', address: '10.1.2.4' },
        ]);
        expect(await tokens.get('', 'aa')).toEqual({
          ...token('aa', 'ada'),
          lastUsedAt: '2026-01-02T03:04:05.000Z',
          lastAddress: '10.1.2.3',
        });
        expect(await tokens.get('', 'bb')).toEqual(token('bb', 'ada'));
        expect(await tokens.get('acme', 'aa')).toEqual(token('aa', 'ada'));
        expect(await tokens.get('', 'gone')).toBeUndefined();
        await tokens.recordUses('', [{ hash: 'aa', at: '2026-01-03T00:00:00.000Z', address: '::1' }]);
        expect(await tokens.get('', 'aa')).toMatchObject({ lastUsedAt: '2026-01-03T00:00:00.000Z', lastAddress: '::1' });
        await tokens.recordUses('', []);
        // A use is no credentials change: cached authentications stay valid.
        expect(store.accounts.credentialsVersion?.()).toBe(version);
      });

      it('deletes every token of one user in one tenant', async () => {
        for (const hash of ['a1', 'a2', 'a3']) await tokens.create('', token(hash, 'ada'));
        await tokens.create('', token('e1', 'eve'));
        await tokens.create('acme', token('a4', 'ada'));
        expect(await tokens.deleteOfUser('', 'ada')).toBe(3);
        expect(await tokens.deleteOfUser('', 'ada')).toBe(0);
        expect(await tokens.get('', 'a1')).toBeUndefined();
        expect(await tokens.get('', 'e1')).toEqual(token('e1', 'eve'));
        expect(await tokens.get('acme', 'a4')).toEqual(token('a4', 'ada'));
      });
    });

    describe('token listing', () => {
      beforeEach(async () => {
        await tenants.create(tenant('acme'));
      });

      it("lists one user's tokens newest first, with their prefixes", async () => {
        const base = { user: 'alice', expiresAt: null, readonly: false };
        await tokens.create('', { ...base, hash: 'a1', createdAt: '2025-01-01T00:00:00.000Z', prefix: 'AAAAAA' });
        await tokens.create('', { ...base, hash: 'a2', createdAt: '2025-01-02T00:00:00.000Z' });
        await tokens.create('', { ...base, user: 'bob', hash: 'b1', createdAt: '2025-01-03T00:00:00.000Z' });
        await tokens.create('acme', { ...base, hash: 'c1', createdAt: '2025-01-03T00:00:00.000Z' });
        const list = await tokens.listOfUser('', 'alice');
        expect(list).toEqual([
          { ...base, hash: 'a2', createdAt: '2025-01-02T00:00:00.000Z' },
          { ...base, hash: 'a1', createdAt: '2025-01-01T00:00:00.000Z', prefix: 'AAAAAA' },
        ]);
        expect(await tokens.get('', 'a1')).toMatchObject({ prefix: 'AAAAAA' });
      });
    });
  });
}
