import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTarball,
  loginUser,
  publishBody,
  rawRequest,
  rawTar,
  request,
  startRegistry,
  storeSnapshot,
  type TestRegistry,
} from '@pkg/testkit';
import { FsBlobStore } from '../../src/storage/drivers/fs/fs-blob-store.js';
import type { UntypedJson } from '@pkg/testkit';

/**
 * Publishes stream into the blob store and large tarballs stream out of it, on the profile's
 * blob store (files on embedded, S3 on scale-out). Small limits make "large" cheap here; the
 * process test (test/process/large-package.test.ts) publishes a large package for real.
 */
const NAME = 'com.acme.large';
const MAX_TARBALL = 40 * 1024 * 1024;
let registry: TestRegistry;
let token: string;
let big: Buffer;
const downloads: string[] = [];

beforeAll(async () => {
  registry = await startRegistry({ settings: { maxTarballSize: MAX_TARBALL, tarballStreamThreshold: 4096 } });
  const recorder = registry.services.downloads;
  recorder.record = (tenant, name, version) => void downloads.push(`${tenant}|${name}@${version}`);
  token = await loginUser(registry.url, 'alice');
  // Over the S3 driver's part size (8 MiB): a multipart upload there.
  const published = publishBody(NAME, '1.0.0', {
    files: [{ path: 'Runtime/noise.bin', content: randomBytes(12 * 1024 * 1024) }],
  });
  big = published.tarball;
  const res = await request(`${registry.url}/${NAME}`, { method: 'PUT', token, body: published.body });
  expect(res.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await registry.close();
});

const url = () => `${registry.url}/${NAME}/-/${NAME}-1.0.0.tgz`;

/** Files of uploads in progress or left behind (the fs driver's temporary directory). */
async function leftovers(): Promise<string[]> {
  const blobs = registry.storage.blobs;
  // On S3 an upload never completed is no object: storeSnapshot's listing covers it.
  if (!(blobs instanceof FsBlobStore)) return [];
  return readdir(path.join(blobs.root, '.incoming'));
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition not reached in 5 s');
}

describe('downloading a streamed tarball', () => {
  it('sends the exact bytes with Accept-Ranges, and counts the download', async () => {
    downloads.length = 0;
    const res = await rawRequest(url());
    expect(res.status).toBe(200);
    expect(res.body.equals(big)).toBe(true);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-length']).toBe(String(big.length));
    expect(downloads).toEqual([`|${NAME}@1.0.0`]);
  });

  it.each([
    ['the first bytes', 'bytes=0-99', 0, 99],
    ['a middle part', 'bytes=5000000-5000999', 5_000_000, 5_000_999],
    ['an open end', `bytes=${12 * 1024 * 1024}-`, 12 * 1024 * 1024, -1],
    ['a suffix', 'bytes=-500', -500, -1],
    ['an end past the last byte', 'bytes=10-999999999999', 10, -1],
  ])('answers %s with 206 and Content-Range', async (_label, range, from, to) => {
    const start = from < 0 ? big.length + from : from;
    const end = to < 0 ? big.length - 1 : to;
    downloads.length = 0;
    const res = await rawRequest(url(), { headers: { range } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${big.length}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.body.equals(big.subarray(start, end + 1))).toBe(true);
    // Only a range from the first byte counts: a resumed download is not another one.
    expect(downloads).toHaveLength(start === 0 ? 1 : 0);
  });

  it.each([
    ['starts at the end', (size: number) => `bytes=${size}-`],
    ['starts far past the end', () => 'bytes=999999999-999999999999'],
    ['is an empty suffix', () => 'bytes=-0'],
  ])('answers a range that %s with 416 and Content-Range */size', async (_label, range) => {
    const res = await rawRequest(url(), { headers: { range: range(big.length) } });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${big.length}`);
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'RANGE_NOT_SATISFIABLE' });
  });

  it('ignores a range it does not read (several ranges) or whose If-Range is another version', async () => {
    const several = await rawRequest(url(), { headers: { range: 'bytes=0-1,5-6' } });
    expect(several.status).toBe(200);
    expect(several.body.length).toBe(big.length);
    const stale = await rawRequest(url(), { headers: { range: 'bytes=0-1', 'if-range': '"sha512-other"' } });
    expect(stale.status).toBe(200);
    const etag = String(several.headers.etag);
    const current = await rawRequest(url(), { headers: { range: 'bytes=0-1', 'if-range': etag } });
    expect(current.status).toBe(206);
  });

  it('answers If-None-Match with 304 and HEAD with the headers only', async () => {
    const head = await rawRequest(url(), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.headers['content-length']).toBe(String(big.length));
    const again = await rawRequest(url(), { headers: { 'if-none-match': String(head.headers.etag), range: 'bytes=0-9' } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('reads a small tarball whole: no Accept-Ranges, Range ignored', async () => {
    const registrySmall = await startRegistry({ settings: { tarballStreamThreshold: 1024 * 1024 } });
    try {
      const owner = await loginUser(registrySmall.url, 'bob');
      const { body, tarball } = publishBody('com.acme.small', '1.0.0');
      expect((await request(`${registrySmall.url}/com.acme.small`, { method: 'PUT', token: owner, body })).status).toBe(201);
      const res = await rawRequest(`${registrySmall.url}/com.acme.small/-/com.acme.small-1.0.0.tgz`, {
        headers: { range: 'bytes=0-9' },
      });
      expect(res.status).toBe(200);
      expect(res.headers['accept-ranges']).toBeUndefined();
      expect(res.body.equals(tarball)).toBe(true);
    } finally {
      await registrySmall.close();
    }
  });
});

describe('a streamed publish that fails stores nothing', () => {
  const VERSION = '2.0.0';
  const tarballOf = (content: Buffer) => buildTarball({ name: NAME, version: VERSION }, [{ path: 'Runtime/noise.bin', content }]);

  async function expectNothingStored(send: () => Promise<{ status: number; body: UntypedJson }>, status: number, code: string) {
    const before = await storeSnapshot(registry, [NAME]);
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await storeSnapshot(registry, [NAME])).toEqual(before);
    expect(await leftovers()).toEqual([]);
    return res;
  }

  it('bad integrity: 422, no blob, nothing committed', async () => {
    const { body } = publishBody(NAME, VERSION, { tarball: tarballOf(randomBytes(3 * 1024 * 1024)) });
    body.versions[VERSION]!.dist.integrity = `sha512-${randomBytes(64).toString('base64')}`;
    await expectNothingStored(() => request(`${registry.url}/${NAME}`, { method: 'PUT', token, body }), 422, 'VALIDATION_ERROR');
  });

  it('wrong length: 422, no blob, nothing committed', async () => {
    const { body, filename } = publishBody(NAME, VERSION, { tarball: tarballOf(randomBytes(3 * 1024 * 1024)) });
    body._attachments[filename]!.length -= 1;
    await expectNothingStored(() => request(`${registry.url}/${NAME}`, { method: 'PUT', token, body }), 422, 'VALIDATION_ERROR');
  });

  it('a broken tar entry: 422, no blob, nothing committed', async () => {
    const tar = rawTar([
      { path: 'package/package.json', content: JSON.stringify({ name: NAME, version: VERSION }) },
      { path: 'package/../../escape.txt', content: randomBytes(2 * 1024 * 1024) },
    ]);
    const { body } = publishBody(NAME, VERSION, { tarball: gzipSync(tar) });
    const res = await expectNothingStored(
      () => request(`${registry.url}/${NAME}`, { method: 'PUT', token, body }),
      422,
      'VALIDATION_ERROR',
    );
    expect(res.body.details).toContain("'..'");
  });

  it('a body over the limit: 413 before the client has sent it all, and the connection closed', async () => {
    const before = await storeSnapshot(registry, [NAME]);
    const chunk = Buffer.alloc(1024 * 1024, 'A');
    let sent = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${registry.url}/${NAME}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (err) => (sent > 0 ? undefined : reject(err)));
      req.write(`{"name":"${NAME}","_attachments":{"${NAME}-${VERSION}.tgz":{"data":"`);
      const pump = () => {
        // Far more than the limit (4/3 of 40 MiB + 1 MiB) if the server read it all.
        while (sent < 200 * 1024 * 1024 && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
      };
      pump();
    });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(200 * 1024 * 1024);
    expect(await storeSnapshot(registry, [NAME])).toEqual(before);
    await eventually(async () => (await leftovers()).length === 0);
  });

  it('a large body of a user who may not publish the package is refused 403 before it is read', async () => {
    const mallory = await loginUser(registry.url, 'mallory');
    const before = await storeSnapshot(registry, [NAME]);
    const total = 30 * 1024 * 1024;
    let sent = 0;
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${registry.url}/${NAME}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${mallory}`, 'content-type': 'application/json', 'content-length': String(total) },
      });
      req.on('response', (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      req.on('error', (err) => (sent > 0 ? undefined : reject(err)));
      const chunk = Buffer.alloc(256 * 1024, 'A');
      const pump = () => {
        while (sent < total && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
      };
      pump();
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'FORBIDDEN' });
    expect(sent).toBeLessThan(total);
    expect(await storeSnapshot(registry, [NAME])).toEqual(before);
    expect(await leftovers()).toEqual([]);
  });

  it('a small body refused before it is read still gets its answer on a connection kept open', async () => {
    const { body } = publishBody(NAME, VERSION);
    const res = await rawRequest(`${registry.url}/${NAME}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(res.headers.connection).not.toBe('close');
  });

  it('a client that disconnects mid-upload leaves no blob and commits nothing', async () => {
    const before = await storeSnapshot(registry, [NAME]);
    const { body } = publishBody(NAME, VERSION, { tarball: tarballOf(randomBytes(6 * 1024 * 1024)) });
    const text = Buffer.from(JSON.stringify(body));
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${registry.url}/${NAME}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(text.length) },
      });
      req.on('error', () => resolve());
      req.write(text.subarray(0, Math.floor(text.length / 2)), () => {
        setTimeout(() => {
          // On files, the upload in progress is there to be removed.
          const inProgress = registry.storage.blobs instanceof FsBlobStore ? leftovers() : Promise.resolve([undefined]);
          inProgress
            .then((found) => {
              expect(found).toHaveLength(1);
              req.destroy();
              resolve();
            })
            .catch(reject);
        }, 300);
      });
    });
    await eventually(async () => (await leftovers()).length === 0);
    expect(await storeSnapshot(registry, [NAME])).toEqual(before);
    // The same version can still be published whole afterwards.
    const res = await request(`${registry.url}/${NAME}`, { method: 'PUT', token, body });
    expect(res.status).toBe(201);
  });

  it('a gzip-encoded publish body streams too', async () => {
    const { body, tarball } = publishBody(NAME, '3.0.0', { files: [{ path: 'a.bin', content: randomBytes(1024 * 1024) }] });
    const res = await request(`${registry.url}/${NAME}`, {
      method: 'PUT',
      token,
      rawBody: gzipSync(JSON.stringify(body)),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(201);
    const back = await rawRequest(`${registry.url}/${NAME}/-/${NAME}-3.0.0.tgz`);
    expect(back.body.equals(tarball)).toBe(true);
    expect(await leftovers()).toEqual([]);
  });
});
