import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobKeyFor, sigstoreKeyFor } from '../../src/storage/blob-keys.js';
import { FsBlobStore, TEMP_DIR } from '../../src/storage/drivers/fs/fs-blob-store.js';
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

describe('FsBlobStore.listKeyGroups', () => {
  it('lists every key list() does, a directory per group, a package’s keys together', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-fs-groups-'));
    try {
      const store = new FsBlobStore(dir);
      await store.init();
      const tool = [
        blobKeyFor('', 'com.acme.tool', '1.0.0'),
        blobKeyFor('', 'com.acme.tool', '1.0.1'),
        sigstoreKeyFor('', 'com.acme.tool', '1.0.1'),
      ];
      const keys = [
        ...tool,
        blobKeyFor('', 'com.acme.kit', '2.0.0'),
        blobKeyFor('acme', 'com.acme.tool', '1.0.0'),
        '_global/loose.tgz',
        '_global/com.acme.kit/nested/deeper.tgz',
        'stray.tgz',
      ];
      // More packages, and more files, than a directory is read at a time.
      for (let i = 0; i < 300; i++) keys.push(blobKeyFor('other', `com.acme.pkg${i}`, '1.0.0'), `other/loose${i}.tgz`);
      for (const key of keys) await store.put(key, Buffer.from(key));
      // An upload in progress is no blob.
      await writeFile(path.join(dir, TEMP_DIR, 'in-flight.tmp'), 'half');
      const groups: string[][] = [];
      for await (const group of store.listKeyGroups()) groups.push([...group]);
      const listed: string[] = [];
      for await (const blob of store.list()) listed.push(blob.key);
      expect(groups.flat().sort()).toEqual([...keys].sort());
      expect(listed.sort()).toEqual([...keys].sort());
      for (const group of groups) {
        expect(group.length).toBeGreaterThan(0);
        expect(new Set(group.map((key) => key.slice(0, key.lastIndexOf('/') + 1))).size).toBe(1);
      }
      expect(groups.find((group) => group.includes(tool[0]!))?.sort()).toEqual([...tool].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Counted as the process's open descriptors, where the system lists them.
  it.skipIf(!existsSync('/proc/self/fd'))('closes the directories it reads when the listing is left early', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-fs-groups-'));
    try {
      const store = new FsBlobStore(dir);
      await store.init();
      for (let i = 0; i < 5; i++) await store.put(blobKeyFor('', `com.acme.pkg${i}`, '1.0.0'), Buffer.from('x'));
      const openBefore = (await readdir('/proc/self/fd')).length;
      for (let round = 0; round < 20; round++) {
        for await (const _group of store.listKeyGroups()) break;
      }
      expect((await readdir('/proc/self/fd')).length).toBeLessThanOrEqual(openBefore);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
