/**
 * The local tarball cache: `<cache dir>/tarballs/<name>/<version>.tgz`, each file checked
 * against the registry's integrity value when it is downloaded and again when it is reused, with
 * that value kept beside it (`<version>.tgz.integrity`) for `pkg cache verify`.
 *
 * Downloads stream into the cache, hashed as they arrive: a tarball of any size is never held in
 * memory. They go to a partial file named after the tarball and its digest
 * (`.<version>.tgz.<digest>.partial`), so a download cut off by the network, or by a `pkg` that
 * was killed, is resumed from where it stopped (`Range`), by this run's retries or by the next
 * run; the digest is computed over the whole file, the kept part included, before the file is
 * renamed into place. A partial file is used by one `pkg` at a time (`.lock` beside it); another
 * one downloading the same tarball meanwhile writes a temporary file of its own.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { isPackageName, isSemver, type VersionRecord } from '@pkg/protocol';
import type { FileSystem } from '../deps.js';
import { RangeNotUsable, type RegistryClient } from '../http/registry-client.js';
import { isNetworkError, networkReason } from '../http/transport-errors.js';
import { hashFile } from '../io/file-hash.js';
import { LockTimeoutError, withFileLock } from '../io/fs.js';
import { ClientError } from '../errors/client-errors.js';
import { megabytes, type TransferProgress } from '../output/transfer-progress.js';
import { expectedDigest, type ExpectedDigest } from './integrity.js';

export interface CachedTarball {
  name: string;
  version: string;
  /** The verified file in the cache. */
  path: string;
  /** True when the verified file was already in the cache. */
  fromCache: boolean;
}

/** Progress of one download, given its size when the registry tells it. */
export type DownloadProgress = (totalBytes: number | undefined) => TransferProgress;

/** Temporary files of another `pkg` younger than this may still be written to. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/** Where a download in progress goes, and whether it is the resumable one. */
interface DownloadTarget {
  file: string;
  resumable: boolean;
}

export class TarballCache {
  readonly #fs: FileSystem;
  readonly #dir: string;
  readonly #now: () => Date;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(fs: FileSystem, cacheDir: string, clock: { now(): Date; sleep(ms: number): Promise<void> } = defaultClock) {
    this.#fs = fs;
    this.#dir = path.join(cacheDir, 'tarballs');
    this.#now = () => clock.now();
    this.#sleep = (ms) => clock.sleep(ms);
  }

  /** The folder of every package's tarballs. */
  get dir(): string {
    return this.#dir;
  }

  /** Where a version's tarball lives; names are reverse-DNS and versions semver, both path-safe. */
  pathOf(name: string, version: string): string {
    return path.join(this.#dir, name, `${version}.tgz`);
  }

  /**
   * The cached file of `record` and the digest it must have, when there is one, not checked: for
   * a caller that checks it as it reads it anyway (an extraction), and then either uses it or
   * goes through `fetch` when it did not match. Null when it is not in the cache.
   */
  async cached(record: VersionRecord): Promise<{ path: string; expected: ExpectedDigest } | null> {
    const { name, version } = record;
    if (!isPackageName(name) || !isSemver(version)) return null;
    const expected = expectedDigest(record.dist);
    if (!expected) return null;
    const file = this.pathOf(name, version);
    const stat = await this.#fs.stat(file).catch(() => null);
    return stat?.isFile() ? { path: file, expected } : null;
  }

  /**
   * The verified tarball of `record`, from the cache or downloaded into it. `client` may be given
   * as a function: it is then made only for a download, so a run that finds everything in the
   * cache loads no HTTP client and reads no credentials.
   */
  async fetch(
    client: RegistryClient | (() => Promise<RegistryClient>),
    record: VersionRecord,
    progress?: DownloadProgress,
  ): Promise<CachedTarball> {
    const { name, version } = record;
    // The names become paths: a foreign registry must not be able to steer them.
    if (!isPackageName(name) || !isSemver(version)) {
      throw new ClientError('UNREADABLE_ANSWER', { what: 'a version record with a bad name or version' });
    }
    const expected = expectedDigest(record.dist);
    if (!expected) {
      throw new ClientError('INTEGRITY_UNKNOWN', { package: `${name}@${version}` });
    }
    const file = this.pathOf(name, version);
    if ((await digestOf(this.#fs, file, expected.algorithm)) === expected.digest) {
      return { name, version, path: file, fromCache: true };
    }
    if (typeof record.dist?.tarball !== 'string') {
      throw new ClientError('UNREADABLE_ANSWER', { what: `${name}@${version} without a tarball URL` });
    }
    const url = record.dist.tarball;
    const registry = typeof client === 'function' ? await client() : client;
    await this.#fs.mkdir(path.dirname(file), { recursive: true });
    await this.#removeStaleTemps(path.dirname(file));
    const partial = partialPathOf(file, expected);
    const download = (target: DownloadTarget) =>
      this.#download(registry, url, file, target, expected, progress, `${name}@${version}`);
    try {
      await withFileLock(this.#fs, `${partial}.lock`, { now: this.#now, sleep: this.#sleep, timeoutMs: 0 }, () =>
        download({ file: partial, resumable: true }),
      );
    } catch (err) {
      if (!(err instanceof LockTimeoutError)) throw err;
      // Another pkg is downloading this tarball into the partial file: fetch a copy of our own.
      await download({ file: `${partial}.${randomBytes(6).toString('hex')}.tmp`, resumable: false });
    }
    return { name, version, path: file, fromCache: false };
  }

  /**
   * Downloads into `target`, resuming from what it holds, retrying (and resuming) when the
   * network cuts the body off, and renames it into place once the whole file has the expected
   * digest. A failure keeps a resumable target for the next run and removes any other.
   */
  async #download(
    client: RegistryClient,
    url: string,
    file: string,
    target: DownloadTarget,
    expected: ExpectedDigest,
    progress: DownloadProgress | undefined,
    label: string,
  ): Promise<void> {
    let restartedWhole = false;
    let failures = 0;
    let done = false;
    let knownSize: number | undefined;
    const interrupted = (received: number, cause: unknown) =>
      new ClientError(
        'DOWNLOAD_INTERRUPTED',
        {
          package: label,
          registry: client.registry,
          received: megabytes(received),
          total: knownSize !== undefined ? megabytes(knownSize) : 'an unknown size',
          reason: networkReason(cause),
          kept:
            target.resumable && received > 0
              ? `The ${megabytes(received)} received are kept in the cache: run the command again to resume.`
              : 'Run the command again.',
        },
        { cause },
      );
    try {
      for (;;) {
        const kept = target.resumable ? await sizeOf(this.#fs, target.file) : 0;
        const hash = createHash(expected.algorithm);
        let stream;
        try {
          stream = await client.tarballStream(url, { from: kept });
        } catch (err) {
          if (err instanceof RangeNotUsable) {
            await this.#fs.rm(target.file, { force: true });
            continue;
          }
          // The registry went away while resuming: the download stopped, it did not fail to start.
          const cause = err instanceof ClientError ? err.cause : undefined;
          if (kept > 0 && isNetworkError(cause)) throw interrupted(kept, cause);
          throw err;
        }
        knownSize = stream.size ?? knownSize;
        // The registry sent the whole file (no Range support for it): start again from zero.
        const offset = stream.offset;
        if (offset > 0) await hashFile(this.#fs, target.file, hash);
        const shown = progress?.(stream.size);
        shown?.advance(offset);
        let received = offset;
        let cut: unknown = null;
        const handle = await this.#fs.open(target.file, offset > 0 ? 'r+' : 'w', 0o666);
        try {
          if (offset === 0) await handle.truncate(0);
          try {
            for await (const chunk of stream.body) {
              hash.update(chunk);
              await handle.write(chunk, 0, chunk.length, received);
              received += chunk.length;
              shown?.advance(chunk.length);
            }
          } catch (err) {
            if (!isNetworkError(err)) throw err;
            cut = err;
          }
          await handle.sync();
        } finally {
          await handle.close();
          shown?.done();
        }
        if (cut !== null) {
          // Progress resets the count: a slow, flaky link still gets there piece by piece.
          failures = received > offset ? 1 : failures + 1;
          if (await client.waitToResume(failures, cut)) continue;
          throw interrupted(received, cut);
        }
        if (hash.digest('base64') !== expected.digest) {
          await this.#fs.rm(target.file, { force: true });
          // A resumed file may have a bad first part (another writer, a disk error): once, fetch it whole.
          if (offset > 0 && !restartedWhole) {
            restartedWhole = true;
            continue;
          }
          throw new ClientError('INTEGRITY_MISMATCH', { package: label, expected: `${expected.algorithm}-${expected.digest}` });
        }
        await this.#fs.rename(target.file, file);
        await this.#fs.writeFile(`${file}.integrity`, `${expected.algorithm}-${expected.digest}\n`);
        done = true;
        return;
      }
    } finally {
      if (!done && !target.resumable) await this.#fs.rm(target.file, { force: true });
    }
  }

  /** Temporary files (of a pkg killed mid-download, or of older versions of pkg) no one writes any more. */
  async #removeStaleTemps(dir: string): Promise<void> {
    const now = this.#now().getTime();
    for (const entry of await this.#fs.readdir(dir).catch(() => [] as string[])) {
      if (!entry.startsWith('.') || !entry.endsWith('.tmp')) continue;
      const stat = await this.#fs.stat(path.join(dir, entry)).catch(() => null);
      if (stat && now - stat.mtimeMs > STALE_TEMP_MS) await this.#fs.rm(path.join(dir, entry), { force: true });
    }
  }
}

const defaultClock = {
  now: () => new Date(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
};

/** The partial download of `file` with this digest: another digest (another registry's) is another file. */
export function partialPathOf(file: string, expected: ExpectedDigest): string {
  const tag = Buffer.from(expected.digest, 'base64').subarray(0, 8).toString('hex');
  return path.join(path.dirname(file), `.${path.basename(file)}.${tag}.partial`);
}

async function sizeOf(fs: FileSystem, file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0;
  }
}

/** The digest of a file, read in pieces; undefined when there is none or it cannot be read. */
export async function digestOf(
  fs: FileSystem,
  file: string,
  algorithm: ExpectedDigest['algorithm'],
): Promise<string | undefined> {
  const hash = createHash(algorithm);
  try {
    await hashFile(fs, file, hash);
  } catch {
    return undefined;
  }
  return hash.digest('base64');
}
