import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/create-storage.js';
import type { TeamStore } from '../../src/storage/team-store.js';

/** A database for one test: `open` may be called twice (two nodes sharing it). */
export interface TeamDatabase {
  open(): Promise<Pick<Storage, 'teams' | 'registry'>>;
  destroy(): Promise<void>;
}

const CREATED = '2025-01-01T00:00:00.000Z';

/** Every driver of TeamStore runs this suite on a fresh database. */
export function teamStoreContract(driver: string, freshDatabase: () => Promise<TeamDatabase>): void {
  describe(`TeamStore contract: ${driver}`, () => {
    let database: TeamDatabase;
    let store: TeamStore;

    beforeEach(async () => {
      database = await freshDatabase();
      store = (await database.open()).teams;
    });
    afterEach(async () => {
      await database.destroy();
    });

    it('creates a team once, with its first members, and lists teams by name', async () => {
      expect(await store.list('')).toEqual([]);
      expect(await store.create('', 'studio', CREATED, ['bob', 'alice', 'bob'])).toBe(true);
      expect(await store.create('', 'studio', CREATED, ['carol'])).toBe(false);
      expect(await store.create('', 'art-team', CREATED, [])).toBe(true);
      expect(await store.list('')).toEqual([
        { name: 'art-team', createdAt: CREATED, members: [], namespaces: [] },
        { name: 'studio', createdAt: CREATED, members: ['alice', 'bob'], namespaces: [] },
      ]);
      expect(await store.get('', 'studio')).toEqual({
        name: 'studio',
        createdAt: CREATED,
        members: ['alice', 'bob'],
        namespaces: [],
      });
      expect(await store.get('', 'nobody')).toBeUndefined();
    });

    it('adds and removes members, and tells which teams a user is in', async () => {
      await store.create('', 'studio', CREATED, ['alice']);
      await store.create('', 'tools', CREATED, ['alice']);
      expect(await store.addMember('', 'studio', 'bob')).toBe(true);
      expect(await store.addMember('', 'studio', 'bob')).toBe(true);
      expect(await store.addMember('', 'nobody', 'bob')).toBe(false);
      expect((await store.get('', 'nobody'))?.members).toBeUndefined();
      expect((await store.teamsOf('', 'alice')).map((t) => t.name)).toEqual(['studio', 'tools']);
      expect((await store.teamsOf('', 'bob')).map((t) => t.name)).toEqual(['studio']);
      expect(await store.teamsOf('', 'carol')).toEqual([]);
      expect(await store.removeMember('', 'studio', 'bob')).toBe(true);
      expect(await store.removeMember('', 'studio', 'bob')).toBe(false);
      expect(await store.forgetUser('', 'alice')).toBe(2);
      expect(await store.list('')).toEqual([
        { name: 'studio', createdAt: CREATED, members: [], namespaces: [] },
        { name: 'tools', createdAt: CREATED, members: [], namespaces: [] },
      ]);
    });

    it('gives a namespace to one team only, between two nodes too', async () => {
      const other = (await database.open()).teams;
      await store.create('', 'studio', CREATED, ['alice']);
      await store.create('', 'rivals', CREATED, ['mallory']);
      expect(await store.claim('', 'studio', 'com.studio.*')).toEqual({ claimed: true });
      expect(await other.claim('', 'rivals', 'com.studio.*')).toEqual({ claimed: false, owner: 'studio' });
      expect(await store.claim('', 'studio', 'com.studio.*')).toEqual({ claimed: false, owner: 'studio' });
      expect(await store.claim('', 'nobody', 'com.other.*')).toEqual({ claimed: false, owner: null });
      // Overlap is the service's decision: the store keeps a narrower namespace of another team.
      expect(await other.claim('', 'rivals', 'com.studio.tools.*')).toEqual({ claimed: true });
      expect((await store.get('', 'studio'))?.namespaces).toEqual(['com.studio.*']);
      expect(await store.release('', 'rivals', 'com.studio.*')).toBe(false);
      expect(await store.release('', 'rivals', 'com.studio.tools.*')).toBe(true);
      expect((await store.get('', 'rivals'))?.namespaces).toEqual([]);
    });

    it('names the owner of the longest namespace that holds a package', async () => {
      await store.create('', 'studio', CREATED, ['bob', 'alice']);
      await store.create('', 'tools', CREATED, ['carol']);
      await store.claim('', 'studio', 'com.studio.*');
      await store.claim('', 'tools', 'com.studio.tools.*');
      expect(await store.ownerOf('', 'com.studio.game')).toEqual({
        team: 'studio',
        namespace: 'com.studio.*',
        members: ['alice', 'bob'],
      });
      expect(await store.ownerOf('', 'com.studio.tools.build')).toEqual({
        team: 'tools',
        namespace: 'com.studio.tools.*',
        members: ['carol'],
      });
      expect((await store.ownerOf('', 'com.studio.tools'))?.team).toBe('studio');
      // A namespace holds the names below its prefix, not the prefix itself.
      expect(await store.ownerOf('', 'com.studio')).toBeUndefined();
      expect(await store.ownerOf('', 'com.studioz.game')).toBeUndefined();
    });

    it('deletes a team with its memberships and namespaces', async () => {
      await store.create('', 'studio', CREATED, ['alice']);
      await store.claim('', 'studio', 'com.studio.*');
      expect(await store.delete('', 'studio')).toBe(true);
      expect(await store.delete('', 'studio')).toBe(false);
      expect(await store.ownerOf('', 'com.studio.game')).toBeUndefined();
      expect(await store.teamsOf('', 'alice')).toEqual([]);
      expect(await store.create('', 'studio', CREATED, [])).toBe(true);
      expect(await store.get('', 'studio')).toEqual({ name: 'studio', createdAt: CREATED, members: [], namespaces: [] });
    });

    it('keeps registries apart and forgets the teams of a deleted tenant, also when it is created again', async () => {
      const { registry } = await database.open();
      const tenant = (incarnation: string) => ({ name: 'acme', incarnation, createdAt: CREATED, settings: {} });
      await registry.tenants.create(tenant('first'));
      await store.create('', 'studio', CREATED, ['alice']);
      await store.claim('', 'studio', 'com.studio.*');
      await store.create('acme', 'studio', CREATED, ['eve']);
      await store.claim('acme', 'studio', 'com.acme.*');
      expect((await store.ownerOf('acme', 'com.studio.game'))?.team).toBeUndefined();
      expect((await store.ownerOf('acme', 'com.acme.game'))?.members).toEqual(['eve']);
      expect(await registry.tenants.delete('acme')).toBe(true);
      await registry.tenants.create(tenant('second'));
      expect(await store.list('acme')).toEqual([]);
      expect(await store.ownerOf('acme', 'com.acme.game')).toBeUndefined();
      expect(await store.teamsOf('acme', 'eve')).toEqual([]);
      expect((await store.list('')).map((t) => t.name)).toEqual(['studio']);
    });

    it('keeps nothing for a tenant that does not exist', async () => {
      expect(await store.create('gone', 'studio', CREATED, ['alice'])).toBe(false);
      expect(await store.addMember('gone', 'studio', 'bob')).toBe(false);
      expect(await store.claim('gone', 'studio', 'com.gone.*')).toEqual({ claimed: false, owner: null });
      expect(await store.list('gone')).toEqual([]);
    });
  });
}
