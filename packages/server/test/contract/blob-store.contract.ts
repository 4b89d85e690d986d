import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobKeyFor } from '../../src/storage/blob-keys.js';
import type { BlobStore } from '../../src/storage/ports.js';

/** A place for blobs for one test: `open` may be called several times (nodes sharing it). */
export interface BlobStoreLocation {
  open(): Promise<BlobStore>;
  destroy(): Promise<void>;
}

/** The definition of "a blob store works": every driver runs this suite on a fresh location. */
export function blobStoreContract(driver: string, freshLocation: () => Promise<BlobStoreLocation>): void {
  describe(`BlobStore contract: ${driver}`, () => {
    let location: BlobStoreLocation;
    let opened: BlobStore[];
    let store: BlobStore;

    async function open(): Promise<BlobStore> {
      const instance = await location.open();
      opened.push(instance);
      return instance;
    }

    beforeEach(async () => {
      location = await freshLocation();
      opened = [];
      store = await open();
    });

    afterEach(async () => {
      for (const instance of opened) await instance.close();
      await location.destroy();
    });

    it('stores and returns the exact bytes, with their size', async () => {
      const data = Buffer.concat([Buffer.from([0, 1, 2, 255, 0]), randomBytes(300_000)]);
      const key = blobKeyFor('', 'com.acme.tool', '1.0.0');
      await store.put(key, data);
      const blob = await store.get(key);
      expect(blob?.size).toBe(data.length);
      expect((await readAll(blob!.stream)).equals(data)).toBe(true);
      const info = await store.stat(key);
      expect(info?.size).toBe(data.length);
      expect(info?.modified).toBeInstanceOf(Date);
      expect(Number.isNaN(info!.modified.getTime())).toBe(false);
    });

    it('stores an empty blob', async () => {
      await store.put('t/empty.tgz', Buffer.alloc(0));
      const blob = await store.get('t/empty.tgz');
      expect(blob?.size).toBe(0);
      expect((await readAll(blob!.stream)).length).toBe(0);
    });

    it('answers undefined for a blob that is not there', async () => {
      expect(await store.get('_global/com.acme.none/com.acme.none-1.0.0.tgz')).toBeUndefined();
      expect(await store.stat('_global/com.acme.none/com.acme.none-1.0.0.tgz')).toBeUndefined();
    });

    it('reads a small blob whole with its size, and only the size of a larger one (readSmall, where the driver has it)', async () => {
      const read = store.readSmall?.bind(store);
      if (read === undefined) return;
      const small = randomBytes(3000);
      // Past any first read a driver may make of a blob, to see the rest read too.
      const larger = randomBytes(200_000);
      await store.put('t/small.tgz', small);
      await store.put('t/larger.tgz', larger);
      await store.put('t/empty.tgz', Buffer.alloc(0));
      const whole = await read('t/small.tgz', 1024 * 1024);
      expect(whole?.size).toBe(small.length);
      expect(whole?.bytes?.equals(small)).toBe(true);
      expect((await read('t/small.tgz', small.length))?.bytes?.equals(small)).toBe(true);
      expect(await read('t/small.tgz', small.length - 1)).toEqual({ size: small.length, bytes: undefined });
      expect((await read('t/larger.tgz', 1024 * 1024))?.bytes?.equals(larger)).toBe(true);
      expect(await read('t/larger.tgz', 100_000)).toEqual({ size: larger.length, bytes: undefined });
      const empty = await read('t/empty.tgz', 0);
      expect(empty?.size).toBe(0);
      expect(empty?.bytes?.length).toBe(0);
      expect(await read('_global/com.acme.none/com.acme.none-1.0.0.tgz', 1024)).toBeUndefined();
      // Replaced: the new bytes, never the old ones from something kept open.
      await store.put('t/small.tgz', Buffer.from('second'));
      expect((await read('t/small.tgz', 1024))?.bytes?.toString()).toBe('second');
    });

    it('replaces a blob whole when put again', async () => {
      await store.put('t/a.tgz', Buffer.from('first version, long content'));
      await store.put('t/a.tgz', Buffer.from('second'));
      const blob = await store.get('t/a.tgz');
      expect((await readAll(blob!.stream)).toString()).toBe('second');
      expect((await store.stat('t/a.tgz'))?.size).toBe(6);
    });

    it('deletes a blob; deleting a missing one is no error', async () => {
      await store.put('t/a.tgz', Buffer.from('x'));
      await store.delete('t/a.tgz');
      expect(await store.get('t/a.tgz')).toBeUndefined();
      await store.delete('t/a.tgz');
      await store.delete('t/never.tgz');
      expect(await keys(store)).toEqual([]);
    });

    it('lists every blob with its key and size, nothing else', async () => {
      expect(await keys(store)).toEqual([]);
      const blobs = {
        [blobKeyFor('', 'com.acme.tool', '1.0.0')]: 3,
        [blobKeyFor('', 'com.acme.tool', '1.0.1-beta.1')]: 5,
        [blobKeyFor('acme', 'com.acme.tool', '1.0.0')]: 7,
        [blobKeyFor('acme', 'com.other.x', '0.0.1')]: 1,
      };
      for (const [key, size] of Object.entries(blobs)) await store.put(key, randomBytes(size));
      const listed: Record<string, number> = {};
      for await (const blob of store.list()) {
        listed[blob.key] = blob.size;
        expect(blob.modified).toBeInstanceOf(Date);
      }
      expect(listed).toEqual(blobs);
    });

    it('a listing skips blobs deleted while it runs, without an error', async () => {
      const names = ['1.0.0', '1.0.1', '1.0.2', '1.0.3'].map((v) => blobKeyFor('', 'com.acme.tool', v));
      for (const key of names) await store.put(key, randomBytes(3));
      const listed: string[] = [];
      for await (const blob of store.list()) {
        // The first blob listed deletes every other one, as a rolled-back publish or a sweep would.
        if (listed.length === 0) for (const key of names) if (key !== blob.key) await store.delete(key);
        listed.push(blob.key);
      }
      expect(listed.length).toBeGreaterThanOrEqual(1);
      expect(listed.every((key) => names.includes(key))).toBe(true);
      expect(await keys(store)).toEqual([listed[0]]);
    });

    it('refuses keys that could escape the store, writing nothing', async () => {
      for (const key of ['', '../outside.tgz', 'a/../../b.tgz', 'a//b.tgz', './a.tgz', '/abs.tgz', 'a\\..\\b', 'a/b\0.tgz']) {
        await expect(store.put(key, Buffer.from('x')), key).rejects.toThrow();
      }
      await expect(store.get('../outside.tgz')).rejects.toThrow();
      expect(await keys(store)).toEqual([]);
    });

    it('shares blobs between instances on the same location', async () => {
      const second = await open();
      await store.put('t/shared.tgz', Buffer.from('shared bytes'));
      const blob = await second.get('t/shared.tgz');
      expect((await readAll(blob!.stream)).toString()).toBe('shared bytes');
      await second.delete('t/shared.tgz');
      expect(await store.stat('t/shared.tgz')).toBeUndefined();
    });

    it('concurrent puts of many blobs from two instances all land', async () => {
      const second = await open();
      const written = Array.from({ length: 30 }, (_, i) => [`t/p${i}/p${i}-1.0.0.tgz`, randomBytes(100 + i)] as const);
      await Promise.all(written.map(([key, data], i) => (i % 2 ? second : store).put(key, data)));
      expect(await keys(store)).toEqual(written.map(([key]) => key).sort());
      for (const [key, data] of written) {
        expect((await readAll((await store.get(key))!.stream)).equals(data)).toBe(true);
      }
    });

    it('an upload is invisible until committed, then whole; parts larger than a multipart part', async () => {
      const key = blobKeyFor('', 'com.acme.big', '1.0.0');
      const data = randomBytes(9 * 1024 * 1024 + 12_345);
      const upload = await store.upload(key);
      for (let at = 0; at < data.length; at += 1_000_000) await upload.write(data.subarray(at, at + 1_000_000));
      expect(await store.stat(key)).toBeUndefined();
      expect(await keys(store)).toEqual([]);
      await upload.commit();
      expect((await store.stat(key))?.size).toBe(data.length);
      expect((await readAll((await store.get(key))!.stream)).equals(data)).toBe(true);
    });

    it('a small upload is committed whole, replacing what was there', async () => {
      await store.put('t/a.tgz', Buffer.from('old bytes'));
      const upload = await store.upload('t/a.tgz');
      await upload.write(Buffer.from('new '));
      await upload.write(Buffer.from('bytes!'));
      expect((await readAll((await store.get('t/a.tgz'))!.stream)).toString()).toBe('old bytes');
      await upload.commit();
      expect((await readAll((await store.get('t/a.tgz'))!.stream)).toString()).toBe('new bytes!');
    });

    it('an aborted upload leaves nothing, also after a multipart part went out', async () => {
      for (const size of [100, 9 * 1024 * 1024]) {
        const upload = await store.upload('t/aborted.tgz');
        await upload.write(randomBytes(size));
        await upload.abort();
        await upload.abort();
        expect(await store.stat('t/aborted.tgz')).toBeUndefined();
      }
      expect(await keys(store)).toEqual([]);
    });

    it('refuses an upload to a key that could escape the store', async () => {
      await expect(store.upload('../outside.tgz')).rejects.toThrow();
    });

    it('reads byte ranges: first bytes, middle, suffix, up to the last byte', async () => {
      const data = randomBytes(100_000);
      await store.put('t/r.tgz', data);
      // Not `0-0`: the S3 test server (s3rver) reads an end of 0 as "to the end".
      for (const [start, end] of [
        [0, 1],
        [0, 99],
        [40_000, 59_999],
        [99_000, 99_999],
      ] as const) {
        const blob = await store.get('t/r.tgz', { start, end });
        expect(blob?.size).toBe(data.length);
        expect((await readAll(blob!.stream)).equals(data.subarray(start, end + 1))).toBe(true);
      }
      expect(await store.get('t/missing.tgz', { start: 0, end: 1 })).toBeUndefined();
    });

    it('concurrent puts of the same bytes under one key leave that blob whole', async () => {
      const second = await open();
      const data = randomBytes(200_000);
      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? second : store).put('t/same.tgz', data)));
      expect((await readAll((await store.get('t/same.tgz'))!.stream)).equals(data)).toBe(true);
      expect(await keys(store)).toEqual(['t/same.tgz']);
    });
  });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

async function keys(store: BlobStore): Promise<string[]> {
  const found: string[] = [];
  for await (const blob of store.list()) found.push(blob.key);
  return found.sort();
}
