import { ListMultipartUploadsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { rawRequest, startS3Server, type TestS3 } from '@pkg/testkit';
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
  it('aborts the incomplete multipart uploads under its prefix begun before the threshold', async () => {
    const store = new S3BlobStore(parseS3Url(`${server.url}&prefix=multipart/`));
    const neighbour = new S3BlobStore(parseS3Url(`${server.url}&prefix=neighbour/`));
    try {
      // Uploads a crash left: more than one part's bytes (a multipart upload begins), never committed.
      const crashed = await store.upload('_global/com.acme.big/com.acme.big-1.0.0.tgz');
      await crashed.write(Buffer.alloc(9 * 1024 * 1024, 1));
      const other = await neighbour.upload('_global/com.acme.big/com.acme.big-1.0.0.tgz');
      await other.write(Buffer.alloc(9 * 1024 * 1024, 2));
      const listUploads = async () => {
        const client = new S3Client({ region: 'us-east-1', endpoint: server.endpoint, forcePathStyle: true });
        try {
          const page = await client.send(new ListMultipartUploadsCommand({ Bucket: server.bucket }));
          return (page.Uploads ?? []).map((upload) => upload.Key).sort();
        } finally {
          client.destroy();
        }
      };
      await expect
        .poll(listUploads)
        .toEqual([
          'multipart/_global/com.acme.big/com.acme.big-1.0.0.tgz',
          'neighbour/_global/com.acme.big/com.acme.big-1.0.0.tgz',
        ]);

      // Younger than the threshold: maybe a publish in progress on some node.
      expect(await store.cleanIncompleteUploads(3600_000, new Date())).toEqual({ temporaryFiles: 0, incompleteUploads: 0 });
      const later = new Date(Date.now() + 2 * 3600_000);
      expect(await store.cleanIncompleteUploads(3600_000, later)).toEqual({ temporaryFiles: 0, incompleteUploads: 1 });
      expect(await listUploads()).toEqual(['neighbour/_global/com.acme.big/com.acme.big-1.0.0.tgz']);
      expect(await neighbour.cleanIncompleteUploads(3600_000, later)).toEqual({ temporaryFiles: 0, incompleteUploads: 1 });
      expect(await listUploads()).toEqual([]);
    } finally {
      await store.close();
      await neighbour.close();
    }
  });

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

describe('S3 request signing (the test server verifies SigV4 itself)', () => {
  it('every request of the driver carries a valid signature and signed body hash', async () => {
    const before = await server.signatureStats();
    const store = new S3BlobStore(parseS3Url(`${server.url}&prefix=signed/`));
    try {
      const key = 't/com.acme.signed/com.acme.signed-1.0.0 (copy)+.tgz';
      await store.put(key, Buffer.from('signed bytes'));
      const read = await store.get(key);
      const chunks: Buffer[] = [];
      for await (const chunk of read!.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('signed bytes');
      expect((await store.stat(key))?.size).toBe(12);
      const listed: string[] = [];
      for await (const blob of store.list()) listed.push(blob.key);
      expect(listed).toContain(key);
      await store.delete(key);
      await store.ping();
    } finally {
      await store.close();
    }
    const after = await server.signatureStats();
    expect(after.refusals).toEqual(before.refusals);
    expect(after.refused).toBe(before.refused);
    expect(after.verified).toBeGreaterThanOrEqual(before.verified + 6);
  });

  it('refuses a request signed with the wrong secret, a tampered body and an unsigned request', async () => {
    const before = await server.signatureStats();
    const wrong = new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' },
    });
    try {
      await expect(
        wrong.send(new PutObjectCommand({ Bucket: server.bucket, Key: 'forged.tgz', Body: Buffer.from('x') })),
      ).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    } finally {
      wrong.destroy();
    }
    // A signed request replayed with other bytes: the signature covers the body's hash.
    const right = new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    let captured: { headers: Record<string, string>; path: string } | undefined;
    right.middlewareStack.add(
      (next) => async (args) => {
        const req = args.request as { headers: Record<string, string>; path: string };
        captured = { headers: { ...req.headers }, path: req.path };
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    try {
      await right.send(new PutObjectCommand({ Bucket: server.bucket, Key: 'genuine.tgz', Body: Buffer.from('genuine') }));
    } finally {
      right.destroy();
    }
    // The same length, so that only the bytes differ.
    const tampered = await rawRequest(`${server.endpoint}${captured!.path}`, {
      method: 'PUT',
      headers: captured!.headers,
      body: 'genuin3',
    });
    expect(tampered.status).toBe(403);
    expect(tampered.body.toString()).toContain('XAmzContentSHA256Mismatch');
    const unsigned = await fetch(`${server.endpoint}/${server.bucket}/genuine.tgz`);
    expect(unsigned.status).toBe(403);
    const after = await server.signatureStats();
    expect(after.refused).toBe(before.refused + 3);
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
