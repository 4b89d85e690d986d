import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/create-storage.js';
import type { RenderStore, StoredRender } from '../../src/storage/ports.js';
import { addVersion, tenant } from './metadata-fixtures.js';

/** A database for one test: `open` may be called twice (two nodes sharing it). */
export interface RenderStoreDatabase {
  open(): Promise<Pick<Storage, 'renders' | 'packages' | 'registry'>>;
  destroy(): Promise<void>;
}

function render(baseUrl: string, overrides: Partial<StoredRender> = {}): StoredRender {
  return {
    form: 'abbreviated',
    baseUrl,
    etag: '"etag-1"',
    lastModified: 1_700_000_000_123,
    size: 2048,
    coding: 'gzip',
    body: Buffer.from([0x1f, 0x8b, 0, 1, 2, 3, 255]),
    ...overrides,
  };
}

/** The render `readRenderOrPackage` answers, if any. */
async function renderOf(
  renders: RenderStore,
  ...args: Parameters<RenderStore['readRenderOrPackage']>
): Promise<StoredRender | undefined> {
  return (await renders.readRenderOrPackage(...args))?.render;
}

/** Every driver of RenderStore runs this suite on a fresh database. */
export function renderStoreContract(driver: string, freshDatabase: () => Promise<RenderStoreDatabase>): void {
  describe(`RenderStore contract: ${driver}`, () => {
    let database: RenderStoreDatabase;
    let opened: Pick<Storage, 'renders' | 'packages' | 'registry'>;
    let renders: RenderStore;

    beforeEach(async () => {
      database = await freshDatabase();
      opened = await database.open();
      renders = opened.renders!;
    });
    afterEach(async () => {
      await database.destroy();
    });

    /** Writes the package (a first publish or one more version) and answers its revision as a read tells it. */
    async function write(tenantName: string, name: string, version: string): Promise<number> {
      const handle = opened.packages.package(tenantName, name);
      await handle.update((current) => ({ next: addVersion(current, name, version), result: null }));
      return (await handle.read())!.revision!;
    }

    it('keeps a render of the package as read, and gives back exactly its bytes and facts', async () => {
      const revision = await write('', 'com.a.b', '1.0.0');
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test'));
      expect(await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://r.test')).toEqual(render('http://r.test'));
      const small = render('http://r.test', {
        form: 'full',
        coding: undefined,
        lastModified: undefined,
        size: 3,
        body: Buffer.from('{}\n'),
      });
      await renders.keepRender('', 'com.a.b', revision, small);
      expect(await renderOf(renders, '', 'com.a.b', 'full', 'http://r.test')).toEqual(small);
    });

    it('answers the package as a read of it does, with its revision, when it has no render of the form and base URL', async () => {
      const revision = await write('', 'com.a.b', '1.0.0');
      const read = await opened.packages.package('', 'com.a.b').read();
      expect(await renders.readRenderOrPackage('', 'com.a.b', 'abbreviated', 'http://r.test')).toEqual({ package: read });
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test'));
      expect(await renders.readRenderOrPackage('', 'com.a.b', 'full', 'http://r.test')).toEqual({ package: read });
      expect(await renders.readRenderOrPackage('', 'com.a.b', 'abbreviated', 'http://other.test')).toEqual({ package: read });
      expect((await renders.readRenderOrPackage('', 'com.a.b', 'full', 'http://r.test'))?.package?.revision).toBe(revision);
    });

    it('answers the render alone when there is one: not the package it was made from', async () => {
      const revision = await write('', 'com.a.b', '1.0.0');
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test'));
      const found = await renders.readRenderOrPackage('', 'com.a.b', 'abbreviated', 'http://r.test');
      expect(found).toEqual({ render: render('http://r.test') });
      expect(found?.package).toBeUndefined();
    });

    it('answers the package at its new revision after a write, and nothing of a package another registry has', async () => {
      const old = await write('', 'com.a.b', '1.0.0');
      await renders.keepRender('', 'com.a.b', old, render('http://r.test'));
      const next = await write('', 'com.a.b', '1.1.0');
      const found = await renders.readRenderOrPackage('', 'com.a.b', 'abbreviated', 'http://r.test');
      expect(found?.render).toBeUndefined();
      expect(found?.package?.revision).toBe(next);
      expect(Object.keys(found?.package?.document.versions ?? {})).toEqual(['1.0.0', '1.1.0']);
      expect(await renders.readRenderOrPackage('', 'com.a.none', 'abbreviated', 'http://r.test')).toBeUndefined();
      expect(await opened.registry.tenants.create(tenant('acme'))).toBe(true);
      const own = await write('acme', 'com.a.own', '1.0.0');
      await renders.keepRender('acme', 'com.a.own', own, render('http://r.test'));
      expect(await renders.readRenderOrPackage('', 'com.a.own', 'abbreviated', 'http://r.test')).toBeUndefined();
      expect(await renders.readRenderOrPackage('acme', 'com.a.b', 'abbreviated', 'http://r.test')).toBeUndefined();
    });

    it('answers nothing for another base URL, another package or a package never rendered', async () => {
      const revision = await write('', 'com.a.b', '1.0.0');
      await write('', 'com.a.c', '1.0.0');
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test'));
      expect(await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://other.test')).toBeUndefined();
      expect(await renderOf(renders, '', 'com.a.b', 'full', 'http://r.test')).toBeUndefined();
      expect(await renderOf(renders, '', 'com.a.c', 'abbreviated', 'http://r.test')).toBeUndefined();
      expect(await renderOf(renders, '', 'com.a.none', 'abbreviated', 'http://r.test')).toBeUndefined();
    });

    it('drops the renders of a package with any write of it', async () => {
      const revision = await write('', 'com.a.b', '1.0.0');
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test'));
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test', { form: 'full' }));
      const next = await write('', 'com.a.b', '1.1.0');
      expect(next).toBeGreaterThan(revision);
      expect(await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://r.test')).toBeUndefined();
      expect(await renderOf(renders, '', 'com.a.b', 'full', 'http://r.test')).toBeUndefined();
    });

    it('keeps nothing made from a revision the package has moved on from, or of a package that does not exist', async () => {
      const old = await write('', 'com.a.b', '1.0.0');
      await write('', 'com.a.b', '1.1.0');
      await renders.keepRender('', 'com.a.b', old, render('http://r.test'));
      expect(await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://r.test')).toBeUndefined();
      await renders.keepRender('', 'com.a.none', 1, render('http://r.test'));
      expect(await renderOf(renders, '', 'com.a.none', 'abbreviated', 'http://r.test')).toBeUndefined();
    });

    it("keeps one render of a form: the last kept, in place of another base URL's", async () => {
      const revision = await write('', 'com.a.b', '1.0.0');
      await renders.keepRender('', 'com.a.b', revision, render('http://first.test'));
      await renders.keepRender('', 'com.a.b', revision, render('http://second.test', { etag: '"etag-2"' }));
      expect(await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://first.test')).toBeUndefined();
      expect(await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://second.test')).toEqual(
        render('http://second.test', { etag: '"etag-2"' }),
      );
    });

    it("keeps each registry's renders apart, and forgets a deleted tenant's: a tenant made again reads none of them", async () => {
      expect(await opened.registry.tenants.create(tenant('acme'))).toBe(true);
      const own = await write('acme', 'com.a.b', '1.0.0');
      const global = await write('', 'com.a.b', '1.0.0');
      expect(own).toBe(global);
      await renders.keepRender('acme', 'com.a.b', own, render('http://acme.test', { etag: '"acme"' }));
      await renders.keepRender('', 'com.a.b', global, render('http://acme.test', { etag: '"global"' }));
      expect((await renderOf(renders, 'acme', 'com.a.b', 'abbreviated', 'http://acme.test'))?.etag).toBe('"acme"');
      expect((await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://acme.test'))?.etag).toBe('"global"');
      expect(await opened.registry.tenants.delete('acme')).toBe(true);
      expect(await opened.registry.tenants.create(tenant('acme', {}, 'acme-second'))).toBe(true);
      // The same name, the same first revision: only the dropped rows keep it from being served.
      expect(await write('acme', 'com.a.b', '1.0.0')).toBe(own);
      expect(await renderOf(renders, 'acme', 'com.a.b', 'abbreviated', 'http://acme.test')).toBeUndefined();
      expect((await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://acme.test'))?.etag).toBe('"global"');
    });

    it('keeps several renders at once on the terms of keepRender, each tenant its own', async () => {
      expect(await opened.registry.tenants.create(tenant('acme'))).toBe(true);
      const one = await write('', 'com.a.one', '1.0.0');
      const moved = await write('', 'com.a.moved', '1.0.0');
      await write('', 'com.a.moved', '1.1.0');
      const own = await write('acme', 'com.a.one', '1.0.0');
      const full = render('http://r.test', { form: 'full', etag: '"full"', coding: undefined, lastModified: undefined });
      await renders.keepRenders('', [
        { name: 'com.a.one', revision: one, render: render('http://r.test') },
        { name: 'com.a.one', revision: one, render: full },
        // Made from a revision the package has moved on from, and of a package there is not.
        { name: 'com.a.moved', revision: moved, render: render('http://r.test') },
        { name: 'com.a.none', revision: 1, render: render('http://r.test') },
      ]);
      await renders.keepRenders('', []);
      expect(await renderOf(renders, '', 'com.a.one', 'abbreviated', 'http://r.test')).toEqual(render('http://r.test'));
      expect(await renderOf(renders, '', 'com.a.one', 'full', 'http://r.test')).toEqual(full);
      expect(await renderOf(renders, '', 'com.a.moved', 'abbreviated', 'http://r.test')).toBeUndefined();
      expect(await renderOf(renders, '', 'com.a.none', 'abbreviated', 'http://r.test')).toBeUndefined();
      expect(await renderOf(renders, 'acme', 'com.a.one', 'abbreviated', 'http://r.test')).toBeUndefined();
      await renders.keepRenders('acme', [
        { name: 'com.a.one', revision: own, render: render('http://r.test', { etag: '"acme"' }) },
      ]);
      expect((await renderOf(renders, 'acme', 'com.a.one', 'abbreviated', 'http://r.test'))?.etag).toBe('"acme"');
      expect((await renderOf(renders, '', 'com.a.one', 'abbreviated', 'http://r.test'))?.etag).toBe('"etag-1"');
    });

    it('is seen by another node on the same database', async () => {
      const other = (await database.open()).renders!;
      const revision = await write('', 'com.a.b', '1.0.0');
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test'));
      expect(await renderOf(other, '', 'com.a.b', 'abbreviated', 'http://r.test')).toEqual(render('http://r.test'));
    });

    it('reads a tombstone as a package like any other: a whole unpublish is a write that drops the renders', async () => {
      const revision = await write('', 'com.a.b', '1.0.0');
      await renders.keepRender('', 'com.a.b', revision, render('http://r.test'));
      await opened.packages
        .package('', 'com.a.b')
        .update((current) => ({ next: { ...current!, unpublished: true }, result: null }));
      expect(await renderOf(renders, '', 'com.a.b', 'abbreviated', 'http://r.test')).toBeUndefined();
      expect((await renders.readRenderOrPackage('', 'com.a.b', 'abbreviated', 'http://r.test'))?.package?.unpublished).toBe(true);
    });
  });
}
