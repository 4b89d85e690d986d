import type { ReadEntry } from 'tar';
import { ProtocolError } from '@pkg/protocol';

/** What a valid package tarball holds, as far as the registry cares. */
export interface TarballFacts {
  /** `package/package.json`, parsed. */
  manifest: Record<string, unknown>;
  /** Regular files in the archive (npm's `dist.fileCount`). */
  fileCount: number;
  /** Sum of the file sizes (npm's `dist.unpackedSize`). */
  unpackedSize: number;
  /** Whether `package/npm-shrinkwrap.json` is present (npm's `_hasShrinkwrap`). */
  hasShrinkwrap: boolean;
  /**
   * Unity's package signature, `package/.attestation.p7m`: its bytes (up to 1 MiB), `true` when
   * it is larger, undefined when the package has none.
   */
  unitySignature?: Buffer | true;
}

export interface TarballLimits {
  /** Refuse archives whose files add up to more than this many bytes (zip bombs). */
  maxUnpackedSize: number;
}

const MANIFEST_PATH = 'package/package.json';
const SHRINKWRAP_PATH = 'package/npm-shrinkwrap.json';
const MAX_MANIFEST_SIZE = 1024 * 1024;
const UNITY_SIGNATURE_PATH = 'package/.attestation.p7m';
const MAX_UNITY_SIGNATURE_SIZE = 1024 * 1024;

/**
 * Reads a publish tarball without extracting it: it must be a gzip-compressed tar, every path
 * must stay inside the archive (no absolute paths, no `..`), and `package/package.json` must be
 * present and parse as an object. Anything else is 422 VALIDATION_ERROR.
 */
export async function inspectTarball(bytes: Buffer, limits: TarballLimits): Promise<TarballFacts> {
  const inspector = await TarballInspector.create(limits);
  inspector.write(bytes);
  return inspector.finish();
}

/**
 * The same checks as `inspectTarball`, on a tarball that arrives in pieces: write each piece as
 * it comes (nothing but `package/package.json` is kept), then `finish`. After the first problem
 * the rest is ignored and `finish` rejects with it; `failure` tells it early.
 */
export class TarballInspector {
  readonly #limits: TarballLimits;
  readonly #parser: import('tar').Parser;
  #head: Buffer | undefined = Buffer.alloc(0);
  #failure: ProtocolError | undefined;
  #ended = false;
  readonly #done: Promise<void>;
  #fileCount = 0;
  #unpackedSize = 0;
  #manifestText: string | undefined;
  #manifestSeen = false;
  #hasShrinkwrap = false;
  #unitySignature: Buffer | true | undefined;

  private constructor(limits: TarballLimits, Parser: typeof import('tar').Parser) {
    this.#limits = limits;
    this.#parser = new Parser({
      strict: true,
      // The registry never writes these files anywhere; only the ratio guard matters here.
      maxDecompressionRatio: 1000,
    });
    this.#done = new Promise<void>((resolve) => {
      this.#parser.on('end', () => resolve());
      this.#settle = resolve;
    });
    this.#parser.on('entry', (entry: ReadEntry) => this.#entry(entry));
    const broken = (err: Error) => this.#fail(invalid(`the tarball is not a valid gzip tar archive (${errorText(err)})`));
    this.#parser.on('error', broken);
    this.#parser.on('abort', broken);
  }

  #settle: () => void = () => undefined;

  static async create(limits: TarballLimits): Promise<TarballInspector> {
    // Loaded on the first publish: a registry that only serves reads never needs it in memory.
    const { Parser } = await import('tar');
    return new TarballInspector(limits, Parser);
  }

  /** The first problem found so far. */
  get failure(): ProtocolError | undefined {
    return this.#failure;
  }

  write(chunk: Buffer): void {
    if (this.#failure || this.#ended) return;
    if (this.#head !== undefined) {
      // The gzip magic may arrive split over pieces.
      this.#head = Buffer.concat([this.#head, chunk]);
      if (this.#head.length < 2) return;
      const head = this.#head;
      this.#head = undefined;
      if (head[0] !== 0x1f || head[1] !== 0x8b) return this.#fail(invalid('the tarball is not gzip-compressed'));
      chunk = head;
    }
    this.#parser.write(chunk);
  }

  async finish(): Promise<TarballFacts> {
    if (!this.#ended && !this.#failure) {
      this.#ended = true;
      if (this.#head !== undefined) this.#fail(invalid('the tarball is not gzip-compressed'));
      else this.#parser.end();
    }
    await this.#done;
    if (this.#failure) throw this.#failure;
    if (this.#manifestText === undefined) throw invalid(`the tarball has no ${MANIFEST_PATH}`);
    let manifest: unknown;
    try {
      manifest = JSON.parse(this.#manifestText.replace(/^\uFEFF/, ''));
    } catch {
      throw invalid(`${MANIFEST_PATH} in the tarball is not valid JSON`);
    }
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
      throw invalid(`${MANIFEST_PATH} in the tarball is not a JSON object`);
    }
    return {
      manifest: manifest as Record<string, unknown>,
      fileCount: this.#fileCount,
      unpackedSize: this.#unpackedSize,
      hasShrinkwrap: this.#hasShrinkwrap,
      ...(this.#unitySignature !== undefined ? { unitySignature: this.#unitySignature } : {}),
    };
  }

  /** Stops reading; resolves a pending `finish`. */
  #fail(err: ProtocolError): void {
    if (this.#failure) return;
    this.#failure = err;
    this.#parser.removeAllListeners('entry');
    this.#parser.abort(err);
    this.#settle();
  }

  #entry(entry: ReadEntry): void {
    if (this.#failure) return void entry.resume();
    const problem = unsafePath(entry.path) ?? (entry.linkpath ? unsafePath(entry.linkpath) : undefined);
    if (problem) return this.#fail(invalid(`tarball entry '${shorten(entry.path)}' ${problem}`));
    if (entry.type === 'File' || entry.type === 'OldFile' || entry.type === 'ContiguousFile') {
      this.#fileCount++;
      this.#unpackedSize += entry.size;
      if (this.#unpackedSize > this.#limits.maxUnpackedSize) {
        return this.#fail(invalid(`the tarball unpacks to more than ${this.#limits.maxUnpackedSize} bytes`));
      }
    }
    const path = normalizeEntryPath(entry.path);
    if (path === SHRINKWRAP_PATH) this.#hasShrinkwrap = true;
    if (path === UNITY_SIGNATURE_PATH && entry.type === 'File') {
      if (entry.size > MAX_UNITY_SIGNATURE_SIZE) {
        this.#unitySignature = true;
        return void entry.resume();
      }
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        this.#unitySignature = Buffer.concat(chunks);
      });
      return;
    }
    if (path === MANIFEST_PATH && entry.type === 'File') {
      if (this.#manifestSeen) return this.#fail(invalid(`the tarball holds ${MANIFEST_PATH} twice`));
      this.#manifestSeen = true;
      if (entry.size > MAX_MANIFEST_SIZE) return this.#fail(invalid(`${MANIFEST_PATH} is larger than 1 MiB`));
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        this.#manifestText = Buffer.concat(chunks).toString('utf8');
      });
      return;
    }
    entry.resume();
  }
}

/** Why a path could escape the directory it is extracted to, or undefined when it cannot. */
function unsafePath(path: string): string | undefined {
  if (path.includes('\0')) return 'contains a NUL character';
  const unified = path.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[a-zA-Z]:/.test(unified)) return 'has an absolute path';
  if (unified.split('/').includes('..')) return "leaves the package directory ('..')";
  return undefined;
}

function normalizeEntryPath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

function invalid(details: string): ProtocolError {
  return new ProtocolError('VALIDATION_ERROR', details);
}

function errorText(err: Error): string {
  return shorten(err.message.replace(/^TAR_[A-Z_]+:\s*/, ''), 120);
}

function shorten(value: string, max = 100): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
