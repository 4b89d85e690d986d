import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { assertValidBlobKey } from '../../blob-keys.js';
import type { BlobInfo, BlobStore } from '../../ports.js';
import type { S3Location } from './s3-location.js';

/**
 * Tarballs as objects in an S3-compatible bucket. A PUT is atomic in S3, so a blob is visible
 * whole or not at all; the bucket must exist (creating buckets is the operator's business).
 */
export class S3BlobStore implements BlobStore {
  readonly location: S3Location;
  readonly #client: S3Client;
  readonly #listPageSize: number;

  constructor(location: S3Location, options: { listPageSize?: number } = {}) {
    this.location = location;
    this.#listPageSize = options.listPageSize ?? 1000;
    this.#client = new S3Client({
      region: location.region,
      forcePathStyle: location.forcePathStyle,
      ...(location.endpoint ? { endpoint: location.endpoint } : {}),
      // Checksums only where S3 requires them: several S3-compatible servers reject the newer
      // default trailing checksums; integrity is checked by the registry itself (sha512).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Readiness: the bucket answers. */
  async ping(): Promise<void> {
    await this.#client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.location.bucket,
        Key: this.#objectKey(key),
        Body: data,
        ContentLength: data.length,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async get(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    try {
      const res = await this.#client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.#objectKey(key) }));
      return { stream: res.Body as Readable, size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const res = await this.#client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.#objectKey(key) }));
      return { size: res.ContentLength ?? 0, modified: res.LastModified ?? new Date(0) };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.#objectKey(key) }));
  }

  async *list(): AsyncIterable<{ key: string } & BlobInfo> {
    const { bucket, prefix } = this.location;
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix || undefined,
          ContinuationToken: token,
          MaxKeys: this.#listPageSize,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield {
          key: object.Key.slice(prefix.length),
          size: object.Size ?? 0,
          modified: object.LastModified ?? new Date(0),
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  #objectKey(key: string): string {
    assertValidBlobKey(key);
    return this.location.prefix + key;
  }
}

function isNotFound(err: unknown): boolean {
  if (err instanceof S3ServiceException) {
    if (err.name === 'NoSuchBucket') return false;
    return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404;
  }
  return false;
}
