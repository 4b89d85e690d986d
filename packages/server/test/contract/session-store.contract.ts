import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MetadataStore, SessionRecord } from '../../src/storage/ports.js';

/** A database for one test; `open` may be called twice, like two server processes sharing it. */
export interface SessionStoreDatabase {
  open(): Promise<MetadataStore>;
  destroy(): Promise<void>;
}

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-01T00:05:00.000Z';
const LATER = '2025-01-01T00:10:00.000Z';

function session(hash: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return { hash, kind: 'npm-login', user: null, data: { n: 1, s: 'x' }, createdAt: T0, expiresAt: T1, ...overrides };
}

/**
 * What the web interface needs of a metadata store: sessions (browser sign-in, npm web login)
 * that several processes share, and a user's tokens with their prefixes. Every driver runs it.
 */
export function sessionStoreContract(driver: string, freshDatabase: () => Promise<SessionStoreDatabase>): void {
  describe(`sessions and token listing: ${driver}`, () => {
    let database: SessionStoreDatabase;
    let store: MetadataStore;
    let other: MetadataStore;

    beforeEach(async () => {
      database = await freshDatabase();
      store = await database.open();
      await store.migrate();
      // Writes to a tenant need the tenant (a deleted one takes none).
      await store.createTenant({ name: 'acme', incarnation: 'first', createdAt: '2025-01-01T00:00:00.000Z', settings: {} });
      other = await database.open();
      await other.migrate();
    });

    afterEach(async () => {
      await store.close();
      await other.close();
      await database.destroy();
    });

    describe('sessions', () => {
      it('stores and returns a session until it expires, across connections', async () => {
        await store.createSession('', session('h1'));
        expect(await other.getSession('', 'h1', T0)).toEqual(session('h1'));
        expect(await other.getSession('', 'h1', T1)).toBeUndefined();
      });

      it('keeps tenants apart', async () => {
        await store.createSession('acme', session('h2'));
        expect(await store.getSession('', 'h2', T0)).toBeUndefined();
        expect(await store.getSession('acme', 'h2', T0)).toBeDefined();
        expect(await store.claimSession('', 'h2', 'mallory', T0)).toBe(false);
        expect(await store.deleteSession('', 'h2')).toBe(false);
      });

      it('lets exactly one claim a pending session, and never an expired one', async () => {
        await store.createSession('', session('h3'));
        const claims = await Promise.all([store.claimSession('', 'h3', 'alice', T0), other.claimSession('', 'h3', 'bob', T0)]);
        expect(claims.sort()).toEqual([false, true]);
        const claimed = await store.getSession('', 'h3', T0);
        expect(['alice', 'bob']).toContain(claimed?.user);
        await store.createSession('', session('h4'));
        expect(await store.claimSession('', 'h4', 'alice', T1)).toBe(false);
      });

      it('deletes a session once', async () => {
        await store.createSession('', session('h5'));
        expect(await store.deleteSession('', 'h5')).toBe(true);
        expect(await other.deleteSession('', 'h5')).toBe(false);
      });

      it('purges expired sessions of every tenant', async () => {
        await store.createSession('', session('h6'));
        await store.createSession('acme', session('h7'));
        await store.createSession('', session('h8', { expiresAt: '2030-01-01T00:00:00.000Z' }));
        expect(await store.deleteExpiredSessions(LATER)).toBeGreaterThanOrEqual(2);
        expect(await store.getSession('', 'h8', LATER)).toBeDefined();
      });

      it('drops the sessions of a deleted tenant', async () => {
        await store.createTenant({ name: 'gone', incarnation: 'first', createdAt: T0, settings: {} });
        await store.createSession('gone', session('h9', { expiresAt: '2030-01-01T00:00:00.000Z' }));
        await store.deleteTenant('gone');
        expect(await store.getSession('gone', 'h9', T0)).toBeUndefined();
      });
    });

    describe('token listing', () => {
      it("lists one user's tokens newest first, with their prefixes", async () => {
        const base = { user: 'alice', expiresAt: null, readonly: false };
        await store.createToken('', { ...base, hash: 'a1', createdAt: '2025-01-01T00:00:00.000Z', prefix: 'AAAAAA' });
        await store.createToken('', { ...base, hash: 'a2', createdAt: '2025-01-02T00:00:00.000Z' });
        await store.createToken('', { ...base, user: 'bob', hash: 'b1', createdAt: '2025-01-03T00:00:00.000Z' });
        await store.createToken('acme', { ...base, hash: 'c1', createdAt: '2025-01-03T00:00:00.000Z' });
        const list = await store.listUserTokens('', 'alice');
        expect(list).toEqual([
          { ...base, hash: 'a2', createdAt: '2025-01-02T00:00:00.000Z' },
          { ...base, hash: 'a1', createdAt: '2025-01-01T00:00:00.000Z', prefix: 'AAAAAA' },
        ]);
        expect(await store.getToken('', 'a1')).toMatchObject({ prefix: 'AAAAAA' });
      });
    });
  });
}
