import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { startS3Server, type TestS3 } from '@pkg/testkit';
import { S3BlobStore } from '../../src/storage/drivers/s3/s3-blob-store.js';
import { parseS3Url } from '../../src/storage/drivers/s3/s3-location.js';
import { blobStoreContract } from './blob-store.contract.js';

let server: TestS3;
beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  await server.close();
});

let runs = 0;
blobStoreContract('S3 (s3rver)', async () => {
  // A fresh key prefix per test: the bucket is shared, the prefixes never meet.
  const url = `${server.url}&prefix=run${++runs}/`;
  return {
    open: async () => new S3BlobStore(parseS3Url(url)),
    async destroy() {
      const store = new S3BlobStore(parseS3Url(url));
      for await (const blob of store.list()) await store.delete(blob.key);
      await store.close();
    },
  };
});

describe('S3 blob store', () => {
  it('lists across pages', async () => {
    const store = new S3BlobStore(parseS3Url(`${server.url}&prefix=paged/`), { listPageSize: 3 });
    try {
      const written = Array.from({ length: 8 }, (_, i) => `t/k${i}.tgz`);
      for (const key of written) await store.put(key, Buffer.from(key));
      const listed: string[] = [];
      for await (const blob of store.list()) listed.push(blob.key);
      expect(listed.sort()).toEqual(written.sort());
    } finally {
      await store.close();
    }
  });

  it('answers readiness when the bucket exists, and fails when it does not', async () => {
    const store = new S3BlobStore(parseS3Url(server.url));
    const missing = new S3BlobStore(parseS3Url(server.url.replace(server.bucket, 'no-such-bucket')));
    try {
      await expect(store.ping()).resolves.toBeUndefined();
      await expect(missing.ping()).rejects.toThrow();
      await expect(missing.get('t/a.tgz')).rejects.toThrow();
    } finally {
      await store.close();
      await missing.close();
    }
  });
});

describe('s3:// storage URLs', () => {
  it('reads bucket, endpoint, region and prefix', () => {
    expect(parseS3Url('s3://my-bucket?endpoint=http://127.0.0.1:9000&region=eu-west-1&prefix=registry/')).toEqual({
      bucket: 'my-bucket',
      prefix: 'registry/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
    expect(parseS3Url('s3://my-bucket?region=eu-west-1')).toMatchObject({
      endpoint: undefined,
      forcePathStyle: false,
      prefix: '',
    });
  });

  it.each([
    ['s3://UPPER?region=x', 'bucket name'],
    ['s3://key:secret@my-bucket', 'AWS_ACCESS_KEY_ID'],
    ['s3://my-bucket?endpoint=ftp://x', 'endpoint'],
    ['s3://my-bucket?endpoint=http://x/path', 'endpoint'],
    ['s3://my-bucket?prefix=noslash', 'prefix'],
    ['s3://my-bucket?colour=blue', 'unknown'],
  ])('refuses %s', (url, fragment) => {
    expect(() => parseS3Url(url)).toThrow(ConfigError);
    expect(() => parseS3Url(url)).toThrow(fragment);
  });
});
