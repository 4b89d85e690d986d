import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/storage/drivers/fs/fs-blob-store.js';
import { blobStoreContract } from './blob-store.contract.js';

blobStoreContract('filesystem', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-fs-contract-'));
  return {
    async open() {
      const store = new FsBlobStore(dir);
      await store.init();
      return store;
    },
    destroy: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('FsBlobStore on a shared directory', () => {
  it("makes a package's directory on its first put, and again when it was removed from outside", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-fs-dirs-'));
    try {
      const store = new FsBlobStore(dir);
      await store.init();
      await store.put('com.example.a/com.example.a-1.0.0.tgz', Buffer.from('one'));
      await rm(path.join(dir, 'com.example.a'), { recursive: true });
      await store.put('com.example.a/com.example.a-1.0.1.tgz', Buffer.from('two'));
      expect(await readdir(path.join(dir, 'com.example.a'))).toEqual(['com.example.a-1.0.1.tgz']);
      expect((await store.readSmall('com.example.a/com.example.a-1.0.1.tgz', 1024))?.bytes?.toString()).toBe('two');
      expect(await readdir(path.join(dir, '.incoming'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cleans only temporary files older than the grace period (younger ones may be another node uploading)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-fs-temp-'));
    try {
      const store = new FsBlobStore(dir);
      await store.init();
      const incoming = path.join(dir, '.incoming');
      await writeFile(path.join(incoming, 'old.tmp'), 'x');
      await writeFile(path.join(incoming, 'young.tmp'), 'y');
      const now = new Date('2030-01-01T12:00:00Z');
      await utimes(path.join(incoming, 'old.tmp'), new Date('2030-01-01T10:00:00Z'), new Date('2030-01-01T10:00:00Z'));
      await utimes(path.join(incoming, 'young.tmp'), new Date('2030-01-01T11:59:00Z'), new Date('2030-01-01T11:59:00Z'));
      expect(await store.cleanTemporary(60 * 60 * 1000, now)).toBe(1);
      expect(await readdir(incoming)).toEqual(['young.tmp']);
      expect(await store.cleanTemporary(0, now)).toBe(1);
      expect(await readdir(incoming)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
