/**
 * The local tarball cache: `<cache dir>/tarballs/<name>/<version>.tgz`, each file checked
 * against the registry's integrity value when it is downloaded and again when it is reused.
 * Downloads stream into the cache, hashed as they arrive: a tarball of any size is never held
 * in memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { isPackageName, isSemver, type VersionRecord } from '@pkg/protocol';
import type { FileSystem } from '../deps.js';
import type { RegistryClient } from '../http/registry-client.js';
import { ClientError } from '../errors/client-errors.js';
import type { TransferProgress } from '../output/transfer-progress.js';
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

const READ_CHUNK = 1024 * 1024;

export class TarballCache {
  readonly #fs: FileSystem;
  readonly #dir: string;

  constructor(fs: FileSystem, cacheDir: string) {
    this.#fs = fs;
    this.#dir = path.join(cacheDir, 'tarballs');
  }

  /** Where a version's tarball lives; names are reverse-DNS and versions semver, both path-safe. */
  pathOf(name: string, version: string): string {
    return path.join(this.#dir, name, `${version}.tgz`);
  }

  /** The verified tarball of `record`, from the cache or downloaded into it. */
  async fetch(client: RegistryClient, record: VersionRecord, progress?: DownloadProgress): Promise<CachedTarball> {
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
    if ((await this.#digestOf(file, expected.algorithm)) === expected.digest) {
      return { name, version, path: file, fromCache: true };
    }
    if (typeof record.dist?.tarball !== 'string') {
      throw new ClientError('UNREADABLE_ANSWER', { what: `${name}@${version} without a tarball URL` });
    }
    await this.#download(client, record.dist.tarball, file, expected, progress, `${name}@${version}`);
    return { name, version, path: file, fromCache: false };
  }

  /**
   * Streams the download into a temporary file beside `file`, hashing it on the way, and
   * renames it into place only when the digest matches: a cut or corrupt download leaves nothing.
   */
  async #download(
    client: RegistryClient,
    url: string,
    file: string,
    expected: ExpectedDigest,
    progress: DownloadProgress | undefined,
    shownName: string,
  ): Promise<void> {
    const { size, body } = await client.tarballStream(url);
    await this.#fs.mkdir(path.dirname(file), { recursive: true });
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
    const shown = progress?.(size);
    const hash = createHash(expected.algorithm);
    let keep = false;
    try {
      const handle = await this.#fs.open(temp, 'wx', 0o666);
      try {
        for await (const chunk of body) {
          hash.update(chunk);
          await handle.write(chunk);
          shown?.advance(chunk.length);
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (hash.digest('base64') !== expected.digest) {
        throw new ClientError('INTEGRITY_MISMATCH', { package: shownName, expected: `${expected.algorithm}-${expected.digest}` });
      }
      await this.#fs.rename(temp, file);
      keep = true;
    } finally {
      shown?.done();
      if (!keep) await this.#fs.rm(temp, { force: true });
    }
  }

  /** The digest of a cached file, read in pieces; undefined when there is none. */
  async #digestOf(file: string, algorithm: ExpectedDigest['algorithm']): Promise<string | undefined> {
    const handle = await this.#fs.open(file, 'r').catch(() => undefined);
    if (!handle) return undefined;
    try {
      const hash = createHash(algorithm);
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
      }
      return hash.digest('base64');
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }
}
