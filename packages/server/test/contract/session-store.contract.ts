import { beforeEach, describe, expect, it } from 'vitest';
import type { MetadataStore, SessionRecord, SessionStore, TenantStore } from '../../src/storage/ports.js';
import { eachTestDatabase, type MetadataStoreDatabase } from './metadata-database.js';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-01T00:05:00.000Z';
const LATER = '2025-01-01T00:10:00.000Z';

function session(hash: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return { hash, kind: 'npm-login', user: null, data: { n: 1, s: 'x' }, createdAt: T0, expiresAt: T1, ...overrides };
}

/**
 * The definition of "the session store works" (SessionStore: browser sign-ins, npm web logins,
 * invitations), sessions that several processes share: every driver runs it, each test on a
 * fresh, empty database.
 */
export function sessionStoreContract(driver: string, freshDatabase: () => Promise<MetadataStoreDatabase>): void {
  describe(`SessionStore contract: ${driver}`, () => {
    const stores = eachTestDatabase(freshDatabase);
    let tenants: TenantStore;
    let sessions: SessionStore;
    /** A second process on the same database. */
    let other: MetadataStore;

    beforeEach(async () => {
      ({ tenants, sessions } = stores.store.accounts);
      other = await stores.open();
      // Writes to a tenant need the tenant (a deleted one takes none).
      await tenants.create({ name: 'acme', incarnation: 'first', createdAt: '2025-01-01T00:00:00.000Z', settings: {} });
    });

    describe('sessions', () => {
      it('stores and returns a session until it expires, across connections', async () => {
        await sessions.create('', session('h1'));
        expect(await other.accounts.sessions.get('', 'h1', T0)).toEqual(session('h1'));
        expect(await other.accounts.sessions.get('', 'h1', T1)).toBeUndefined();
      });

      it('keeps tenants apart', async () => {
        await sessions.create('acme', session('h2'));
        expect(await sessions.get('', 'h2', T0)).toBeUndefined();
        expect(await sessions.get('acme', 'h2', T0)).toBeDefined();
        expect(await sessions.claim('', 'h2', 'mallory', T0)).toBe(false);
        expect(await sessions.delete('', 'h2')).toBe(false);
      });

      it('lets exactly one claim a pending session, and never an expired one', async () => {
        await sessions.create('', session('h3'));
        const claims = await Promise.all([
          sessions.claim('', 'h3', 'alice', T0),
          other.accounts.sessions.claim('', 'h3', 'bob', T0),
        ]);
        expect(claims.sort()).toEqual([false, true]);
        const claimed = await sessions.get('', 'h3', T0);
        expect(['alice', 'bob']).toContain(claimed?.user);
        await sessions.create('', session('h4'));
        expect(await sessions.claim('', 'h4', 'alice', T1)).toBe(false);
      });

      it('deletes a session once', async () => {
        await sessions.create('', session('h5'));
        expect(await sessions.delete('', 'h5')).toBe(true);
        expect(await other.accounts.sessions.delete('', 'h5')).toBe(false);
      });

      it('purges expired sessions of every tenant', async () => {
        await sessions.create('', session('h6'));
        await sessions.create('acme', session('h7'));
        await sessions.create('', session('h8', { expiresAt: '2030-01-01T00:00:00.000Z' }));
        expect(await sessions.deleteExpired(LATER)).toBeGreaterThanOrEqual(2);
        expect(await sessions.get('', 'h8', LATER)).toBeDefined();
      });

      it('drops the sessions of a deleted tenant', async () => {
        await tenants.create({ name: 'gone', incarnation: 'first', createdAt: T0, settings: {} });
        await sessions.create('gone', session('h9', { expiresAt: '2030-01-01T00:00:00.000Z' }));
        await tenants.delete('gone');
        expect(await sessions.get('gone', 'h9', T0)).toBeUndefined();
      });
    });
  });
}
