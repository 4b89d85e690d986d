import { beforeEach, describe, expect, it } from 'vitest';
import { blobKeysOfVersion } from '../../src/storage/blob-keys.js';
import { TenantGoneError, type MetadataStore, type UserRecord } from '../../src/storage/ports.js';
import { eachTestDatabase, type MetadataStoreDatabase } from './metadata-database.js';
import { stored, tenant, token, user } from './metadata-fixtures.js';

/**
 * The definition of "the registry-wide part of a metadata store works" (RegistryStore: tenants,
 * accounts, tokens) with the database's migrations: every driver runs this suite. Each test gets
 * a fresh, empty database. Sessions have their own suite (session-store.contract.ts).
 */
export function registryStoreContract(driver: string, freshDatabase: () => Promise<MetadataStoreDatabase>): void {
  describe(`RegistryStore contract: ${driver}`, () => {
    const stores = eachTestDatabase(freshDatabase);
    const open = stores.open;
    let store: MetadataStore;
    beforeEach(() => {
      store = stores.store;
    });

    describe('migrate', () => {
      it('is idempotent and keeps data', async () => {
        await store.createUser('', user('ada'));
        await store.migrate();
        await store.migrate();
        expect(await store.getUser('', 'ada')).toEqual(user('ada'));
      });

      it('lets several instances start at once on an empty database', async () => {
        const fresh = await freshDatabase();
        const instances = await Promise.all([fresh.open(), fresh.open(), fresh.open()]);
        try {
          await Promise.all(instances.map((instance) => instance.migrate()));
          expect(await instances[0].createUser('', user('ada'))).toBe(true);
          expect(await instances[2].getUser('', 'ada')).toEqual(user('ada'));
        } finally {
          for (const instance of instances) await instance.close();
          await fresh.destroy();
        }
      });
    });

    describe('tenants', () => {
      it('creates a tenant once, keeping the first on a second create', async () => {
        expect(await store.getTenant('acme')).toBeUndefined();
        expect(await store.createTenant(tenant('acme', { signup: false }))).toBe(true);
        expect(await store.createTenant(tenant('acme', { signup: true }))).toBe(false);
        expect(await store.getTenant('acme')).toEqual(tenant('acme', { signup: false }));
      });

      it('keeps the incarnation of each tenant as created, in reads and listings', async () => {
        await store.createTenant(tenant('acme', {}, 'a1b2c3'));
        await store.updateTenantSettings('acme', { signup: true });
        expect((await store.getTenant('acme'))?.incarnation).toBe('a1b2c3');
        expect((await store.listTenants()).map((t) => t.incarnation)).toEqual(['a1b2c3']);
      });

      it('round-trips every setting', async () => {
        const settings = {
          signup: true,
          readAccess: 'token' as const,
          rateLimitAnonymous: 5,
          rateLimitAuthenticated: 0,
          rateLimitPublish: 3,
        };
        await store.createTenant(tenant('acme', settings));
        expect((await store.getTenant('acme'))?.settings).toEqual(settings);
      });

      it('lists tenants in byte order of their names', async () => {
        for (const name of ['beta', 'alpha', 'a-team', 'a0']) await store.createTenant(tenant(name));
        expect((await store.listTenants()).map((t) => t.name)).toEqual(['a-team', 'a0', 'alpha', 'beta']);
      });

      it('updates settings of an existing tenant only', async () => {
        await store.createTenant(tenant('acme'));
        expect(await store.updateTenantSettings('acme', { readAccess: 'token' })).toBe(true);
        expect((await store.getTenant('acme'))?.settings).toEqual({ readAccess: 'token' });
        expect(await store.updateTenantSettings('nobody', { signup: true })).toBe(false);
        expect(await store.getTenant('nobody')).toBeUndefined();
      });

      it('deleteTenant removes everything of that tenant and nothing else', async () => {
        for (const name of ['acme', 'other']) await store.createTenant(tenant(name));
        for (const t of ['acme', 'other', '']) {
          await store.createUser(t, user('ada'));
          await store.createToken(t, token('h1', 'ada'));
          await store.package(t, 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        }
        expect(await store.deleteTenant('acme')).toBe(true);
        expect(await store.getTenant('acme')).toBeUndefined();
        expect(await store.getUser('acme', 'ada')).toBeUndefined();
        expect(await store.getToken('acme', 'h1')).toBeUndefined();
        expect(await store.package('acme', 'com.acme.tool').read()).toBeUndefined();
        expect(await store.listPackageNames('acme')).toEqual([]);
        for (const t of ['other', '']) {
          expect(await store.getUser(t, 'ada')).toEqual(user('ada'));
          expect(await store.getToken(t, 'h1')).toEqual(token('h1', 'ada'));
          expect(await store.listPackageNames(t)).toEqual(['com.acme.tool']);
        }
        expect((await store.listTenants()).map((t) => t.name)).toEqual(['other']);
        expect([...(await store.referencedBlobKeys())].sort()).toEqual(
          [...blobKeysOfVersion('', 'com.acme.tool', '1.0.0'), ...blobKeysOfVersion('other', 'com.acme.tool', '1.0.0')].sort(),
        );
        // The name is free again, and the new tenant (another incarnation) starts empty.
        expect(await store.createTenant(tenant('acme', {}, 'acme-second'))).toBe(true);
        expect((await store.getTenant('acme'))?.incarnation).toBe('acme-second');
        expect(await store.listUsers('acme')).toEqual([]);
        expect(await store.listTokens('acme')).toEqual([]);
        expect(await store.listPackageNames('acme', { includeUnpublished: true })).toEqual([]);
      });

      it('writes nothing to a tenant that does not exist (or was deleted): TenantGoneError', async () => {
        await store.createTenant(tenant('acme'));
        await store.deleteTenant('acme');
        for (const t of ['acme', 'never']) {
          await expect(store.createUser(t, user('ada'))).rejects.toBeInstanceOf(TenantGoneError);
          await expect(store.createToken(t, token('h1', 'ada'))).rejects.toBeInstanceOf(TenantGoneError);
          await expect(
            store.createSession(t, {
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
          expect(await store.getUser(t, 'ada')).toBeUndefined();
          expect(await store.getToken(t, 'h1')).toBeUndefined();
          expect(await store.listPackageNames(t, { includeUnpublished: true })).toEqual([]);
        }
        expect(await store.referencedBlobKeys()).toEqual(new Set());
      });

      it('deleteTenant of an unknown tenant answers false and changes nothing', async () => {
        await store.createUser('', user('ada'));
        expect(await store.deleteTenant('ghost')).toBe(false);
        expect(await store.getUser('', 'ada')).toEqual(user('ada'));
      });
    });

    describe('users', () => {
      // Writes to a tenant need the tenant (a deleted one takes none).
      beforeEach(async () => {
        for (const name of ['acme', 'other']) await store.createTenant(tenant(name));
      });

      it('creates a user once; a second create of the name answers false and keeps the first', async () => {
        expect(await store.getUser('', 'ada')).toBeUndefined();
        expect(await store.createUser('', user('ada', { email: 'first@example.com' }))).toBe(true);
        expect(await store.createUser('', user('ada', { email: 'second@example.com' }))).toBe(false);
        expect(await store.getUser('', 'ada')).toEqual(user('ada', { email: 'first@example.com' }));
      });

      it('keeps users of different tenants apart', async () => {
        await store.createUser('', user('ada', { email: 'global@example.com' }));
        await store.createUser('acme', user('ada', { email: 'acme@example.com' }));
        expect((await store.getUser('', 'ada'))?.email).toBe('global@example.com');
        expect((await store.getUser('acme', 'ada'))?.email).toBe('acme@example.com');
        expect(await store.getUser('other', 'ada')).toBeUndefined();
      });

      it('concurrent sign-ups of one name from two instances: exactly one wins', async () => {
        const second = await open();
        const attempts = Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? second : store).createUser('', user('ada', { email: `ada${i}@example.com` })),
        );
        const results = await Promise.all(attempts);
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect((await second.getUser('', 'ada'))?.email).toBe(`ada${winner}@example.com`);
      });

      it('updates only the fields given, and only existing users', async () => {
        await store.createUser('', user('ada'));
        expect(await store.updateUser('', 'ada', { email: 'new@example.com', disabled: true })).toBe(true);
        expect(await store.getUser('', 'ada')).toEqual(user('ada', { email: 'new@example.com', disabled: true }));
        expect(await store.updateUser('', 'ada', { disabled: false })).toBe(true);
        expect((await store.getUser('', 'ada'))?.disabled).toBe(false);
        expect(await store.updateUser('', 'ada', {})).toBe(true);
        expect(await store.updateUser('', 'ghost', { email: 'x@example.com' })).toBe(false);
        expect(await store.updateUser('', 'ghost', {})).toBe(false);
        expect(await store.getUser('', 'ghost')).toBeUndefined();
      });

      it('ignores a name in a patch: names never change', async () => {
        await store.createUser('', user('ada'));
        await store.updateUser('', 'ada', { name: 'eve' } as Partial<UserRecord>);
        expect(await store.getUser('', 'ada')).toEqual(user('ada'));
        expect(await store.getUser('', 'eve')).toBeUndefined();
      });

      it('lists the users of one tenant in byte order', async () => {
        for (const name of ['zed', 'Ada', 'ada', 'a.b']) await store.createUser('', user(name));
        await store.createUser('acme', user('other'));
        expect((await store.listUsers('')).map((u) => u.name)).toEqual(['Ada', 'a.b', 'ada', 'zed']);
        expect((await store.listUsers('acme')).map((u) => u.name)).toEqual(['other']);
      });

      it('keeps the administrator flag, grants and withdraws it', async () => {
        await store.createUser('', user('root', { admin: true }));
        await store.createUser('', user('ada'));
        expect((await store.getUser('', 'root'))?.admin).toBe(true);
        expect(await store.getUser('', 'ada')).toEqual(user('ada'));
        expect(await store.updateUser('', 'ada', { admin: true })).toBe(true);
        expect((await store.listUsers('')).map((u) => [u.name, u.admin === true])).toEqual([
          ['ada', true],
          ['root', true],
        ]);
        await store.updateUser('', 'root', { admin: false });
        expect(await store.getUser('', 'root')).toEqual(user('root'));
      });

      it("deletes a user with its tokens and sessions, nobody else's", async () => {
        await store.createTenant(tenant('acme'));
        for (const t of ['', 'acme']) {
          await store.createUser(t, user('ada'));
          await store.createToken(t, token(`${t}h1`, 'ada'));
        }
        await store.createUser('', user('bob'));
        await store.createToken('', token('h2', 'bob'));
        const session = { kind: 'web', data: {}, createdAt: '2024-05-06T07:08:09.010Z', expiresAt: '2999-01-01T00:00:00.000Z' };
        await store.createSession('', { ...session, hash: 's1', user: 'ada' });
        await store.createSession('', { ...session, hash: 's2', user: 'bob' });
        expect(await store.deleteUser('', 'ada')).toBe(true);
        expect(await store.deleteUser('', 'ada')).toBe(false);
        expect(await store.getUser('', 'ada')).toBeUndefined();
        expect(await store.getToken('', 'h1')).toBeUndefined();
        expect(await store.getSession('', 's1', '2024-06-01T00:00:00.000Z')).toBeUndefined();
        expect(await store.getToken('', 'h2')).toBeDefined();
        expect(await store.getSession('', 's2', '2024-06-01T00:00:00.000Z')).toBeDefined();
        expect(await store.getUser('acme', 'ada')).toBeDefined();
        expect(await store.getToken('acme', 'acmeh1')).toBeDefined();
      });

      it('keeps text exactly, including non-ASCII', async () => {
        const record = user('zoë', { email: 'zoë+test@exämple.com', passwordHash: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==' });
        await store.createUser('', record);
        expect(await store.getUser('', 'zoë')).toEqual(record);
      });
    });

    describe('second factors', () => {
      it("keep a user's TOTP enrolment, change it, and clear it", async () => {
        const factor = {
          mode: 'auth-and-writes' as const,
          secret: 'JBSWY3DPEHPK3PXP',
          pending: true,
          recoveryCodes: ['a'.repeat(64), 'b'.repeat(64)],
          lastStep: 0,
          createdAt: '2026-01-01T00:00:00.000Z',
        };
        await store.createUser('', user('ada'));
        expect((await store.getUser('', 'ada'))?.secondFactor).toBeUndefined();
        expect(await store.updateUser('', 'ada', { secondFactor: factor })).toBe(true);
        expect((await store.getUser('', 'ada'))?.secondFactor).toEqual(factor);
        await store.updateUser('', 'ada', { secondFactor: { ...factor, pending: false, lastStep: 59_000_000 } });
        expect((await store.listUsers(''))[0]?.secondFactor).toMatchObject({ pending: false, lastStep: 59_000_000 });
        await store.updateUser('', 'ada', { secondFactor: null });
        expect(await store.getUser('', 'ada')).toEqual(user('ada'));
        await store.createUser('', { ...user('eve'), secondFactor: factor });
        expect((await store.getUser('', 'eve'))?.secondFactor).toEqual(factor);
      });
    });

    describe('tokens', () => {
      // Writes to a tenant need the tenant (a deleted one takes none).
      beforeEach(async () => {
        for (const name of ['acme', 'other']) await store.createTenant(tenant(name));
      });

      it('round-trips a token, with and without expiry', async () => {
        const forever = token('aa', 'ada');
        const expiring = { ...token('bb', 'ada'), expiresAt: '2030-01-01T00:00:00.000Z', readonly: true };
        await store.createToken('', forever);
        await store.createToken('', expiring);
        expect(await store.getToken('', 'aa')).toEqual(forever);
        expect(await store.getToken('', 'bb')).toEqual(expiring);
        expect(await store.getToken('acme', 'aa')).toBeUndefined();
        expect(await store.getToken('', 'cc')).toBeUndefined();
      });

      it('refuses a second token of the same hash', async () => {
        await store.createToken('', token('aa', 'ada'));
        await expect(store.createToken('', token('aa', 'eve'))).rejects.toThrow();
        expect((await store.getToken('', 'aa'))?.user).toBe('ada');
      });

      it('deletes one token, answering whether it existed', async () => {
        await store.createToken('', token('aa', 'ada'));
        await store.createToken('', token('bb', 'ada'));
        expect(await store.deleteToken('', 'aa')).toBe(true);
        expect(await store.deleteToken('', 'aa')).toBe(false);
        expect(await store.getToken('', 'aa')).toBeUndefined();
        expect(await store.getToken('', 'bb')).toEqual(token('bb', 'ada'));
      });

      it('lists the tokens of one tenant, ordered by hash', async () => {
        expect(await store.listTokens('')).toEqual([]);
        await store.createToken('', token('cc', 'eve'));
        await store.createToken('', { ...token('aa', 'ada'), expiresAt: '2030-01-01T00:00:00.000Z', readonly: true });
        await store.createToken('', token('bb', 'ada'));
        await store.createToken('acme', token('dd', 'ada'));
        expect(await store.listTokens('')).toEqual([
          { ...token('aa', 'ada'), expiresAt: '2030-01-01T00:00:00.000Z', readonly: true },
          token('bb', 'ada'),
          token('cc', 'eve'),
        ]);
        expect(await store.listTokens('acme')).toEqual([token('dd', 'ada')]);
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
        await store.createToken('', scoped);
        expect(await store.getToken('', 'sc')).toEqual(scoped);
        expect(await store.listUserTokens('', 'ada')).toEqual([scoped]);
      });

      it('records the last use of tokens in batches, and skips tokens that are gone', async () => {
        await store.createToken('', token('aa', 'ada'));
        await store.createToken('', token('bb', 'ada'));
        await store.createToken('acme', token('aa', 'ada'));
        const version = store.credentialsVersion?.();
        await store.recordTokenUses('', [
          { hash: 'aa', at: '2026-01-02T03:04:05.000Z', address: '10.1.2.3' },
          { hash: 'gone', at: '2026-01-02T03:04:05.000Z', address: '10.1.2.4' },
        ]);
        expect(await store.getToken('', 'aa')).toEqual({
          ...token('aa', 'ada'),
          lastUsedAt: '2026-01-02T03:04:05.000Z',
          lastAddress: '10.1.2.3',
        });
        expect(await store.getToken('', 'bb')).toEqual(token('bb', 'ada'));
        expect(await store.getToken('acme', 'aa')).toEqual(token('aa', 'ada'));
        expect(await store.getToken('', 'gone')).toBeUndefined();
        await store.recordTokenUses('', [{ hash: 'aa', at: '2026-01-03T00:00:00.000Z', address: '::1' }]);
        expect(await store.getToken('', 'aa')).toMatchObject({ lastUsedAt: '2026-01-03T00:00:00.000Z', lastAddress: '::1' });
        await store.recordTokenUses('', []);
        // A use is no credentials change: cached authentications stay valid.
        expect(store.credentialsVersion?.()).toBe(version);
      });

      it('deletes every token of one user in one tenant', async () => {
        for (const hash of ['a1', 'a2', 'a3']) await store.createToken('', token(hash, 'ada'));
        await store.createToken('', token('e1', 'eve'));
        await store.createToken('acme', token('a4', 'ada'));
        expect(await store.deleteUserTokens('', 'ada')).toBe(3);
        expect(await store.deleteUserTokens('', 'ada')).toBe(0);
        expect(await store.getToken('', 'a1')).toBeUndefined();
        expect(await store.getToken('', 'e1')).toEqual(token('e1', 'eve'));
        expect(await store.getToken('acme', 'a4')).toEqual(token('a4', 'ada'));
      });
    });
  });
}
