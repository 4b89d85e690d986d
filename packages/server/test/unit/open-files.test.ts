import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenFileCache } from '../../src/storage/drivers/fs/open-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pkg-open-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readWhole(cache: OpenFileCache, file: string): Promise<string | undefined> {
  const open = await cache.acquire(file);
  if (!open) return undefined;
  try {
    const bytes = Buffer.alloc(open.size);
    await open.handle.read(bytes, 0, open.size, 0);
    return bytes.toString();
  } finally {
    cache.release(open);
  }
}

describe('OpenFileCache', () => {
  it('keeps files open for repeated reads and does not remember absent ones', async () => {
    const cache = new OpenFileCache(4);
    const file = path.join(dir, 'a.tgz');
    expect(await cache.acquire(file)).toBeUndefined();
    await writeFile(file, 'first');
    expect(await readWhole(cache, file)).toBe('first');
    const again = await cache.acquire(file);
    expect(again?.size).toBe(5);
    cache.release(again!);
    await cache.close();
  });

  it('never closes a file a reader holds; an evicted file is opened afresh', async () => {
    const cache = new OpenFileCache(4);
    const file = path.join(dir, 'b.tgz');
    await writeFile(file, 'old bytes');
    const held = await cache.acquire(file);
    cache.evict(file);
    await new Promise((resolve) => setImmediate(resolve));
    // Still readable by its holder.
    const bytes = Buffer.alloc(held!.size);
    await held!.handle.read(bytes, 0, held!.size, 0);
    expect(bytes.toString()).toBe('old bytes');
    cache.release(held!);
    await writeFile(file, 'new');
    expect(await readWhole(cache, file)).toBe('new');
    await cache.close();
  });

  it('stays within its bound, giving files read since the last pass a second chance', async () => {
    const cache = new OpenFileCache(2);
    const [x, y, z] = ['x', 'y', 'z'].map((name) => path.join(dir, `${name}.tgz`)) as [string, string, string];
    for (const file of [x, y, z]) await writeFile(file, path.basename(file));
    const use = async (file: string) => {
      const open = (await cache.acquire(file))!;
      cache.release(open);
      return open;
    };
    const firstX = await use(x);
    const firstY = await use(y);
    await use(x); // read again: x survives the next eviction, y goes
    await use(z);
    expect(firstY.evicted).toBe(true);
    expect(firstX.evicted).toBe(false);
    expect(await use(x)).toBe(firstX);
    expect(await use(y)).not.toBe(firstY);
    await cache.close();
  });
});
