import {
  closeSync,
  createReadStream,
  fdatasync,
  fstat,
  open as openFd,
  opendirSync,
  openSync,
  read,
  readdirSync,
  writeSync,
  type Dir,
  type Dirent,
} from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { assertValidBlobKey } from '../../blob-keys.js';
import type { BlobInfo, BlobStore, BlobUpload, ByteRange, SmallBlob } from '../../ports.js';
import { OpenFileCache } from './open-files.js';

export const TEMP_DIR = '.incoming';
/** Bytes of a streamed upload gathered into one write. */
const WRITE_BATCH = 1024 * 1024;
/** Files kept open for repeated downloads (well under the usual limit of 1024 descriptors). */
const OPEN_FILES = 256;
/** Largest blob put writes in one call; larger ones are written from the thread pool. */
const SMALL_BLOB = 1024 * 1024;
/** Bytes asked for by readSmall's first read: most tarballs are smaller, so it is the only one. */
const FIRST_READ = 64 * 1024;
/** Longest run of directory reads listKeyGroups makes before the event loop serves what waits. */
const LISTING_SLICE_MS = 0.25;
/** Keys are tenant/package/file: the directories above a package's hold one entry per package. */
const PACKAGE_DEPTH = 2;
/** Entries read at once from a directory of tenants or packages (fs.opendir's buffer). */
const LISTING_BATCH = 256;

/**
 * Tarballs as files under one directory. A put writes a temporary file, fsyncs it and renames it
 * into place, so a crash never leaves a partial tarball under its real key; leftovers in the
 * temporary directory are removed by `cleanTemporary` at start-up.
 */
export class FsBlobStore implements BlobStore {
  readonly root: string;
  readonly #openFiles = new OpenFileCache(OPEN_FILES);

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  async init(): Promise<void> {
    await mkdir(path.join(this.root, TEMP_DIR), { recursive: true });
  }

  /**
   * Removes partial writes left by a crash. On a directory shared by several nodes, give an age:
   * a younger file may be another node's upload in progress.
   */
  async cleanTemporary(olderThanMs = 0, now = new Date()): Promise<number> {
    const dir = path.join(this.root, TEMP_DIR);
    const entries = await readdir(dir).catch(() => [] as string[]);
    let removed = 0;
    for (const entry of entries) {
      const file = path.join(dir, entry);
      const modified = await stat(file).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      if (modified === undefined || now.getTime() - modified < olderThanMs) continue;
      await rm(file, { force: true });
      removed++;
    }
    return removed;
  }

  async cleanIncompleteUploads(olderThanMs: number, now: Date): Promise<{ temporaryFiles: number; incompleteUploads: number }> {
    return { temporaryFiles: await this.cleanTemporary(olderThanMs, now), incompleteUploads: 0 };
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.#pathOf(key);
    const temp = path.join(this.root, TEMP_DIR, `${randomBytes(12).toString('hex')}.tmp`);
    if (data.length <= SMALL_BLOB) await writeSmallFile(temp, data);
    else {
      const handle = await open(temp, 'w', 0o644);
      try {
        await handle.writeFile(data);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    }
    await this.#moveIntoPlace(temp, target);
  }

  /**
   * A temporary file, fsynced and renamed to the key on commit. Pieces are gathered into writes
   * of WRITE_BATCH bytes (a socket delivers 64 KiB at a time, and each write is a trip to the
   * thread pool the upload waits for); a blob that stays under one batch is written on commit
   * the way `put` writes it, so a small publish costs what it did before uploads streamed.
   */
  async upload(key: string): Promise<BlobUpload> {
    const target = this.#pathOf(key);
    const temp = path.join(this.root, TEMP_DIR, `${randomBytes(12).toString('hex')}.tmp`);
    let handle: FileHandle | undefined;
    let state: 'open' | 'committed' | 'aborted' = 'open';
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      handle ??= await open(temp, 'w', 0o644);
      const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      let written = 0;
      while (written < bytes.length) written += (await handle.write(bytes, written)).bytesWritten;
    };
    const finish = () => {
      if (state !== 'open') throw new Error('the upload is finished');
    };
    return {
      write: async (chunk) => {
        finish();
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= WRITE_BATCH) await flush();
      },
      commit: async () => {
        finish();
        if (handle === undefined) await writeSmallFile(temp, Buffer.concat(pending, pendingBytes));
        else {
          if (pendingBytes > 0) await flush();
          await handle.datasync();
          await handle.close();
          handle = undefined;
        }
        pending = [];
        await this.#moveIntoPlace(temp, target);
        state = 'committed';
      },
      abort: async () => {
        if (state !== 'open') return;
        state = 'aborted';
        pending = [];
        const opened = handle;
        handle = undefined;
        await opened?.close().catch(() => undefined);
        await rm(temp, { force: true });
      },
    };
  }

  async #moveIntoPlace(temp: string, target: string): Promise<void> {
    this.#openFiles.evict(target);
    try {
      // A publish waits on each file-system call in turn, and a package's directory exists after
      // its first: make it only when the rename says it is missing (remembering the directories
      // made cost memory in proportion to the registry, 2 MB at 10,000 packages).
      await rename(temp, target).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(path.dirname(target), { recursive: true });
        await rename(temp, target);
      });
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<{ stream: import('node:stream').Readable; size: number } | undefined> {
    const file = this.#pathOf(key);
    const info = await this.stat(key);
    if (!info) return undefined;
    const stream = range ? createReadStream(file, { start: range.start, end: range.end }) : createReadStream(file);
    return { stream, size: info.size };
  }

  /** From the open-file cache: a download stats its tarball right before reading it. */
  async stat(key: string): Promise<BlobInfo | undefined> {
    const file = await this.#openFiles.acquire(this.#pathOf(key)).catch(() => undefined);
    if (!file) return undefined;
    this.#openFiles.release(file);
    return { size: file.size, modified: file.modified };
  }

  /**
   * A blob's size, and its bytes when at most `maxSize`: one open and one read on the thread
   * pool for a blob under FIRST_READ bytes (a short read is the end of the file), closed without
   * another trip there (closing a file only read is quick). Not through the open-file cache: a
   * small blob read whole goes to the tarball cache, and keeping it open too would cost a close
   * on the pool when it is evicted.
   */
  async readSmall(key: string, maxSize: number): Promise<SmallBlob | undefined> {
    const fd = await new Promise<number | undefined>((resolve, reject) =>
      openFd(this.#pathOf(key), 'r', (err, opened) => {
        if (!err) resolve(opened);
        else if (err.code === 'ENOENT' || err.code === 'EISDIR' || err.code === 'ENOTDIR') resolve(undefined);
        else reject(err);
      }),
    );
    if (fd === undefined) return undefined;
    try {
      const first = Buffer.allocUnsafe(Math.min(FIRST_READ, maxSize + 1));
      const got = await readFd(fd, first, 0);
      if (got < first.length) {
        const bytes = Buffer.allocUnsafeSlow(got);
        first.copy(bytes, 0, 0, got);
        return { size: got, bytes };
      }
      const size = await new Promise<number>((resolve, reject) =>
        fstat(fd, (err, info) => (err ? reject(err) : resolve(info.size))),
      );
      if (size > maxSize) return { size, bytes: undefined };
      const bytes = Buffer.allocUnsafeSlow(size);
      let filled = first.copy(bytes, 0, 0, Math.min(got, size));
      while (filled < size) {
        const more = await readFd(fd, bytes, filled);
        if (more === 0) break;
        filled += more;
      }
      return { size: filled, bytes: filled === size ? bytes : bytes.subarray(0, filled) };
    } catch (err) {
      // A directory where a blob should be: no blob (Linux opens a directory and fails its read).
      if ((err as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw err;
    } finally {
      closeSync(fd);
    }
  }

  /** The file path of a key, for zero-copy serving. */
  filePath(key: string): string {
    return this.#pathOf(key);
  }

  async delete(key: string): Promise<void> {
    this.#openFiles.evict(this.#pathOf(key));
    await unlink(this.#pathOf(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  async *list(): AsyncIterable<{ key: string } & BlobInfo> {
    yield* this.#walk('');
  }

  /**
   * Every key, without a stat per file, a directory's files in one group: one directory listing
   * per package, made on the event loop in slices of LISTING_SLICE_MS (a round trip to the thread
   * pool costs several times the listing of a small directory in the page cache; bench/README.md,
   * "Stop 37"), short enough that a request arriving meanwhile hardly waits. A directory not in
   * the page cache stalls the slice it is read in for that read. The store's root and the
   * tenants' directories, one entry per package, are read LISTING_BATCH entries at a time, not
   * held whole.
   */
  async *listKeyGroups(): AsyncIterable<string[]> {
    const slices = new Slices();
    const open: DirectoryStream[] = [];
    try {
      const root = DirectoryStream.open(this.root, '');
      if (root === undefined) return;
      open.push(root);
      while (open.length > 0) {
        if (slices.spent()) await slices.pause();
        const directory = open.at(-1)!;
        const entry = directory.next();
        if (entry === null) {
          if (directory.files.length > 0) yield directory.files;
          directory.close();
          open.pop();
          continue;
        }
        if (directory.prefix === '' && entry.name === TEMP_DIR) continue;
        const key = directory.prefix === '' ? entry.name : `${directory.prefix}/${entry.name}`;
        if (entry.isFile()) {
          directory.files.push(key);
          if (directory.files.length >= LISTING_BATCH) yield directory.files.splice(0);
        } else if (!entry.isDirectory()) continue;
        else if (open.length < PACKAGE_DEPTH) {
          const below = DirectoryStream.open(path.join(this.root, key), key);
          if (below !== undefined) open.push(below);
        } else for (const files of filesUnder(this.root, key)) yield files;
      }
    } finally {
      for (const directory of open) directory.close();
    }
  }

  async ping(): Promise<void> {
    // The temporary directory exists exactly when the store's directory is there and set up.
    const info = await stat(path.join(this.root, TEMP_DIR));
    if (!info.isDirectory()) throw new Error(`${TEMP_DIR} is not a directory`);
  }

  async close(): Promise<void> {
    await this.#openFiles.close();
  }

  async *#walk(prefix: string): AsyncIterable<{ key: string } & BlobInfo> {
    const dir = path.join(this.root, prefix);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (prefix === '' && entry.name === TEMP_DIR) continue;
      const key = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) yield* this.#walk(key);
      else if (entry.isFile()) {
        // A blob deleted between the listing and its stat (a publish rolled back, another
        // sweep) is simply gone: a listing is of what exists, not an error.
        const s = await stat(path.join(this.root, key)).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined;
          throw err;
        });
        if (s !== undefined) yield { key, size: s.size, modified: s.mtime };
      }
    }
  }

  #pathOf(key: string): string {
    // Keys are built by blobKeyFor from validated names; refuse anything that could escape anyway.
    assertValidBlobKey(key);
    return path.join(this.root, key);
  }
}

/**
 * A small file written, synced and closed with one trip to the thread pool: opening, writing
 * (into the page cache) and closing take microseconds, while each trip to the pool costs tens
 * of them and queues behind every other file operation. fdatasync: the bytes and the size,
 * which is all a new file needs to be read back after a crash; a full fsync also flushes
 * timestamps and takes several times as long.
 */
async function writeSmallFile(file: string, data: Buffer): Promise<void> {
  const fd = openSync(file, 'w', 0o644);
  try {
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  } finally {
    closeSync(fd);
  }
}

/** Reads into `buffer` from `offset` on, at the same position of the file. */
function readFd(fd: number, buffer: Buffer, offset: number): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, offset, buffer.length - offset, offset, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))),
  );
}

/** Wall time since the event loop last ran, for work done on it in slices. */
class Slices {
  #since = performance.now();

  spent(): boolean {
    return performance.now() - this.#since >= LISTING_SLICE_MS;
  }

  async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}

/** A large directory's entries, LISTING_BATCH at a time, and the keys of its files not yet handed on. */
class DirectoryStream {
  files: string[] = [];
  readonly #dir: Dir;

  private constructor(
    dir: Dir,
    readonly prefix: string,
  ) {
    this.#dir = dir;
  }

  /** Undefined when it cannot be read (a directory removed meanwhile): a listing is of what exists. */
  static open(dir: string, prefix: string): DirectoryStream | undefined {
    try {
      return new DirectoryStream(opendirSync(dir, { bufferSize: LISTING_BATCH }), prefix);
    } catch {
      return undefined;
    }
  }

  /** The next entry; null at the end, or when the rest cannot be read. */
  next(): Dirent | null {
    try {
      return this.#dir.readSync();
    } catch {
      return null;
    }
  }

  close(): void {
    this.#dir.closeSync();
  }
}

/**
 * The files of a small directory (a package's) and of any directory below it, a group per
 * directory, read at once: opening a directory as a stream costs more than reading it whole.
 */
function filesUnder(root: string, prefix: string): string[][] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(root, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  const groups = [files];
  for (const entry of entries) {
    if (entry.isFile()) files.push(`${prefix}/${entry.name}`);
    else if (entry.isDirectory()) groups.push(...filesUnder(root, `${prefix}/${entry.name}`));
  }
  return groups.filter((group) => group.length > 0);
}
