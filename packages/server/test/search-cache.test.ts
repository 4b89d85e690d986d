/** The SQLite search index's page cache never serves a stale page, in one process or several. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, loadConfig, type Storage } from '@pkg/server';
import { buildStoredPackage, seedPackage } from '@pkg/testkit';
import { parseSearchText } from '../src/search/search-query.js';

let dataDir: string;
let first: Storage;
let second: Storage;

async function open(searchCache: number): Promise<Storage> {
  return createStorage(loadConfig({ flags: { data: dataDir, searchCache: String(searchCache) }, env: {} }));
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-search-cache-'));
  // Two stores on one database file: two server processes sharing the embedded default.
  first = await open(20_000);
  second = await open(20_000);
});
afterAll(async () => {
  await first.close();
  await second.close();
  await rm(dataDir, { recursive: true, force: true });
});

const query = parseSearchText('shared');

describe('search result cache', () => {
  it('serves a repeated search from the cache, and a write of this process drops it', async () => {
    await seedPackage(first, buildStoredPackage('com.cache.one', { description: 'shared thing' }));
    const page = await first.search.search('', query, { size: 20, from: 0 });
    expect(page.total).toBe(1);
    expect(await first.search.search('', query, { size: 20, from: 0 })).toBe(page);
    await seedPackage(first, buildStoredPackage('com.cache.two', { description: 'shared too' }));
    expect((await first.search.search('', query, { size: 20, from: 0 })).total).toBe(2);
  });

  it('drops it when another process writes to the same database', async () => {
    expect((await first.search.search('', query, { size: 20, from: 0 })).total).toBe(2);
    await seedPackage(second, buildStoredPackage('com.cache.three', { description: 'shared as well' }));
    expect((await first.search.search('', query, { size: 20, from: 0 })).total).toBe(3);
    await second.metadata.updatePackage('', 'com.cache.one', (current) => ({
      next: { ...current!, unpublished: true },
      result: undefined,
    }));
    const names = (await first.search.search('', query, { size: 20, from: 0 })).hits.map((h) => h.name);
    expect(names.sort()).toEqual(['com.cache.three', 'com.cache.two']);
  });

  it('can be turned off (searchCache 0)', async () => {
    const uncached = await open(0);
    try {
      const a = await uncached.search.search('', query, { size: 20, from: 0 });
      const b = await uncached.search.search('', query, { size: 20, from: 0 });
      expect(b).not.toBe(a);
      expect(b).toEqual(a);
    } finally {
      await uncached.close();
    }
  });
});
