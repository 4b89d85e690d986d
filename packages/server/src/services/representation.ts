import { hash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip, gzipSync, gunzipSync } from 'node:zlib';
import type { StoredRender } from '../storage/ports.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Content codings the registry can send, in order of preference. */
export type ContentCoding = 'br' | 'gzip';
export const CONTENT_CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/** Bodies smaller than this are sent as they are: compressing them saves less than the headers. */
export const MIN_COMPRESS_SIZE = 1024;

/** Told when a compressed form of a representation has been made. */
export interface EncodedListener {
  encoded(bytes: number): void;
}

/**
 * One serialized response body with its validators, and its compressed forms computed on first
 * use, each exactly once however many requests ask at the same time.
 */
export class Representation {
  readonly contentType: string;
  /** Milliseconds since the epoch (a Date per cached document would cost more than the number). */
  readonly lastModified: number | undefined;
  /** Told the size of each compressed form once it exists (the cache counts those bytes). */
  onEncoded: EncodedListener | undefined;
  // One field per coding rather than maps: thousands of these stay in the document cache, and a
  // Map costs more than the small body it would describe. Each holds the compression in flight,
  // then its bytes.
  #br: Promise<Buffer> | Buffer | undefined;
  #gzip: Promise<Buffer> | Buffer | undefined;
  #brEtag: string | undefined;
  #gzipEtag: string | undefined;
  #lastModifiedHeader: string | undefined;
  /** The identity bytes, or how to make them on first use (see `stored`). */
  #body: Buffer | (() => Buffer);
  #etag: string | undefined;
  /** Bytes of the identity body, known before it is made. */
  readonly size: number;

  private constructor(parts: {
    body: Buffer | (() => Buffer);
    size: number;
    contentType: string;
    lastModified: number | undefined;
    etag?: string;
    gzip?: Buffer;
  }) {
    this.#body = parts.body;
    this.size = parts.size;
    this.contentType = parts.contentType;
    this.lastModified = parts.lastModified;
    this.#etag = parts.etag;
    this.#gzip = parts.gzip;
  }

  /** Compact JSON of `value`. */
  static json(value: unknown, contentType: string, lastModified?: Date): Representation {
    const body = unpooled(Buffer.from(JSON.stringify(value)));
    return new Representation({ body, size: body.length, contentType, lastModified: lastModified?.getTime() });
  }

  /**
   * A render a RenderStore kept: its gzip is the stored bytes, and the identity bytes are
   * inflated from them only when a client asks for them (`onEncoded` is told their size then).
   */
  static stored(render: StoredRender, contentType: string): Representation {
    const { size, etag, lastModified } = render;
    if (render.coding !== 'gzip') return new Representation({ body: render.body, size, contentType, lastModified, etag });
    const gzipped = render.body;
    return new Representation({
      body: () => unpooled(gunzipSync(gzipped)),
      size,
      contentType,
      lastModified,
      etag,
      gzip: gzipped,
    });
  }

  /**
   * What a RenderStore keeps of this: its gzip when the body is worth compressing (what clients
   * ask for; the identity bytes inflate from it), else the body itself.
   */
  async storable(): Promise<Pick<StoredRender, 'etag' | 'lastModified' | 'size' | 'coding' | 'body'>> {
    const { etag, lastModified, size } = this;
    if (size < MIN_COMPRESS_SIZE) return { etag, lastModified, size, coding: undefined, body: this.body };
    return { etag, lastModified, size, coding: 'gzip', body: await this.encode('gzip') };
  }

  /** Bytes this holds now: the identity body and the compressed forms made so far. */
  get heldBytes(): number {
    let bytes = Buffer.isBuffer(this.#body) ? this.#body.length : 0;
    if (Buffer.isBuffer(this.#gzip)) bytes += this.#gzip.length;
    if (Buffer.isBuffer(this.#br)) bytes += this.#br.length;
    return bytes;
  }

  /** The identity bytes. */
  get body(): Buffer {
    const body = this.#body;
    if (Buffer.isBuffer(body)) return body;
    const made = body();
    this.#body = made;
    this.onEncoded?.encoded(made.length);
    return made;
  }

  /** Strong validator of the identity bytes; compressed forms carry it with a coding suffix. */
  get etag(): string {
    return (this.#etag ??= `"${hash('sha256', this.body, 'base64url').slice(0, 32)}"`);
  }

  /** The body in `coding`; computed once, then shared. */
  encode(coding: ContentCoding): Promise<Buffer> {
    const known = coding === 'br' ? this.#br : this.#gzip;
    if (known !== undefined) return known instanceof Promise ? known : Promise.resolve(known);
    if (coding === 'gzip' && this.body.length <= SYNC_GZIP_MAX) {
      const bytes = gzipNow(this.body);
      this.#set(coding, bytes);
      this.onEncoded?.encoded(bytes.length);
      return Promise.resolve(bytes);
    }
    const pending = compress(this.body, coding);
    this.#set(coding, pending);
    void pending.then(
      (bytes) => {
        this.#set(coding, bytes);
        this.onEncoded?.encoded(bytes.length);
      },
      () => this.#set(coding, undefined),
    );
    return pending;
  }

  /** The body in `coding` if it was computed already (no promise to wait for). */
  encodedNow(coding: ContentCoding): Buffer | undefined {
    const known = coding === 'br' ? this.#br : this.#gzip;
    return known instanceof Promise ? undefined : known;
  }

  /** ETag of the body in `coding`: a different byte sequence needs a different strong validator. */
  etagFor(coding: ContentCoding | undefined): string {
    if (coding === undefined) return this.etag;
    if (coding === 'br') return (this.#brEtag ??= this.#codingEtag(coding));
    return (this.#gzipEtag ??= this.#codingEtag(coding));
  }

  /** `lastModified` as an HTTP date, formatted once. */
  get lastModifiedHeader(): string | undefined {
    if (this.lastModified === undefined) return undefined;
    return (this.#lastModifiedHeader ??= new Date(this.lastModified).toUTCString());
  }

  #set(coding: ContentCoding, state: Promise<Buffer> | Buffer | undefined): void {
    if (coding === 'br') this.#br = state;
    else this.#gzip = state;
  }

  #codingEtag(coding: ContentCoding): string {
    return `${this.etag.slice(0, -1)}-${coding}"`;
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

/**
 * Bodies up to this size are gzipped on the spot: for a document of a few KB zlib's own work is
 * 20–40 µs, and the asynchronous path around it (a stream, a trip to the thread pool and back)
 * cost 65–200 µs of CPU more, which every document built after a cache miss paid (bench/README.md,
 * issue 29). Larger ones (up to a few ms) go to the thread pool, so as not to stall other requests.
 */
const SYNC_GZIP_MAX = 16 * 1024;

/** Windows no larger than the body: a larger one finds no more matches in it, but each
 * compression would allocate (and fragment the heap with) state for the largest window. */
function gzipOptions(body: Buffer): { level: number; windowBits: number; memLevel: number } {
  const windowBits = windowFor(body.length + DEFLATE_LOOKAHEAD, 9, 15);
  return { level: GZIP_LEVEL, windowBits, memLevel: Math.max(1, Math.min(8, windowBits - 6)) };
}

function gzipNow(body: Buffer): Buffer {
  return unpooled(gzipSync(body, gzipOptions(body)));
}

async function compress(body: Buffer, coding: ContentCoding): Promise<Buffer> {
  if (coding === 'gzip') return unpooled(await gzipAsync(body, gzipOptions(body)));
  return unpooled(
    await brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        // Quality 11 costs seconds on a large document; 9 keeps most of the gain.
        [constants.BROTLI_PARAM_QUALITY]: 9,
        [constants.BROTLI_PARAM_LGWIN]: windowFor(body.length, constants.BROTLI_MIN_WINDOW_BITS, 22),
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  );
}

/**
 * zlib's default level. Level 9 made the same bytes for package documents and search answers of
 * 1 KB to 77 KB (bench/README.md, issue 29) at twice the CPU, which every document built
 * after a cache miss paid.
 */
const GZIP_LEVEL = 6;

/** deflate reaches back at most its window less this many bytes. */
const DEFLATE_LOOKAHEAD = 262;

/** log2 of the smallest power-of-two window holding `bytes`, within the codec's limits. */
function windowFor(bytes: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.ceil(Math.log2(bytes))));
}
