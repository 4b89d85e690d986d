import { beforeEach, describe, expect, it } from 'vitest';
import type { MetadataStore, SessionStore, TenantStore, TokenStore, UserRecord, UserStore } from '../../src/storage/ports.js';
import { eachTestDatabase, type MetadataStoreDatabase } from './metadata-database.js';
import { tenant, token, user } from './metadata-fixtures.js';

/**
 * The definition of "the user store works" (UserStore: accounts, their administrator flag and
 * second factor), with the database's migrations: every driver runs it, each test on a fresh,
 * empty database. Deleting a user deletes its tokens and sessions in the same transaction.
 */
export function userStoreContract(driver: string, freshDatabase: () => Promise<MetadataStoreDatabase>): void {
  describe(`UserStore contract: ${driver}`, () => {
    const stores = eachTestDatabase(freshDatabase);
    const open = stores.open;
    let store: MetadataStore;
    let tenants: TenantStore;
    let users: UserStore;
    let tokens: TokenStore;
    let sessions: SessionStore;
    beforeEach(() => {
      store = stores.store;
      ({ tenants, users, tokens, sessions } = store.accounts);
    });

    describe('migrate', () => {
      it('is idempotent and keeps data', async () => {
        await users.create('', user('ada'));
        await store.migrate();
        await store.migrate();
        expect(await users.get('', 'ada')).toEqual(user('ada'));
      });

      it('lets several instances start at once on an empty database', async () => {
        const fresh = await freshDatabase();
        const instances = await Promise.all([fresh.open(), fresh.open(), fresh.open()]);
        try {
          await Promise.all(instances.map((instance) => instance.migrate()));
          expect(await instances[0].accounts.users.create('', user('ada'))).toBe(true);
          expect(await instances[2].accounts.users.get('', 'ada')).toEqual(user('ada'));
        } finally {
          for (const instance of instances) await instance.close();
          await fresh.destroy();
        }
      });
    });

    describe('users', () => {
      // Writes to a tenant need the tenant (a deleted one takes none).
      beforeEach(async () => {
        for (const name of ['acme', 'other']) await tenants.create(tenant(name));
      });

      it('creates a user once; a second create of the name answers false and keeps the first', async () => {
        expect(await users.get('', 'ada')).toBeUndefined();
        expect(await users.create('', user('ada', { email: 'first@example.com' }))).toBe(true);
        expect(await users.create('', user('ada', { email: 'second@example.com' }))).toBe(false);
        expect(await users.get('', 'ada')).toEqual(user('ada', { email: 'first@example.com' }));
      });

      it('keeps users of different tenants apart', async () => {
        await users.create('', user('ada', { email: 'global@example.com' }));
        await users.create('acme', user('ada', { email: 'acme@example.com' }));
        expect((await users.get('', 'ada'))?.email).toBe('global@example.com');
        expect((await users.get('acme', 'ada'))?.email).toBe('acme@example.com');
        expect(await users.get('other', 'ada')).toBeUndefined();
      });

      it('concurrent sign-ups of one name from two instances: exactly one wins', async () => {
        const second = await open();
        const attempts = Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? second.accounts : store.accounts).users.create('', user('ada', { email: `ada${i}@example.com` })),
        );
        const results = await Promise.all(attempts);
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect((await second.accounts.users.get('', 'ada'))?.email).toBe(`ada${winner}@example.com`);
      });

      it('updates only the fields given, and only existing users', async () => {
        await users.create('', user('ada'));
        expect(await users.update('', 'ada', { email: 'new@example.com', disabled: true })).toBe(true);
        expect(await users.get('', 'ada')).toEqual(user('ada', { email: 'new@example.com', disabled: true }));
        expect(await users.update('', 'ada', { disabled: false })).toBe(true);
        expect((await users.get('', 'ada'))?.disabled).toBe(false);
        expect(await users.update('', 'ada', {})).toBe(true);
        expect(await users.update('', 'ghost', { email: 'x@example.com' })).toBe(false);
        expect(await users.update('', 'ghost', {})).toBe(false);
        expect(await users.get('', 'ghost')).toBeUndefined();
      });

      it('ignores a name in a patch: names never change', async () => {
        await users.create('', user('ada'));
        await users.update('', 'ada', { name: 'eve' } as Partial<UserRecord>);
        expect(await users.get('', 'ada')).toEqual(user('ada'));
        expect(await users.get('', 'eve')).toBeUndefined();
      });

      it('lists the users of one tenant in byte order', async () => {
        for (const name of ['zed', 'Ada', 'ada', 'a.b']) await users.create('', user(name));
        await users.create('acme', user('other'));
        expect((await users.list('')).map((u) => u.name)).toEqual(['Ada', 'a.b', 'ada', 'zed']);
        expect((await users.list('acme')).map((u) => u.name)).toEqual(['other']);
      });

      it('keeps the administrator flag, grants and withdraws it', async () => {
        await users.create('', user('root', { admin: true }));
        await users.create('', user('ada'));
        expect((await users.get('', 'root'))?.admin).toBe(true);
        expect(await users.get('', 'ada')).toEqual(user('ada'));
        expect(await users.update('', 'ada', { admin: true })).toBe(true);
        expect((await users.list('')).map((u) => [u.name, u.admin === true])).toEqual([
          ['ada', true],
          ['root', true],
        ]);
        await users.update('', 'root', { admin: false });
        expect(await users.get('', 'root')).toEqual(user('root'));
      });

      it("deletes a user with its tokens and sessions, nobody else's", async () => {
        await tenants.create(tenant('acme'));
        for (const t of ['', 'acme']) {
          await users.create(t, user('ada'));
          await tokens.create(t, token(`${t}h1`, 'ada'));
        }
        await users.create('', user('bob'));
        await tokens.create('', token('h2', 'bob'));
        const session = { kind: 'web', data: {}, createdAt: '2024-05-06T07:08:09.010Z', expiresAt: '2999-01-01T00:00:00.000Z' };
        await sessions.create('', { ...session, hash: 's1', user: 'ada' });
        await sessions.create('', { ...session, hash: 's2', user: 'bob' });
        expect(await users.delete('', 'ada')).toBe(true);
        expect(await users.delete('', 'ada')).toBe(false);
        expect(await users.get('', 'ada')).toBeUndefined();
        expect(await tokens.get('', 'h1')).toBeUndefined();
        expect(await sessions.get('', 's1', '2024-06-01T00:00:00.000Z')).toBeUndefined();
        expect(await tokens.get('', 'h2')).toBeDefined();
        expect(await sessions.get('', 's2', '2024-06-01T00:00:00.000Z')).toBeDefined();
        expect(await users.get('acme', 'ada')).toBeDefined();
        expect(await tokens.get('acme', 'acmeh1')).toBeDefined();
      });

      it('keeps text exactly, including non-ASCII', async () => {
        const record = user('zoë', { email: 'zoë+test@exämple.com', passwordHash: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==' });
        await users.create('', record);
        expect(await users.get('', 'zoë')).toEqual(record);
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
        await users.create('', user('ada'));
        expect((await users.get('', 'ada'))?.secondFactor).toBeUndefined();
        expect(await users.update('', 'ada', { secondFactor: factor })).toBe(true);
        expect((await users.get('', 'ada'))?.secondFactor).toEqual(factor);
        await users.update('', 'ada', { secondFactor: { ...factor, pending: false, lastStep: 59_000_000 } });
        expect((await users.list(''))[0]?.secondFactor).toMatchObject({ pending: false, lastStep: 59_000_000 });
        await users.update('', 'ada', { secondFactor: null });
        expect(await users.get('', 'ada')).toEqual(user('ada'));
        await users.create('', { ...user('eve'), secondFactor: factor });
        expect((await users.get('', 'eve'))?.secondFactor).toEqual(factor);
      });
    });
  });
}
