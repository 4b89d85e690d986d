import { beforeEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '@pkg/protocol';
import type { MetadataStore, StoredPackage } from '../../src/storage/ports.js';
import { eachTestDatabase, type MetadataStoreDatabase } from './metadata-database.js';
import { addVersion, stored, tenant } from './metadata-fixtures.js';

export interface PackageStoreContractOptions {
  /**
   * Whether updates of one package never overlap even across store instances (processes).
   * PostgreSQL: yes (a lock). SQLite serves one process: only within an instance.
   */
  exclusiveAcrossInstances: boolean;
}

/**
 * The definition of "the per-package part of a metadata store works" (PackageStore and its
 * package handles): every driver runs this suite. Each test gets a fresh, empty database.
 */
export function packageStoreContract(
  driver: string,
  freshDatabase: () => Promise<MetadataStoreDatabase>,
  options: PackageStoreContractOptions,
): void {
  describe(`PackageStore contract: ${driver}`, () => {
    const stores = eachTestDatabase(freshDatabase);
    const open = stores.open;
    let store: MetadataStore;
    /** One package's versions as the store reads them for the sweep, sorted. */
    const versionsOf = async (tenantName: string, name: string) =>
      ((await store.versionsOfPackages(tenantName, [name])).get(name) ?? []).sort();
    beforeEach(() => {
      store = stores.store;
    });

    describe('packages', () => {
      // Writes to a tenant need the tenant (a deleted one takes none).
      beforeEach(async () => {
        for (const name of ['acme', 'other']) await store.accounts.tenants.create(tenant(name));
      });

      it('creates a package, returning the mutation result', async () => {
        expect(await store.package('', 'com.acme.tool').read()).toBeUndefined();
        const seen: (StoredPackage | undefined)[] = [];
        const result = await store.package('', 'com.acme.tool').update((current) => {
          seen.push(current);
          return { next: stored('com.acme.tool', ['1.0.0']), result: { ok: true } };
        });
        expect(result).toEqual({ ok: true });
        expect(seen).toEqual([undefined]);
        expect(asStored(await store.package('', 'com.acme.tool').read())).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it('a handle names its package and holds no snapshot: it reads and updates what is stored now', async () => {
        const handle = store.package('acme', 'com.acme.tool');
        expect([handle.tenant, handle.name]).toEqual(['acme', 'com.acme.tool']);
        expect(await handle.read()).toBeUndefined();
        await store.package('acme', 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        expect(asStored(await handle.read())).toEqual(stored('com.acme.tool', ['1.0.0']));
        const seen = await handle.update((current) => ({ next: addVersion(current, 'com.acme.tool', '1.1.0'), result: current }));
        expect(seen).toEqual(stored('com.acme.tool', ['1.0.0']));
        expect(await versionsOf('acme', 'com.acme.tool')).toEqual(['1.0.0', '1.1.0']);
        expect(await store.package('', 'com.acme.tool').read()).toBeUndefined();
      });

      it('concurrent updates through one kept handle run one at a time and all land', async () => {
        const handle = store.package('', 'com.acme.tool');
        let active = 0;
        let overlaps = 0;
        await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            handle.update(async (current) => {
              active++;
              if (active > 1) overlaps++;
              await new Promise((resolve) => setTimeout(resolve, 2));
              active--;
              return { next: addVersion(current, 'com.acme.tool', `4.0.${i}`), result: null };
            }),
          ),
        );
        expect(overlaps).toBe(0);
        expect(await versionsOf('', 'com.acme.tool')).toEqual(['4.0.0', '4.0.1', '4.0.2', '4.0.3', '4.0.4', '4.0.5']);
      });

      it('reads the versions of many packages of one tenant in one call, leaving out those with none', async () => {
        const write = (tenantName: string, name: string, versions: string[]) =>
          store.package(tenantName, name).update(() => ({ next: stored(name, versions), result: null }));
        await write('', 'com.acme.tool', ['1.0.0', '0.9.0', '1.0.0-beta.1']);
        await write('', 'com.acme.kit', ['3.0.0']);
        await write('', 'com.acme.none', []);
        await write('acme', 'com.acme.tool', ['2.0.0']);
        const sorted = (found: Map<string, string[]>) =>
          Object.fromEntries([...found].map(([name, versions]) => [name, [...versions].sort()]));
        const asked = ['com.acme.tool', 'com.acme.kit', 'com.acme.none', 'com.acme.missing'];
        expect(sorted(await store.versionsOfPackages('', asked))).toEqual({
          'com.acme.tool': ['0.9.0', '1.0.0', '1.0.0-beta.1'],
          'com.acme.kit': ['3.0.0'],
        });
        expect(sorted(await store.versionsOfPackages('acme', asked))).toEqual({ 'com.acme.tool': ['2.0.0'] });
        expect(await store.versionsOfPackages('other', asked)).toEqual(new Map());
        expect(await store.versionsOfPackages('', [])).toEqual(new Map());
        // As many names as the sweep asks for at once, and more.
        const many = Array.from({ length: 1000 }, (_, i) => `com.acme.pkg${i}`);
        expect(sorted(await store.versionsOfPackages('', [...many, 'com.acme.kit']))).toEqual({ 'com.acme.kit': ['3.0.0'] });
      });

      it('hands the mutation the package as stored', async () => {
        await store.package('', 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        const current = await store.package('', 'com.acme.tool').update((pkg) => ({ next: null, result: pkg }));
        expect(current).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it('changes nothing when the mutation answers next: null', async () => {
        const result = await store.package('', 'com.acme.tool').update(() => ({ next: null, result: 'nothing' }));
        expect(result).toBe('nothing');
        expect(await store.package('', 'com.acme.tool').read()).toBeUndefined();
        expect(await store.listPackageNames('')).toEqual([]);
      });

      it('changes nothing when the mutation throws, and passes the error on', async () => {
        await store.package('', 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        const error = new ProtocolError('CONFLICT', 'version 1.0.0 exists');
        await expect(
          store.package('', 'com.acme.tool').update(async () => {
            await Promise.resolve();
            throw error;
          }),
        ).rejects.toBe(error);
        expect(asStored(await store.package('', 'com.acme.tool').read())).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it.each(['update', 'writePackages'])('keeps a document exactly: key order, nesting, non-ASCII text (%s)', async (how) => {
        const pkg = stored('com.acme.tool', ['1.0.0', '0.9.0', '1.0.0-beta.1']);
        pkg.document.readme = '# Tööl ✓ \u0000 nul\n\n```json\n{"a": "\\u0000"}\n```';
        pkg.document.time = { modified: '2024-01-02T03:04:05.678Z', created: '2024-01-01T00:00:00.000Z' };
        pkg.document['x-nested'] = { z: 1, a: [1, { b: null, a: false }], m: 1.5 };
        if (how === 'update') await store.package('', 'com.acme.tool').update(() => ({ next: pkg, result: null }));
        else await store.writePackages('', [{ name: 'com.acme.tool', next: pkg }]);
        const back = asStored(await store.package('', 'com.acme.tool').read());
        expect(JSON.stringify(back)).toBe(JSON.stringify(pkg));
        expect(Object.keys(back!.document.versions)).toEqual(['1.0.0', '0.9.0', '1.0.0-beta.1']);
      });

      it('keeps an unpublished package as a tombstone that listings leave out', async () => {
        await store.package('', 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        const tombstone: StoredPackage = {
          document: { ...stored('com.acme.tool', []).document },
          publishedVersions: ['1.0.0'],
          unpublished: true,
        };
        await store.package('', 'com.acme.tool').update(() => ({ next: tombstone, result: null }));
        await store.package('', 'com.acme.live').update(() => ({ next: stored('com.acme.live', ['1.0.0']), result: null }));
        expect(asStored(await store.package('', 'com.acme.tool').read())).toEqual(tombstone);
        expect(await store.listPackageNames('')).toEqual(['com.acme.live']);
        expect(await store.listPackageNames('', { includeUnpublished: true })).toEqual(['com.acme.live', 'com.acme.tool']);
      });

      it('lists the package names of one tenant in byte order', async () => {
        for (const name of ['com.b.x', 'com.a-b.x', 'com.a.x', 'com.a0.x']) {
          await store.package('', name).update(() => ({ next: stored(name, ['1.0.0']), result: null }));
        }
        await store.package('acme', 'com.z.x').update(() => ({ next: stored('com.z.x', ['1.0.0']), result: null }));
        expect(await store.listPackageNames('')).toEqual(['com.a-b.x', 'com.a.x', 'com.a0.x', 'com.b.x']);
        expect(await store.listPackageNames('acme')).toEqual(['com.z.x']);
        expect(await store.package('acme', 'com.a.x').read()).toBeUndefined();
      });

      it('sees a write of another instance at once', async () => {
        const second = await open();
        await store.package('', 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['1.0.0']), result: null }));
        expect(asStored(await second.package('', 'com.acme.tool').read())).toEqual(stored('com.acme.tool', ['1.0.0']));
      });

      it('20 concurrent updates of one package from two instances all land', async () => {
        const second = await open();
        const versions = Array.from({ length: 20 }, (_, i) => `1.0.${i}`);
        await Promise.all(
          versions.map((version, i) =>
            (i % 2 ? second : store).package('', 'com.acme.tool').update(async (current) => {
              // Yield between read and write, as a real publish does (hashing, blob upload).
              await new Promise((resolve) => setImmediate(resolve));
              return { next: addVersion(current, 'com.acme.tool', version), result: version };
            }),
          ),
        );
        const pkg = await store.package('', 'com.acme.tool').read();
        expect(Object.keys(pkg!.document.versions).sort()).toEqual([...versions].sort());
        expect([...pkg!.publishedVersions].sort()).toEqual([...versions].sort());
      });

      it('runs mutations of one package one at a time (a mutation may write the tarball before the commit)', async () => {
        const instances = options.exclusiveAcrossInstances ? [store, await open()] : [store];
        let active = 0;
        let overlaps = 0;
        await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            instances[i % instances.length]!.package('', 'com.acme.tool').update(async (current) => {
              active++;
              if (active > 1) overlaps++;
              await new Promise((resolve) => setTimeout(resolve, 5));
              active--;
              return { next: addVersion(current, 'com.acme.tool', `3.0.${i}`), result: null };
            }),
          ),
        );
        expect(overlaps).toBe(0);
        expect(Object.keys((await store.package('', 'com.acme.tool').read())!.document.versions)).toHaveLength(8);
      });

      it('concurrent first publishes of one name from two instances: one creates, the other sees it', async () => {
        const second = await open();
        const outcomes = await Promise.all(
          [store, second, store, second].map((instance, i) =>
            instance
              .package('', 'com.acme.new')
              .update((current) =>
                current === undefined
                  ? { next: stored('com.acme.new', [`${i}.0.0`]), result: 'created' }
                  : { next: null, result: 'existed' },
              ),
          ),
        );
        expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
        expect(Object.keys((await store.package('', 'com.acme.new').read())!.document.versions)).toHaveLength(1);
      });

      it('concurrent updates of many packages do not block or mix each other', async () => {
        const second = await open();
        const names = Array.from({ length: 8 }, (_, i) => `com.acme.p${i}`);
        await Promise.all(
          names.flatMap((name) =>
            ['1.0.0', '1.1.0', '1.2.0'].map((version, i) =>
              (i % 2 ? second : store).package('acme', name).update((current) => ({
                next: addVersion(current, name, version),
                result: null,
              })),
            ),
          ),
        );
        for (const name of names) {
          const pkg = await store.package('acme', name).read();
          expect(Object.keys(pkg!.document.versions).sort()).toEqual(['1.0.0', '1.1.0', '1.2.0']);
          expect(pkg!.document.name).toBe(name);
        }
      });

      it('a failing writer does not hold up the others', async () => {
        const second = await open();
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? second : store).package('', 'com.acme.tool').update((current) => {
              if (i === 2) throw new ProtocolError('FORBIDDEN', 'not a maintainer');
              return { next: addVersion(current, 'com.acme.tool', `2.0.${i}`), result: i };
            }),
          ),
        );
        expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
        const pkg = await store.package('', 'com.acme.tool').read();
        expect(Object.keys(pkg!.document.versions).sort()).toEqual(['2.0.0', '2.0.1', '2.0.3', '2.0.4', '2.0.5']);
      });
    });

    describe('writePackages', () => {
      beforeEach(async () => {
        for (const name of ['acme', 'other']) await store.accounts.tenants.create(tenant(name));
      });

      it('writes new packages and replaces stored ones, of its tenant only, each read back as written', async () => {
        await store.package('acme', 'com.acme.old').update(() => ({ next: stored('com.acme.old', ['0.1.0']), result: null }));
        const before = (await store.package('acme', 'com.acme.old').read())?.revision;
        const tombstone = { ...stored('com.acme.gone', ['1.0.0']), unpublished: true };
        await store.writePackages('acme', [
          { name: 'com.acme.new', next: stored('com.acme.new', ['1.0.0', '1.1.0']) },
          { name: 'com.acme.old', next: stored('com.acme.old', ['0.1.0', '0.2.0']) },
          { name: 'com.acme.gone', next: tombstone },
        ]);
        expect(asStored(await store.package('acme', 'com.acme.new').read())).toEqual(stored('com.acme.new', ['1.0.0', '1.1.0']));
        expect(asStored(await store.package('acme', 'com.acme.old').read())).toEqual(stored('com.acme.old', ['0.1.0', '0.2.0']));
        expect(asStored(await store.package('acme', 'com.acme.gone').read())).toEqual(tombstone);
        expect(await store.listPackageNames('acme')).toEqual(['com.acme.new', 'com.acme.old']);
        expect(await store.listPackageNames('other')).toEqual([]);
        expect(await store.package('', 'com.acme.new').read()).toBeUndefined();
        // A write moves the revision on, as an update does (renders kept against the old one are stale).
        const after = (await store.package('acme', 'com.acme.old').read())?.revision;
        if (before !== undefined) expect(after).toBeGreaterThan(before);
        expect(await versionsOf('acme', 'com.acme.new')).toEqual(['1.0.0', '1.1.0']);
      });

      it('reads several packages of one tenant at once, as each is read, leaving out those there are not', async () => {
        await store.writePackages('acme', [
          { name: 'com.acme.one', next: stored('com.acme.one', ['1.0.0']) },
          { name: 'com.acme.gone', next: { ...stored('com.acme.gone', ['1.0.0']), unpublished: true } },
        ]);
        await store.package('other', 'com.acme.two').update(() => ({ next: stored('com.acme.two', ['2.0.0']), result: null }));
        const read = await store.readPackages('acme', ['com.acme.one', 'com.acme.gone', 'com.acme.two', 'com.acme.none']);
        expect([...read.keys()].sort()).toEqual(['com.acme.gone', 'com.acme.one']);
        for (const [name, pkg] of read) expect(pkg).toEqual(await store.package('acme', name).read());
        expect((await store.readPackages('acme', [])).size).toBe(0);
      });

      it('an update after it sees its write, and an empty list writes nothing', async () => {
        await store.writePackages('', []);
        expect(await store.listPackageNames('')).toEqual([]);
        await store.writePackages('', [{ name: 'com.acme.tool', next: stored('com.acme.tool', ['1.0.0']) }]);
        const seen = await store
          .package('', 'com.acme.tool')
          .update((current) => ({ next: addVersion(current, 'com.acme.tool', '1.1.0'), result: current }));
        expect(seen).toEqual(stored('com.acme.tool', ['1.0.0']));
        expect(await versionsOf('', 'com.acme.tool')).toEqual(['1.0.0', '1.1.0']);
      });

      it('refuses a name given twice, and a deleted tenant, writing nothing', async () => {
        await expect(
          store.writePackages('acme', [
            { name: 'com.acme.tool', next: stored('com.acme.tool', ['1.0.0']) },
            { name: 'com.acme.tool', next: stored('com.acme.tool', ['2.0.0']) },
          ]),
        ).rejects.toThrow(/named twice/);
        expect(await store.listPackageNames('acme')).toEqual([]);
        await store.accounts.tenants.delete('other');
        await expect(
          store.writePackages('other', [{ name: 'com.acme.tool', next: stored('com.acme.tool', ['1.0.0']) }]),
        ).rejects.toThrow();
        expect(await store.package('other', 'com.acme.tool').read()).toBeUndefined();
      });

      it('does not lose its write to an update whose mutation was running', async () => {
        await store.package('', 'com.acme.tool').update(() => ({ next: stored('com.acme.tool', ['0.1.0']), result: null }));
        let entered!: () => void;
        const inMutation = new Promise<void>((resolve) => (entered = resolve));
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const updating = store.package('', 'com.acme.tool').update(async (current) => {
          entered();
          await gate;
          return { next: addVersion(current, 'com.acme.tool', '2.0.0'), result: null };
        });
        await inMutation;
        const batch = store.writePackages('', [{ name: 'com.acme.tool', next: stored('com.acme.tool', ['1.0.0']) }]);
        // The batch is under way (or, where it waits for the update's lock, waiting) before the update goes on.
        await new Promise((resolve) => setTimeout(resolve, 50));
        release();
        await Promise.all([updating, batch]);
        // The update before the batch (the batch's state), or after it (the batch's, plus 2.0.0):
        // never the update's state made from what it read before the batch.
        expect([['1.0.0'], ['1.0.0', '2.0.0']]).toContainEqual(await versionsOf('', 'com.acme.tool'));
      });

      it('runs beside updates of the same packages from another instance, losing none', async () => {
        const second = await open();
        const names = Array.from({ length: 8 }, (_, i) => `com.acme.tool${i}`);
        await Promise.all([
          ...names.map((name) =>
            second.package('', name).update((current) => ({ next: addVersion(current, name, '2.0.0'), result: null })),
          ),
          store.writePackages(
            '',
            names.map((name) => ({ name, next: stored(name, ['1.0.0']) })),
          ),
        ]);
        for (const name of names) {
          const versions = await versionsOf('', name);
          // The batch replaces whatever it finds; an update after it adds to it.
          expect([['1.0.0'], ['1.0.0', '2.0.0']]).toContainEqual(versions);
        }
      });
    });
  });
}

/**
 * A read without what a driver may add to it: the size hint (StoredPackage.documentBytes), about
 * the size of the document's JSON when it is there, and the revision renders are kept against
 * (a positive whole number; the RenderStore contract checks that writes move it on).
 */
function asStored(pkg: StoredPackage | undefined): StoredPackage | undefined {
  if (pkg === undefined) return pkg;
  const { documentBytes, revision, ...rest } = pkg;
  if (documentBytes !== undefined) {
    const json = JSON.stringify(rest.document).length;
    expect(documentBytes).toBeGreaterThanOrEqual(json * 0.5);
    expect(documentBytes).toBeLessThanOrEqual(json * 2);
  }
  if (revision !== undefined) expect(Number.isInteger(revision) && revision > 0).toBe(true);
  return rest;
}
