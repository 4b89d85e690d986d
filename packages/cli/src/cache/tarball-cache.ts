/**
 * The local tarball cache: `<cache dir>/tarballs/<name>/<version>.tgz`, each file checked
 * against the registry's integrity value when it is downloaded and again when it is reused.
 */
import path from 'node:path';
import { isPackageName, isSemver, type VersionRecord } from '@pkg/protocol';
import type { FileSystem } from '../deps.js';
import type { RegistryClient } from '../http/registry-client.js';
import { writeFileAtomic } from '../io/fs.js';
import { ClientError } from '../output/errors.js';
import { expectedDigest, matchesDigest } from './integrity.js';

export interface CachedTarball {
  name: string;
  version: string;
  path: string;
  data: Buffer;
  /** True when the verified file was already in the cache. */
  fromCache: boolean;
}

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
  async fetch(client: RegistryClient, record: VersionRecord): Promise<CachedTarball> {
    const { name, version } = record;
    // The names become paths: a foreign registry must not be able to steer them.
    if (!isPackageName(name) || !isSemver(version)) {
      throw new ClientError('INVALID_RESPONSE', { message: `The registry sent a version record with a bad name or version` });
    }
    const expected = expectedDigest(record.dist);
    if (!expected) {
      throw new ClientError('INTEGRITY_MISMATCH', {
        message: `Integrity check failed for ${name}@${version}: the registry gives no integrity value`,
      });
    }
    const file = this.pathOf(name, version);
    const cached = await this.#fs.readFile(file).catch(() => null);
    if (cached && matchesDigest(cached, expected)) return { name, version, path: file, data: cached, fromCache: true };
    if (typeof record.dist?.tarball !== 'string') {
      throw new ClientError('INVALID_RESPONSE', { message: `${name}@${version} has no tarball URL` });
    }
    const data = await client.tarball(record.dist.tarball);
    if (!matchesDigest(data, expected)) {
      throw new ClientError('INTEGRITY_MISMATCH', {
        message: `Integrity check failed for ${name}@${version}: expected ${expected.algorithm}-${expected.digest}`,
      });
    }
    await writeFileAtomic(this.#fs, file, data);
    return { name, version, path: file, data, fromCache: false };
  }
}
