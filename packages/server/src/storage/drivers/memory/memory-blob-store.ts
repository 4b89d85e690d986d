import { Readable } from 'node:stream';
import { assertValidBlobKey } from '../../blob-keys.js';
import type { BlobInfo, BlobStore, BlobUpload, ByteRange, SmallBlob } from '../../ports.js';

/** The blobs of one memory store; several MemoryBlobStore objects on it share them (several nodes). */
export type MemoryBlobs = Map<string, { data: Buffer; modified: Date }>;

/** Tarballs in process memory, for tests of services and routes without files or S3. */
export class MemoryBlobStore implements BlobStore {
  readonly #blobs: MemoryBlobs;

  constructor(blobs: MemoryBlobs = new Map()) {
    this.#blobs = blobs;
  }

  async put(key: string, data: Buffer): Promise<void> {
    assertValidBlobKey(key);
    this.#blobs.set(key, { data: Buffer.from(data), modified: new Date() });
  }

  /** The pieces are kept aside and become the blob on commit. */
  async upload(key: string): Promise<BlobUpload> {
    assertValidBlobKey(key);
    let pieces: Buffer[] | undefined = [];
    return {
      write: async (chunk) => {
        if (!pieces) throw new Error('the upload is finished');
        pieces.push(Buffer.from(chunk));
      },
      commit: async () => {
        if (!pieces) throw new Error('the upload is finished');
        this.#blobs.set(key, { data: Buffer.concat(pieces), modified: new Date() });
        pieces = undefined;
      },
      abort: async () => {
        pieces = undefined;
      },
    };
  }

  async get(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined> {
    assertValidBlobKey(key);
    const blob = this.#blobs.get(key);
    if (!blob) return undefined;
    const bytes = range ? blob.data.subarray(range.start, range.end + 1) : blob.data;
    return { stream: Readable.from([bytes]), size: blob.data.length };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    assertValidBlobKey(key);
    const blob = this.#blobs.get(key);
    return blob && { size: blob.data.length, modified: blob.modified };
  }

  async readSmall(key: string, maxSize: number): Promise<SmallBlob | undefined> {
    assertValidBlobKey(key);
    const data = this.#blobs.get(key)?.data;
    return data && { size: data.length, bytes: data.length <= maxSize ? data : undefined };
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    this.#blobs.delete(key);
  }

  async *list(): AsyncIterable<{ key: string } & BlobInfo> {
    for (const key of [...this.#blobs.keys()].sort()) {
      const blob = this.#blobs.get(key);
      if (blob) yield { key, size: blob.data.length, modified: blob.modified };
    }
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}
