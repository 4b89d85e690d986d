import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProtocolError, type PackageDocument } from '@pkg/protocol';
import { blobKeysOfVersion } from '../../src/storage/blob-keys.js';
import type { MetadataStore, StoredPackage, TenantRecord, TokenRecord, UserRecord } from '../../src/storage/ports.js';

/** A database for one test: `open` may be called several times, like several nodes sharing it. */
export interface MetadataStoreDatabase {
  open(): Promise<MetadataStore>;
  destroy(): Promise<void>;
}

/**
 * The definition of "a metadata store works": every driver runs this suite. Each test gets a
 * fresh, empty database.
 */
export interface MetadataStoreContractOptions {
  /**
   * Whether mutations of one package never overlap even across store instances (processes).
   * PostgreSQL: yes (a lock). SQLite serves one process: only within an instance.
   */
  exclusiveAcrossInstances: boolean;
}

export function metadataStoreContract(
  driver: string,
  freshDatabase: () => Promise<MetadataStoreDatabase>,
  options: MetadataStoreContractOptions,
): void {
  describe(`MetadataStore contract: ${driver}`, () => {
    let database: MetadataStoreDatabase;
    let opened: MetadataStore[];
    let store: MetadataStore;

    async function open(): Promise<MetadataStore> {
      const instance = await database.open();
      opened.push(instance);
      await instance.migrate();
      return instance;
    }

    beforeEach(async () => {
      database = await freshDatabase();
      opened = [];
      store = await open();
    });

    afterEach(async () => {
      for (const instance of opened) await instance.close();
      await database.destroy();
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
          expect(await instances[0]!.createUser('', user('ada'))).toBe(true);
          expect(await instances[2]!.getUser('', 'ada')).toEqual(user('ada'));
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
          await store.updatePackage(t, 'com.acme.tool', () => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        }
        expect(await store.deleteTenant('acme')).toBe(true);
        expect(await store.getTenant('acme')).toBeUndefined();
        expect(await store.getUser('acme', 'ada')).toBeUndefined();
        expect(await store.getToken('acme', 'h1')).toBeUndefined();
        expect(await store.getPackage('acme', 'com.acme.tool')).toBeUndefined();
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
        // The name is free again, and the new tenant starts empty.
        expect(await store.createTenant(tenant('acme'))).toBe(true);
        expect(await store.listUsers('acme')).toEqual([]);
      });

      it('deleteTenant of an unknown tenant answers false and changes nothing', async () => {
        await store.createUser('', user('ada'));
        expect(await store.deleteTenant('ghost')).toBe(false);
        expect(await store.getUser('', 'ada')).toEqual(user('ada'));
      });
    });

    describe('users', () => {
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

      it('keeps text exactly, including non-ASCII', async () => {
        const record = user('zoë', { email: 'zoë+test@exämple.com', passwordHash: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==' });
        await store.createUser('', record);
        expect(await store.getUser('', 'zoë')).toEqual(record);
      });
    });

    describe('tokens', () => {
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

    describe('packages', () => {
      it('creates a package, returning the mutation result', async () => {
        expect(await store.getPackage('', 'com.acme.tool')).toBeUndefined();
        const seen: (StoredPackage | undefined)[] = [];
        const result = await store.updatePackage('', 'com.acme.tool', (current) => {
          seen.push(current);
          return { next: stored('com.acme.tool', ['1.0.0']), result: { ok: true } };
        });
        expect(result).toEqual({ ok: true });
        expect(seen).toEqual([undefined]);
        expect(await store.getPackage('', 'com.acme.tool')).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it('reads the versions of a document without its text, and none for a package that does not exist', async () => {
        await store.updatePackage('', 'com.acme.tool', () => ({
          next: stored('com.acme.tool', ['1.0.0', '0.9.0', '1.0.0-beta.1']),
          result: null,
        }));
        await store.updatePackage('acme', 'com.acme.tool', () => ({ next: stored('com.acme.tool', ['2.0.0']), result: null }));
        expect((await store.versionsOf('', 'com.acme.tool')).sort()).toEqual(['0.9.0', '1.0.0', '1.0.0-beta.1']);
        expect(await store.versionsOf('acme', 'com.acme.tool')).toEqual(['2.0.0']);
        expect(await store.versionsOf('', 'com.acme.missing')).toEqual([]);
        expect(await store.versionsOf('other', 'com.acme.tool')).toEqual([]);
      });

      it('hands the mutation the package as stored', async () => {
        await store.updatePackage('', 'com.acme.tool', () => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        const current = await store.updatePackage('', 'com.acme.tool', (pkg) => ({ next: null, result: pkg }));
        expect(current).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it('changes nothing when the mutation answers next: null', async () => {
        const result = await store.updatePackage('', 'com.acme.tool', () => ({ next: null, result: 'nothing' }));
        expect(result).toBe('nothing');
        expect(await store.getPackage('', 'com.acme.tool')).toBeUndefined();
        expect(await store.listPackageNames('')).toEqual([]);
      });

      it('changes nothing when the mutation throws, and passes the error on', async () => {
        await store.updatePackage('', 'com.acme.tool', () => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        const error = new ProtocolError('CONFLICT', 'version 1.0.0 exists');
        await expect(
          store.updatePackage('', 'com.acme.tool', async () => {
            await Promise.resolve();
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await store.getPackage('', 'com.acme.tool')).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it('keeps a document exactly: key order, nesting, non-ASCII text', async () => {
        const pkg = stored('com.acme.tool', ['1.0.0', '0.9.0', '1.0.0-beta.1']);
        pkg.document.readme = '# Tööl ✓ \u0000 nul\n\n```json\n{"a": "\\u0000"}\n```';
        pkg.document.time = { modified: '2024-01-02T03:04:05.678Z', created: '2024-01-01T00:00:00.000Z' };
        pkg.document['x-nested'] = { z: 1, a: [1, { b: null, a: false }], m: 1.5 };
        await store.updatePackage('', 'com.acme.tool', () => ({ next: pkg, result: null }));
        const back = await store.getPackage('', 'com.acme.tool');
        expect(JSON.stringify(back)).toBe(JSON.stringify(pkg));
        expect(Object.keys(back!.document.versions)).toEqual(['1.0.0', '0.9.0', '1.0.0-beta.1']);
      });

      it('keeps an unpublished package as a tombstone that listings leave out', async () => {
        await store.updatePackage('', 'com.acme.tool', () => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        const tombstone: StoredPackage = {
          document: { ...stored('com.acme.tool', []).document },
          publishedVersions: ['1.0.0'],
          unpublished: true,
        };
        await store.updatePackage('', 'com.acme.tool', () => ({ next: tombstone, result: null }));
        await store.updatePackage('', 'com.acme.live', () => ({ next: stored('com.acme.live', ['1.0.0']), result: null }));
        expect(await store.getPackage('', 'com.acme.tool')).toEqual(tombstone);
        expect(await store.listPackageNames('')).toEqual(['com.acme.live']);
        expect(await store.listPackageNames('', { includeUnpublished: true })).toEqual(['com.acme.live', 'com.acme.tool']);
      });

      it('lists the package names of one tenant in byte order', async () => {
        for (const name of ['com.b.x', 'com.a-b.x', 'com.a.x', 'com.a0.x']) {
          await store.updatePackage('', name, () => ({ next: stored(name, ['1.0.0']), result: null }));
        }
        await store.updatePackage('acme', 'com.z.x', () => ({ next: stored('com.z.x', ['1.0.0']), result: null }));
        expect(await store.listPackageNames('')).toEqual(['com.a-b.x', 'com.a.x', 'com.a0.x', 'com.b.x']);
        expect(await store.listPackageNames('acme')).toEqual(['com.z.x']);
        expect(await store.getPackage('acme', 'com.a.x')).toBeUndefined();
      });

      it('sees a write of another instance at once', async () => {
        const second = await open();
        await store.updatePackage('', 'com.acme.tool', () => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        expect(await second.getPackage('', 'com.acme.tool')).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it('20 concurrent updates of one package from two instances all land', async () => {
        const second = await open();
        const versions = Array.from({ length: 20 }, (_, i) => `1.0.${i}`);
        await Promise.all(
          versions.map((version, i) =>
            (i % 2 ? second : store).updatePackage('', 'com.acme.tool', async (current) => {
              // Yield between read and write, as a real publish does (hashing, blob upload).
              await new Promise((resolve) => setImmediate(resolve));
              return { next: addVersion(current, 'com.acme.tool', version), result: version };
            }),
          ),
        );
        const pkg = await store.getPackage('', 'com.acme.tool');
        expect(Object.keys(pkg!.document.versions).sort()).toEqual([...versions].sort());
        expect([...pkg!.publishedVersions].sort()).toEqual([...versions].sort());
      });

      it('runs mutations of one package one at a time (a mutation may write the tarball before the commit)', async () => {
        const instances = options.exclusiveAcrossInstances ? [store, await open()] : [store];
        let active = 0;
        let overlaps = 0;
        await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            instances[i % instances.length]!.updatePackage('', 'com.acme.tool', async (current) => {
              active++;
              if (active > 1) overlaps++;
              await new Promise((resolve) => setTimeout(resolve, 5));
              active--;
              return { next: addVersion(current, 'com.acme.tool', `3.0.${i}`), result: null };
            }),
          ),
        );
        expect(overlaps).toBe(0);
        expect(Object.keys((await store.getPackage('', 'com.acme.tool'))!.document.versions)).toHaveLength(8);
      });

      it('concurrent first publishes of one name from two instances: one creates, the other sees it', async () => {
        const second = await open();
        const outcomes = await Promise.all(
          [store, second, store, second].map((instance, i) =>
            instance.updatePackage('', 'com.acme.new', (current) =>
              current === undefined
                ? { next: stored('com.acme.new', [`${i}.0.0`]), result: 'created' }
                : { next: null, result: 'existed' },
            ),
          ),
        );
        expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
        expect(Object.keys((await store.getPackage('', 'com.acme.new'))!.document.versions)).toHaveLength(1);
      });

      it('concurrent updates of many packages do not block or mix each other', async () => {
        const second = await open();
        const names = Array.from({ length: 8 }, (_, i) => `com.acme.p${i}`);
        await Promise.all(
          names.flatMap((name) =>
            ['1.0.0', '1.1.0', '1.2.0'].map((version, i) =>
              (i % 2 ? second : store).updatePackage('acme', name, (current) => ({
                next: addVersion(current, name, version),
                result: null,
              })),
            ),
          ),
        );
        for (const name of names) {
          const pkg = await store.getPackage('acme', name);
          expect(Object.keys(pkg!.document.versions).sort()).toEqual(['1.0.0', '1.1.0', '1.2.0']);
          expect(pkg!.document.name).toBe(name);
        }
      });

      it('a failing writer does not hold up the others', async () => {
        const second = await open();
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? second : store).updatePackage('', 'com.acme.tool', (current) => {
              if (i === 2) throw new ProtocolError('FORBIDDEN', 'not a maintainer');
              return { next: addVersion(current, 'com.acme.tool', `2.0.${i}`), result: i };
            }),
          ),
        );
        expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
        const pkg = await store.getPackage('', 'com.acme.tool');
        expect(Object.keys(pkg!.document.versions).sort()).toEqual(['2.0.0', '2.0.1', '2.0.3', '2.0.4', '2.0.5']);
      });

      it('referencedBlobKeys names the blobs of every version of every tenant', async () => {
        await store.updatePackage('', 'com.acme.tool', () => ({
          next: stored('com.acme.tool', ['1.0.0', '1.1.0']),
          result: null,
        }));
        await store.updatePackage('acme', 'com.acme.tool', () => ({ next: stored('com.acme.tool', ['2.0.0']), result: null }));
        await store.updatePackage('', 'com.acme.none', () => ({ next: stored('com.acme.none', []), result: null }));
        expect([...(await store.referencedBlobKeys())].sort()).toEqual(
          [
            ...blobKeysOfVersion('', 'com.acme.tool', '1.0.0'),
            ...blobKeysOfVersion('', 'com.acme.tool', '1.1.0'),
            ...blobKeysOfVersion('acme', 'com.acme.tool', '2.0.0'),
          ].sort(),
        );
      });
    });
  });
}

export function user(name: string, overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    name,
    email: `${name}@example.com`,
    passwordHash: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==',
    createdAt: '2024-05-06T07:08:09.010Z',
    disabled: false,
    ...overrides,
  };
}

export function token(hash: string, userName: string): TokenRecord {
  return { hash, user: userName, createdAt: '2024-05-06T07:08:09.010Z', expiresAt: null, readonly: false };
}

export function tenant(name: string, settings: TenantRecord['settings'] = {}): TenantRecord {
  return { name, createdAt: '2024-05-06T07:08:09.010Z', settings };
}

export function stored(name: string, versions: string[]): StoredPackage {
  const document: PackageDocument = {
    _id: name,
    _rev: `${versions.length}-0123456789abcdef`,
    name,
    description: `${name} for tests`,
    'dist-tags': versions.length ? { latest: versions[0]! } : {},
    versions: {},
    time: {},
    maintainers: [{ name: 'ada', email: 'ada@example.com' }],
  };
  for (const version of versions) {
    document.versions[version] = {
      name,
      version,
      dist: { tarball: `${name}/-/${name}-${version}.tgz`, integrity: 'sha512-AAAA', shasum: '00' },
    };
  }
  return { document, publishedVersions: [...versions], unpublished: false };
}

function addVersion(current: StoredPackage | undefined, name: string, version: string): StoredPackage {
  const base = current ?? stored(name, []);
  const next = structuredClone(base);
  next.document.versions[version] = stored(name, [version]).document.versions[version]!;
  next.document['dist-tags'].latest = version;
  next.publishedVersions.push(version);
  return next;
}
