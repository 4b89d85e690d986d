import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { assertValidBlobKey } from '../../blob-keys.js';
import type { BlobInfo, BlobStore, BlobUpload, ByteRange } from '../../ports.js';
import type { S3Location } from './s3-location.js';

/**
 * Size of the parts of a streamed upload (S3 wants at least 5 MiB but the last): an upload holds
 * the part it fills and the one in flight, 16 MiB at most, whatever the tarball's size.
 */
const PART_SIZE = 8 * 1024 * 1024;

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

  /**
   * A multipart upload, completed on commit (only then does the object exist); a blob smaller
   * than one part is sent as one PUT on commit instead.
   */
  async upload(key: string): Promise<BlobUpload> {
    return new S3Upload(this.#client, this.location.bucket, this.#objectKey(key));
  }

  async get(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined> {
    try {
      const res = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.location.bucket,
          Key: this.#objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const size = range ? totalOfContentRange(res.ContentRange) : undefined;
      return { stream: res.Body as Readable, size: size ?? res.ContentLength ?? 0 };
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

  /**
   * Aborts the multipart uploads under the store's prefix begun more than `olderThanMs` ago: a
   * publish or fetch that crashed (or whose abort failed) leaves its parts stored, and billed,
   * until then. Younger ones may be uploads in progress on any node.
   */
  async cleanIncompleteUploads(olderThanMs: number, now: Date): Promise<{ temporaryFiles: number; incompleteUploads: number }> {
    const { bucket, prefix } = this.location;
    let aborted = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.#client.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: prefix || undefined,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
          MaxUploads: this.#listPageSize,
        }),
      );
      for (const upload of page.Uploads ?? []) {
        if (upload.Key === undefined || upload.UploadId === undefined) continue;
        if (upload.Initiated === undefined || now.getTime() - upload.Initiated.getTime() < olderThanMs) continue;
        try {
          await this.#client.send(
            new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
          aborted++;
        } catch (err) {
          // Completed or aborted meanwhile by its own upload: nothing left to remove.
          if (!(err instanceof S3ServiceException && err.name === 'NoSuchUpload')) throw err;
        }
      }
      const more = page.IsTruncated === true;
      keyMarker = more ? page.NextKeyMarker : undefined;
      uploadIdMarker = more ? page.NextUploadIdMarker : undefined;
    } while (keyMarker !== undefined);
    return { temporaryFiles: 0, incompleteUploads: aborted };
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

/** `bytes 0-9/1234` → 1234. */
function totalOfContentRange(header: string | undefined): number | undefined {
  const match = header === undefined ? null : /\/(\d+)$/.exec(header);
  return match ? Number(match[1]) : undefined;
}

class S3Upload implements BlobUpload {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #key: string;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #uploadId: string | undefined;
  #parts: { PartNumber: number; ETag: string | undefined }[] = [];
  #inFlight: Promise<void> | undefined;
  #finished = false;
  #completed = false;

  constructor(client: S3Client, bucket: string, key: string) {
    this.#client = client;
    this.#bucket = bucket;
    this.#key = key;
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.#finished) throw new Error('the upload is finished');
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    if (this.#pendingBytes >= PART_SIZE) await this.#sendPart();
  }

  async commit(): Promise<void> {
    if (this.#finished) throw new Error('the upload is finished');
    this.#finished = true;
    if (this.#uploadId === undefined) {
      const body = Buffer.concat(this.#pending);
      this.#pending = [];
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: this.#key,
          Body: body,
          ContentLength: body.length,
          ContentType: 'application/octet-stream',
        }),
      );
      this.#completed = true;
      return;
    }
    if (this.#pendingBytes > 0) await this.#sendPart();
    await this.#inFlight;
    await this.#client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.#bucket,
        Key: this.#key,
        UploadId: this.#uploadId,
        MultipartUpload: { Parts: this.#parts },
      }),
    );
    this.#completed = true;
  }

  async abort(): Promise<void> {
    // After a commit that went through there is nothing to abort; after one that failed, the
    // upload may still be open.
    if (this.#completed) return;
    this.#finished = true;
    this.#pending = [];
    await this.#inFlight?.catch(() => undefined);
    if (this.#uploadId === undefined) return;
    const uploadId = this.#uploadId;
    this.#uploadId = undefined;
    // Best effort: parts of an upload never completed are no object; a bucket lifecycle rule
    // (AbortIncompleteMultipartUpload) removes what a failed abort or a crash leaves.
    await this.#client
      .send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: this.#key, UploadId: uploadId }))
      .catch(() => undefined);
  }

  /** Sends the pending bytes as the next part once the previous part is through (one in flight). */
  async #sendPart(): Promise<void> {
    const body = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    await this.#inFlight;
    if (this.#uploadId === undefined) {
      const created = await this.#client.send(
        new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key: this.#key, ContentType: 'application/octet-stream' }),
      );
      this.#uploadId = created.UploadId;
    }
    const partNumber = this.#parts.length + 1;
    const part = { PartNumber: partNumber, ETag: undefined as string | undefined };
    this.#parts.push(part);
    const sent = this.#client
      .send(
        new UploadPartCommand({
          Bucket: this.#bucket,
          Key: this.#key,
          UploadId: this.#uploadId,
          PartNumber: partNumber,
          Body: body,
          ContentLength: body.length,
        }),
      )
      .then((res) => {
        part.ETag = res.ETag;
      });
    // Its failure surfaces at the next write, commit or abort that waits for it.
    sent.catch(() => undefined);
    this.#inFlight = sent;
  }
}
