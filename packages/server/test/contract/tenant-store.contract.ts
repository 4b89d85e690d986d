import { beforeEach, describe, expect, it } from 'vitest';
import {
  TenantGoneError,
  type MetadataStore,
  type SessionStore,
  type TenantStore,
  type TokenStore,
  type UserStore,
} from '../../src/storage/ports.js';
import { eachTestDatabase, type MetadataStoreDatabase } from './metadata-database.js';
import { stored, tenant, token, user } from './metadata-fixtures.js';

/**
 * The definition of "the tenant store works" (TenantStore), with the database's migrations: every
 * driver runs it, each test on a fresh, empty database. Deleting a tenant removes its records
 * of every kind, the packages included, in one transaction.
 */
export function tenantStoreContract(driver: string, freshDatabase: () => Promise<MetadataStoreDatabase>): void {
  describe(`TenantStore contract: ${driver}`, () => {
    const stores = eachTestDatabase(freshDatabase);
    let store: MetadataStore;
    let tenants: TenantStore;
    let users: UserStore;
    let tokens: TokenStore;
    let sessions: SessionStore;
    beforeEach(() => {
      store = stores.store;
      ({ tenants, users, tokens, sessions } = store.accounts);
    });

    describe('tenants', () => {
      it('creates a tenant once, keeping the first on a second create', async () => {
        expect(await tenants.get('acme')).toBeUndefined();
        expect(await tenants.create(tenant('acme', { signup: false }))).toBe(true);
        expect(await tenants.create(tenant('acme', { signup: true }))).toBe(false);
        expect(await tenants.get('acme')).toEqual(tenant('acme', { signup: false }));
      });

      it('keeps the incarnation of each tenant as created, in reads and listings', async () => {
        await tenants.create(tenant('acme', {}, 'a1b2c3'));
        await tenants.updateSettings('acme', { signup: true });
        expect((await tenants.get('acme'))?.incarnation).toBe('a1b2c3');
        expect((await tenants.list()).map((t) => t.incarnation)).toEqual(['a1b2c3']);
      });

      it('round-trips every setting', async () => {
        const settings = {
          signup: true,
          readAccess: 'token' as const,
          rateLimitAnonymous: 5,
          rateLimitAuthenticated: 0,
          rateLimitPublish: 3,
        };
        await tenants.create(tenant('acme', settings));
        expect((await tenants.get('acme'))?.settings).toEqual(settings);
      });

      it('lists tenants in byte order of their names', async () => {
        for (const name of ['beta', 'alpha', 'a-team', 'a0']) await tenants.create(tenant(name));
        expect((await tenants.list()).map((t) => t.name)).toEqual(['a-team', 'a0', 'alpha', 'beta']);
      });

      it('updates settings of an existing tenant only', async () => {
        await tenants.create(tenant('acme'));
        expect(await tenants.updateSettings('acme', { readAccess: 'token' })).toBe(true);
        expect((await tenants.get('acme'))?.settings).toEqual({ readAccess: 'token' });
        expect(await tenants.updateSettings('nobody', { signup: true })).toBe(false);
        expect(await tenants.get('nobody')).toBeUndefined();
      });

      it('deleteTenant removes everything of that tenant and nothing else', async () => {
        for (const name of ['acme', 'other']) await tenants.create(tenant(name));
        for (const t of ['acme', 'other', '']) {
          await users.create(t, user('ada'));
          await tokens.create(t, token('h1', 'ada'));
          await store.package(t, 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        }
        expect(await tenants.delete('acme')).toBe(true);
        expect(await tenants.get('acme')).toBeUndefined();
        expect(await users.get('acme', 'ada')).toBeUndefined();
        expect(await tokens.get('acme', 'h1')).toBeUndefined();
        expect(await store.package('acme', 'com.acme.tool').read()).toBeUndefined();
        expect(await store.listPackageNames('acme')).toEqual([]);
        for (const t of ['other', '']) {
          expect(await users.get(t, 'ada')).toEqual(user('ada'));
          expect(await tokens.get(t, 'h1')).toEqual(token('h1', 'ada'));
          expect(await store.listPackageNames(t)).toEqual(['com.acme.tool']);
        }
        expect((await tenants.list()).map((t) => t.name)).toEqual(['other']);
        // The versions too, which the sweep of orphan tarballs reads: none left of the deleted tenant.
        expect(await store.versionsOfPackages('acme', ['com.acme.tool'])).toEqual(new Map());
        for (const t of ['other', '']) {
          expect(await store.versionsOfPackages(t, ['com.acme.tool'])).toEqual(new Map([['com.acme.tool', ['1.0.0']]]));
        }
        // The name is free again, and the new tenant (another incarnation) starts empty.
        expect(await tenants.create(tenant('acme', {}, 'acme-second'))).toBe(true);
        expect((await tenants.get('acme'))?.incarnation).toBe('acme-second');
        expect(await users.list('acme')).toEqual([]);
        expect(await tokens.list('acme')).toEqual([]);
        expect(await store.listPackageNames('acme', { includeUnpublished: true })).toEqual([]);
      });

      it('writes nothing to a tenant that does not exist (or was deleted): TenantGoneError', async () => {
        await tenants.create(tenant('acme'));
        await tenants.delete('acme');
        for (const t of ['acme', 'never']) {
          await expect(users.create(t, user('ada'))).rejects.toBeInstanceOf(TenantGoneError);
          await expect(tokens.create(t, token('h1', 'ada'))).rejects.toBeInstanceOf(TenantGoneError);
          await expect(
            sessions.create(t, {
              hash: 's1',
              kind: 'browser',
              user: 'ada',
              data: {},
              createdAt: '2025-01-01T00:00:00.000Z',
              expiresAt: '2030-01-01T00:00:00.000Z',
            }),
          ).rejects.toBeInstanceOf(TenantGoneError);
          await expect(
            store.package(t, 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null })),
          ).rejects.toBeInstanceOf(TenantGoneError);
          expect(await users.get(t, 'ada')).toBeUndefined();
          expect(await tokens.get(t, 'h1')).toBeUndefined();
          expect(await store.listPackageNames(t, { includeUnpublished: true })).toEqual([]);
          expect(await store.versionsOfPackages(t, ['com.acme.tool'])).toEqual(new Map());
        }
      });

      it('deleteTenant of an unknown tenant answers false and changes nothing', async () => {
        await users.create('', user('ada'));
        expect(await tenants.delete('ghost')).toBe(false);
        expect(await users.get('', 'ada')).toEqual(user('ada'));
      });
    });
  });
}
