/**
 * The applier of Godot and Unreal, engines whose packages `pkg` installs: a resolution's diff
 * (the manifest edit, and every package the target holds at another version than the lock)
 * fetched and verified into the cache, then handed to the staged install, which streams each
 * tarball from its file in the cache; and `install` exactly as the lock says.
 */
import { pruneBackups } from '../files/backup.js';
import path from 'node:path';
import type { VersionRecord } from '@pkg/protocol';
import { TarballCache } from '../cache/tarball-cache.js';
import { DOWNLOAD_CONCURRENCY, eachBounded, oneLineAtATime } from '../cache/parallel-downloads.js';
import type { CommandContext } from '../context.js';
import type { Engine } from '../engines/engine.js';
import type { EngineInstaller } from '../engines/installer.js';
import type { PackageDocument } from '@pkg/protocol';
import type { RegistryClient } from '../http/registry-client.js';
import { LockTimeoutError, withFileLock } from '../io/fs.js';
import { ClientError } from '../errors/client-errors.js';
import type { OpenProject } from './open-project.js';
import { downloadProgress, progressBar } from './progress.js';
import { recoverInterrupted } from '../install/interrupted-install.js';
import { readLock, type LockFile, type LockedPackage, type RestoredPackage } from '../install/lock-file.js';
import { folderMissing, localChanges } from '../install/package-files.js';
import { dependencyChanges, diffResolution, type DependencyChanges } from '../resolve/diff.js';
import type { DocumentMap } from './registry-documents.js';
import type { Resolution } from '../resolve/resolver.js';
import { applyInstall, CachedTarballChanged, type PackageToInstall } from '../install/staged-install.js';

type InstallingEngine = Engine & { installer: EngineInstaller };

/** Held while a change runs, so two `pkg` processes never move a project's folders at once. */
export const PROJECT_LOCK = '.pkg-install.lock';

/**
 * `run` as a command that holds the project's lock while it runs, after finishing what a killed
 * `pkg` left (its staging folder, and the rollback of its half-made change). Each exported
 * command below is one.
 */
function exclusive<A extends unknown[], T>(
  run: (ctx: CommandContext, open: OpenProject & { engine: InstallingEngine }, ...args: A) => Promise<T>,
): (ctx: CommandContext, open: OpenProject & { engine: InstallingEngine }, ...args: A) => Promise<T> {
  return async (ctx, open, ...args) => {
    const lockFile = path.join(open.project, PROJECT_LOCK);
    let result: T;
    try {
      result = await withFileLock(ctx.deps.fs, lockFile, { sleep: ctx.deps.sleep, now: ctx.deps.now }, async () => {
        const recovered = await recoverInterrupted(ctx.deps.fs, open.fs, open.project);
        if (recovered.rolledBack > 0) {
          ctx.reporter.warn(
            `An earlier pkg change to this project was interrupted; it was rolled back, and the project is as it was before it`,
          );
        }
        return run(ctx, open, ...args);
      });
    } catch (err) {
      if (!(err instanceof LockTimeoutError)) throw err;
      throw new ClientError('PROJECT_BUSY', { project: open.project, lock: PROJECT_LOCK });
    }
    // Afterwards this project's backups in the temp folder beyond the newest `backupsKept` go.
    await pruneBackups(ctx.deps.fs, ctx.deps.tmpdir, Number((await ctx.config()).get('backupsKept')), open.project);
    return result;
  };
}

export function installsFiles(open: OpenProject): open is OpenProject & { engine: InstallingEngine } {
  return open.engine.installer !== undefined;
}

export interface InstallOptions {
  force: boolean;
  /**
   * Install again a package of the target whose folder is gone (default true). `uninstall` does
   * not: it removes, and needs no registry to do it.
   */
  repair?: boolean;
}

/** The versions the lock holds, name → version. */
export function lockedVersions(lock: LockFile): Record<string, string> {
  return Object.fromEntries(Object.entries(lock.packages).map(([n, p]) => [n, p.version]));
}

/** The record a lock entry stands for: enough to fetch and verify its tarball. */
function lockedRecord(name: string, locked: LockedPackage): VersionRecord {
  return {
    name,
    version: locked.version,
    ...(locked.dependencies ? { dependencies: locked.dependencies } : {}),
    dist: { tarball: locked.resolved, integrity: locked.integrity, shasum: '' },
  };
}

/**
 * The lock's packages as registry documents, each with its one locked version: what the
 * resolver reads when what stays after an uninstall is exactly what the lock holds.
 */
export function lockDocuments(lock: LockFile): DocumentMap {
  const documents: DocumentMap = new Map();
  for (const [name, locked] of Object.entries(lock.packages)) {
    const document: PackageDocument = {
      _id: name,
      _rev: '',
      name,
      'dist-tags': {},
      versions: { [locked.version]: lockedRecord(name, locked) },
      time: {},
      maintainers: [],
    };
    documents.set(name, document);
  }
  return documents;
}

async function fetchAll(ctx: CommandContext, clientOf: () => Promise<RegistryClient>, records: VersionRecord[]) {
  if (records.length === 0) return [];
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  const progress = progressBar(ctx.reporter, ctx.deps.stderr.isTTY, records.length);
  const line = oneLineAtATime();
  try {
    return await eachBounded(records, DOWNLOAD_CONCURRENCY, async (record) => {
      const result = await cache.fetch(clientOf, record, line(downloadProgress(ctx, record)));
      progress.tick(`${record.name}@${record.version}`);
      // The staged install streams each tarball from its verified file in the cache.
      return { record, tarball: result.path, fromCache: result.fromCache };
    });
  } finally {
    progress.done();
  }
}

function transaction(ctx: CommandContext, open: OpenProject & { engine: InstallingEngine }, lock: LockFile) {
  return {
    fs: ctx.deps.fs,
    projectFs: open.fs,
    engine: open.engine,
    project: open.project,
    lock,
    backupRoot: ctx.deps.tmpdir,
    now: ctx.deps.now(),
  };
}

/**
 * Applies a resolution (add, update, install, uninstall): the manifest written, what the target
 * holds at another version than the lock (or is missing on disk) installed, what it no longer
 * holds removed. The registry client is made only when something has to be downloaded.
 */
export const applyWithInstall = exclusive(applyResolution);

async function applyResolution(
  ctx: CommandContext,
  open: OpenProject & { engine: InstallingEngine },
  clientOf: () => Promise<RegistryClient>,
  resolution: Resolution,
  options: InstallOptions,
): Promise<{ backupPath: string | null; changed: boolean; dependencies: DependencyChanges }> {
  const { lock } = await readLock(open.project, open.fs);
  const diff = diffResolution({ dependencies: open.manifest.manifest.dependencies, held: lockedVersions(lock) }, resolution);
  const manifestText = open.engine.editManifest(open.manifest, diff.manifest);
  const toInstall: VersionRecord[] = [];
  for (const [name, target] of resolution.target) {
    const locked = lock.packages[name];
    const install =
      !locked ||
      locked.version !== target.version ||
      ((options.repair ?? true) && (await folderMissing(ctx.deps.fs, open.project, locked.folder)));
    // The one-folder closure always has the record: it chose the version from it.
    if (install && target.record) toInstall.push(target.record);
  }
  const remove = Object.keys(lock.packages).filter((n) => !resolution.target.has(n));
  const manifestChanged = manifestText !== (await open.fs.readTextIfExists(open.manifest.path));
  if (toInstall.length === 0 && remove.length === 0 && !manifestChanged) {
    return { backupPath: null, changed: false, dependencies: { installed: [], removed: [] } };
  }
  const fetched = await fetchAll(ctx, clientOf, toInstall);
  const result = await applyInstall({
    ...transaction(ctx, open, lock),
    install: fetched.map((f) => ({ record: f.record, tarball: f.tarball })),
    remove,
    manifestText,
    force: options.force,
  });
  return { ...result, changed: true, dependencies: dependencyChanges(diff) };
}

/** True when the lock holds every version `pkg.json` asks for: `install` then restores exactly the lock. */
export function lockCovers(lock: LockFile, dependencies: Readonly<Record<string, string>>): boolean {
  return Object.entries(dependencies).every(([name, version]) => lock.packages[name]?.version === version);
}

/**
 * `pkg install` when the lock covers `pkg.json`: exactly the lock's packages, each tarball
 * verified against its integrity and each file against its digest; packages already in place
 * and unchanged are left alone. (When it does not, the project is resolved and applied as `add`
 * would: `applyWithInstall`.)
 */
export const installFromLock = exclusive(restore);

async function restore(
  ctx: CommandContext,
  open: OpenProject & { engine: InstallingEngine },
  clientOf: () => Promise<RegistryClient>,
  options: InstallOptions,
): Promise<{ packages: RestoredPackage[]; backupPath: string | null }> {
  const { lock } = await readLock(open.project, open.fs);
  const pending: VersionRecord[] = [];
  const packages: RestoredPackage[] = [];
  for (const [name, locked] of Object.entries(lock.packages).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const inPlace =
      !(await folderMissing(ctx.deps.fs, open.project, locked.folder)) &&
      (await localChanges(ctx.deps.fs, open.project, locked, open.engine.installer)).length === 0;
    if (inPlace) packages.push({ package: name, version: locked.version, status: 'in-place', cached: true });
    else pending.push(lockedRecord(name, locked));
  }
  const apply = async (install: PackageToInstall[]): Promise<{ backupPath: string | null }> =>
    install.length === 0
      ? { backupPath: null }
      : applyInstall({ ...transaction(ctx, open, lock), install, remove: [], manifestText: null, force: options.force });
  // Every tarball in the cache: each is checked against the lock's integrity as it is extracted,
  // not read once more before; one that does not match sends the whole restore the long way.
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  const cached = await Promise.all(pending.map((record) => cache.cached(record)));
  let restored: { backupPath: string | null } | null = null;
  let fetched: { record: VersionRecord; tarball: string; fromCache: boolean }[] = [];
  if (pending.length > 0 && cached.every((c) => c !== null)) {
    fetched = pending.map((record, i) => ({ record, tarball: cached[i]!.path, fromCache: true }));
    restored = await apply(
      pending.map((record, i) => ({
        record,
        tarball: cached[i]!.path,
        expectedFiles: lock.packages[record.name]!.files,
        unverified: cached[i]!.expected,
      })),
    ).catch((err: unknown) => {
      if (err instanceof CachedTarballChanged) return null;
      throw err;
    });
  }
  if (restored === null) {
    fetched = await fetchAll(ctx, clientOf, pending);
    restored = await apply(
      fetched.map((f) => ({ record: f.record, tarball: f.tarball, expectedFiles: lock.packages[f.record.name]!.files })),
    );
  }
  const { backupPath } = restored;
  for (const f of fetched)
    packages.push({ package: f.record.name, version: f.record.version, status: 'installed', cached: f.fromCache });
  return { packages: packages.sort((a, b) => (a.package < b.package ? -1 : 1)), backupPath };
}
