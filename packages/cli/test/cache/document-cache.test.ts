import * as fs from 'node:fs/promises';
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachePolicy, DocumentCache, isFresh } from '../../src/http/document-cache.js';

const dirs: string[] = [];
async function cacheDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-doc-cache-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const REGISTRY = 'http://127.0.0.1:4873/';

describe('cachePolicy', () => {
  it.each([
    ['public, max-age=300', undefined, { store: true, maxAge: 300 }],
    ['public, max-age=300', '120', { store: true, maxAge: 180 }],
    ['max-age=60', '600', { store: true, maxAge: 0 }],
    ['no-cache, max-age=300', undefined, { store: true, maxAge: 0 }],
    ['private, no-store', undefined, { store: false, maxAge: 0 }],
    [undefined, undefined, { store: true, maxAge: 0 }],
  ])('Cache-Control %s with Age %s', (cacheControl, age, expected) => {
    expect(cachePolicy({ 'cache-control': cacheControl, age })).toEqual(expected);
  });
});

describe('DocumentCache', () => {
  it('keeps a document with its validators, fresh for max-age and no longer', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const cache = new DocumentCache(fs, await cacheDir(), () => now);
    await cache.store(
      REGISTRY,
      'com.a.b',
      { 'cache-control': 'max-age=300', etag: '"abc"', 'last-modified': 'x' },
      '{"name":"com.a.b"}',
    );
    const entry = (await cache.read(REGISTRY, 'com.a.b'))!;
    expect(entry).toMatchObject({ body: '{"name":"com.a.b"}', etag: '"abc"', lastModified: 'x', maxAge: 300 });
    now = new Date(now.getTime() + 299_000);
    expect(isFresh(entry, now)).toBe(true);
    now = new Date(now.getTime() + 1_000);
    expect(isFresh(entry, now)).toBe(false);
    // A 304 makes it fresh again from now.
    const again = await cache.revalidated(REGISTRY, 'com.a.b', entry, { 'cache-control': 'max-age=300' });
    expect(isFresh(again, now)).toBe(true);
    expect((await cache.read(REGISTRY, 'com.a.b'))!.storedAt).toBe(now.getTime());
    // A clock set back does not stretch it.
    expect(isFresh(again, new Date(now.getTime() - 1))).toBe(false);
  });

  it('stores nothing for no-store, forgets on request, and reads a damaged entry as a miss', async () => {
    const dir = await cacheDir();
    const cache = new DocumentCache(fs, dir, () => new Date());
    await cache.store(REGISTRY, 'com.a.b', { 'cache-control': 'no-store' }, '{}');
    expect(await cache.read(REGISTRY, 'com.a.b')).toBeNull();
    await cache.store(REGISTRY, 'com.a.b', { 'cache-control': 'max-age=300' }, '{}');
    expect(await cache.read(REGISTRY, 'com.a.b')).not.toBeNull();
    expect(await cache.read('http://127.0.0.1:4874/', 'com.a.b')).toBeNull();
    await cache.forget(REGISTRY, 'com.a.b');
    expect(await cache.read(REGISTRY, 'com.a.b')).toBeNull();
    await fs.mkdir(path.dirname(cache.fileOf(REGISTRY, 'com.a.c')!), { recursive: true });
    for (const damaged of ['', 'no newline', '{"v":2,"storedAt":1,"maxAge":1}\n{}', 'not json\n{}']) {
      await fs.writeFile(cache.fileOf(REGISTRY, 'com.a.c')!, damaged);
      expect(await cache.read(REGISTRY, 'com.a.c')).toBeNull();
    }
  });

  it('turns no name that is not a package name into a path', async () => {
    const cache = new DocumentCache(fs, await cacheDir(), () => new Date());
    for (const name of ['../../etc/passwd', 'a/b', '']) {
      expect(cache.fileOf(REGISTRY, name)).toBeNull();
      await cache.store(REGISTRY, name, { 'cache-control': 'max-age=300' }, '{}');
      expect(await cache.read(REGISTRY, name)).toBeNull();
    }
    await expect(readdir(cache.dir)).rejects.toThrow();
  });

  it('stays within its bound: a run that wrote removes the entries written longest ago', async () => {
    const cache = new DocumentCache(fs, await cacheDir(), () => new Date(), 10_000);
    const body = 'x'.repeat(1_000);
    const names = Array.from({ length: 15 }, (_, i) => `com.a.p${String(i).padStart(2, '0')}`);
    for (const [i, name] of names.entries()) {
      await cache.store(REGISTRY, name, { 'cache-control': 'max-age=300' }, body);
      // Written one second after another: the order pruning goes by.
      const t = new Date(Date.now() - (names.length - i) * 1000);
      await utimes(cache.fileOf(REGISTRY, name)!, t, t);
    }
    await cache.prune();
    const kept: string[] = [];
    for (const name of names) if (await cache.read(REGISTRY, name)) kept.push(name);
    // ~1,050 bytes an entry: down to 7,500 bytes or less, the newest kept.
    expect(kept).toEqual(names.slice(names.length - kept.length));
    expect(kept.length).toBeGreaterThan(3);
    expect(kept.length).toBeLessThanOrEqual(7);
    // Nothing written since: pruning again does nothing.
    await cache.prune();
    expect((await Promise.all(names.map((n) => cache.read(REGISTRY, n)))).filter(Boolean)).toHaveLength(kept.length);
  });
});
