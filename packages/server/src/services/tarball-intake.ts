import { createHash, type Hash } from 'node:crypto';
import { payloadTooLarge, ProtocolError } from '@pkg/protocol';
import type { BlobUpload } from '../storage/ports.js';
import type { StringSink } from './attachment-scanner.js';
import { Base64Decoder } from './base64-decoder.js';
import { TarballInspector, type TarballFacts } from './tarball-validation.js';

export type DigestAlgorithm = 'sha512' | 'sha384' | 'sha256' | 'sha1';

/** A tarball attachment as it was received: what the document checks need to know of its bytes. */
export interface ReceivedTarball {
  /** False when the base64 text was not valid (then nothing else is known). */
  validBase64: boolean;
  /** Bytes the base64 decoded to. */
  length: number;
  /** `<algorithm>-<base64>` of the bytes, for each algorithm computed. */
  digests: Partial<Record<DigestAlgorithm, string>>;
  /** What the tar holds, or the problem found in it. */
  facts: TarballFacts | ProtocolError;
  /** The bytes, written but not visible yet (none when the file name names no version). */
  upload: BlobUpload | undefined;
}

export interface IntakeLimits {
  maxTarballSize: number;
  maxUnpackedSize: number;
  /** The registry's storage quota: refused as soon as the bytes pass what is left of it. */
  quota?: IntakeQuota | undefined;
}

/** What is left of a registry's storage quota for one tarball, and its refusal. */
export interface IntakeQuota {
  bytesLeft: number;
  refuse(bytes: number): Error;
}

/**
 * Takes one tarball attachment's base64 text as the scanner finds it: decodes it, counts and
 * hashes the bytes, checks the tar entries and writes the bytes to a blob upload, all piece by
 * piece. Passing the size limit is 413 at once; everything else is only recorded, for the
 * document checks to report in their usual order once the whole body is read.
 */
export class TarballIntake implements StringSink {
  readonly #limits: IntakeLimits;
  readonly #decoder = new Base64Decoder();
  readonly #hashes: [DigestAlgorithm, Hash][];
  readonly #inspector: TarballInspector;
  #upload: BlobUpload | undefined;
  #length = 0;
  #escapeInvalid = false;
  #received: ReceivedTarball | undefined;

  constructor(inspector: TarballInspector, upload: BlobUpload | undefined, algorithms: DigestAlgorithm[], limits: IntakeLimits) {
    this.#inspector = inspector;
    this.#upload = upload;
    this.#limits = limits;
    this.#hashes = algorithms.map((algorithm) => [algorithm, createHash(algorithm)]);
  }

  /** Set once the closing quote was read. */
  get received(): ReceivedTarball | undefined {
    return this.#received;
  }

  async text(chunk: string): Promise<void> {
    await this.#bytes(this.#decoder.push(chunk));
  }

  invalid(): void {
    this.#escapeInvalid = true;
  }

  async end(): Promise<void> {
    const { bytes, valid } = this.#decoder.end();
    await this.#bytes(bytes);
    const validBase64 = valid && !this.#escapeInvalid;
    let facts: TarballFacts | ProtocolError;
    try {
      facts = await this.#inspector.finish();
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      facts = err;
    }
    if (!validBase64 || facts instanceof ProtocolError) await this.discard();
    const digests: Partial<Record<DigestAlgorithm, string>> = {};
    for (const [algorithm, hash] of this.#hashes) digests[algorithm] = `${algorithm}-${hash.digest('base64')}`;
    this.#received = { validBase64, length: this.#length, digests, facts, upload: this.#upload };
  }

  /** Drops the upload (a failed publish, or one whose bytes are no use). */
  async discard(): Promise<void> {
    const upload = this.#upload;
    this.#upload = undefined;
    if (this.#received) this.#received.upload = undefined;
    await upload?.abort();
  }

  async #bytes(bytes: Buffer | undefined): Promise<void> {
    if (bytes === undefined || !this.#decoder.valid) return;
    this.#length += bytes.length;
    if (this.#length > this.#limits.maxTarballSize) {
      throw payloadTooLarge('tarball', this.#limits.maxTarballSize);
    }
    const quota = this.#limits.quota;
    if (quota && this.#length > quota.bytesLeft) throw quota.refuse(this.#length);
    for (const [, hash] of this.#hashes) hash.update(bytes);
    this.#inspector.write(bytes);
    if (this.#inspector.failure) await this.discard();
    await this.#upload?.write(bytes);
  }
}
