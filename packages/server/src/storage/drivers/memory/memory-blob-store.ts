import { Readable } from 'node:stream';
import { assertValidBlobKey } from '../../blob-keys.js';
import type { BlobInfo, BlobStore } from '../../ports.js';

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

  async get(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    assertValidBlobKey(key);
    const blob = this.#blobs.get(key);
    return blob && { stream: Readable.from([blob.data]), size: blob.data.length };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    assertValidBlobKey(key);
    const blob = this.#blobs.get(key);
    return blob && { size: blob.data.length, modified: blob.modified };
  }

  async readSmall(key: string): Promise<Buffer | undefined> {
    assertValidBlobKey(key);
    return this.#blobs.get(key)?.data;
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
