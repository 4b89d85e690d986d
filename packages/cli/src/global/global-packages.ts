/**
 * Global packages: `<data dir>/global/packages/<name>/` holds the extracted files of one version
 * per package, and `<data dir>/global/manifest.json` records them as
 * `{"dependencies": {"<name>": "<version>"}, "registries": {"<name>": "<registry url>"}}`: the
 * dependencies in the shape of a Unity manifest so the one resolver applies, and the registry
 * each package came from, which list and update ask again. Changes happen under a lock file, and
 * a package folder is swapped in only once its tarball is verified and fully extracted.
 */
import { jsonSyntaxProblem } from '../json/json-syntax.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { readTextIfExists, withFileLock, writeFileAtomic, type LockOptions } from '../io/fs.js';
import { ClientError } from '../errors/client-errors.js';
import { extractPackage } from '../files/safe-extract.js';
import type { TarballFile } from '../files/tar-entries.js';

export interface GlobalManifest {
  dependencies: Record<string, string>;
  /** Package name → the registry URL it was installed from. */
  registries: Record<string, string>;
}

export class GlobalPackages {
  readonly dir: string;
  readonly manifestPath: string;
  readonly #fs: FileSystem;
  readonly #lock: LockOptions;

  constructor(fs: FileSystem, dataDir: string, lock: LockOptions) {
    this.#fs = fs;
    this.#lock = lock;
    this.dir = path.join(dataDir, 'global');
    this.manifestPath = path.join(this.dir, 'manifest.json');
  }

  packageDir(name: string): string {
    return path.join(this.dir, 'packages', name);
  }

  /** Installed packages, name → version. */
  async read(): Promise<Record<string, string>> {
    return (await this.readAll()).dependencies;
  }

  /** Installed packages and the registry each came from (absent for packages installed before it was recorded). */
  async readAll(): Promise<GlobalManifest> {
    const text = await readTextIfExists(this.#fs, this.manifestPath);
    if (text === null) return { dependencies: {}, registries: {} };
    try {
      const problem = jsonSyntaxProblem(text);
      if (problem) throw new Error(`it is not valid JSON: ${problem}`);
      const parsed = JSON.parse(text) as { dependencies?: unknown; registries?: unknown };
      const deps = parsed.dependencies;
      if (typeof deps !== 'object' || deps === null || Array.isArray(deps)) throw new Error('"dependencies" is not an object');
      const registries = parsed.registries ?? {};
      if (typeof registries !== 'object' || registries === null || Array.isArray(registries)) {
        throw new Error('"registries" is not an object');
      }
      const strings = (value: object) =>
        Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
      return { dependencies: strings(deps), registries: strings(registries) };
    } catch (err) {
      throw new ClientError('GLOBAL_MANIFEST_INVALID', { manifest: this.manifestPath, problem: (err as Error).message });
    }
  }

  /** Runs `fn` holding the global lock, so two `pkg` processes never interleave their changes. */
  locked<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(this.#fs, path.join(this.dir, '.lock'), this.#lock, fn);
  }
  /** Extracts a verified tarball (its file in the cache, streamed) as the package's folder, replacing the previous version's. */
  async install(name: string, version: string, tarball: TarballFile): Promise<number> {
    const staging = path.join(this.dir, 'packages', `.${name}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      const files = await extractPackage(this.#fs, tarball, staging, `${name}@${version}`);
      const target = this.packageDir(name);
      const old = `${staging}.old`;
      const hadOld = await this.#fs.rename(target, old).then(
        () => true,
        () => false,
      );
      await this.#fs.rename(staging, target);
      if (hadOld) await this.#fs.rm(old, { recursive: true, force: true });
      return files;
    } finally {
      await this.#fs.rm(staging, { recursive: true, force: true });
    }
  }

  async remove(name: string): Promise<void> {
    await this.#fs.rm(this.packageDir(name), { recursive: true, force: true });
  }

  /** Writes the packages and, for those that have one, the registry each came from. */
  async write(dependencies: Record<string, string>, registries: Record<string, string> = {}): Promise<void> {
    const sort = (record: Record<string, string>) =>
      Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const kept = Object.fromEntries(Object.entries(registries).filter(([name]) => name in dependencies));
    await writeFileAtomic(
      this.#fs,
      this.manifestPath,
      `${JSON.stringify({ dependencies: sort(dependencies), registries: sort(kept) }, null, 2)}\n`,
    );
  }
}
