import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Content codings the registry can send, in order of preference. */
export type ContentCoding = 'br' | 'gzip';
export const CONTENT_CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/** Bodies smaller than this are sent as they are: compressing them saves less than the headers. */
export const MIN_COMPRESS_SIZE = 1024;

/**
 * One serialized response body with its validators, and its compressed forms computed on first
 * use, each exactly once however many requests ask at the same time.
 */
export class Representation {
  readonly body: Buffer;
  readonly contentType: string;
  /** Strong validator of the identity bytes; compressed forms carry it with a coding suffix. */
  readonly etag: string;
  readonly lastModified: Date | undefined;
  /** Told the size of each compressed form once it exists (the cache counts those bytes). */
  onEncoded: ((bytes: number) => void) | undefined;
  readonly #encoded = new Map<ContentCoding, Promise<Buffer>>();
  readonly #ready = new Map<ContentCoding, Buffer>();
  readonly #etags = new Map<ContentCoding, string>();
  #lastModifiedHeader: string | undefined;

  constructor(body: Buffer, contentType: string, lastModified: Date | undefined) {
    this.body = body;
    this.contentType = contentType;
    this.lastModified = lastModified;
    this.etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  }

  /** Compact JSON of `value`. */
  static json(value: unknown, contentType: string, lastModified?: Date): Representation {
    return new Representation(unpooled(Buffer.from(JSON.stringify(value))), contentType, lastModified);
  }

  /** The body in `coding`; computed once, then shared. */
  encode(coding: ContentCoding): Promise<Buffer> {
    let pending = this.#encoded.get(coding);
    if (!pending) {
      pending = compress(this.body, coding);
      this.#encoded.set(coding, pending);
      void pending.then(
        (bytes) => {
          this.#ready.set(coding, bytes);
          this.onEncoded?.(bytes.length);
        },
        () => this.#encoded.delete(coding),
      );
    }
    return pending;
  }

  /** The body in `coding` if it was computed already (no promise to wait for). */
  encodedNow(coding: ContentCoding): Buffer | undefined {
    return this.#ready.get(coding);
  }

  /** ETag of the body in `coding`: a different byte sequence needs a different strong validator. */
  etagFor(coding: ContentCoding | undefined): string {
    if (coding === undefined) return this.etag;
    let etag = this.#etags.get(coding);
    if (etag === undefined) this.#etags.set(coding, (etag = `${this.etag.slice(0, -1)}-${coding}"`));
    return etag;
  }

  /** `lastModified` as an HTTP date, formatted once. */
  get lastModifiedHeader(): string | undefined {
    if (this.lastModified === undefined) return undefined;
    return (this.#lastModifiedHeader ??= this.lastModified.toUTCString());
  }
}

/**
 * Small buffers are cut from Buffer's shared 8 KiB pool: a cached one would keep its whole slab
 * alive. Bodies that stay in the document cache get their own memory.
 */
function unpooled(bytes: Buffer): Buffer {
  if (bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(copy);
  return copy;
}

async function compress(body: Buffer, coding: ContentCoding): Promise<Buffer> {
  if (coding === 'gzip') return unpooled(await gzipAsync(body, { level: 9 }));
  return unpooled(
    await brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        // Quality 11 costs seconds on a large document; 9 keeps most of the gain.
        [constants.BROTLI_PARAM_QUALITY]: 9,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  );
}
