/**
 * Applying a change to the packages of a Godot or Unreal project as one transaction: every
 * tarball is extracted into a staging folder inside the project and checked before anything
 * is touched; then the replaced folders are backed up and moved aside, the new ones moved into
 * place, the project file and `pkg.json` written, and the lock written last. Any failure puts
 * back every folder and file as it was.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { VersionRecord } from '@pkg/protocol';
import type { FileSystem } from '../deps.js';
import type { Engine } from '../engines/engine.js';
import type { EngineInstaller } from '../engines/installer.js';
import { PKG_JSON, PKG_LOCK } from '../engines/pkg-json.js';
import type { ProjectFs } from '../files/project-fs.js';
import { extractPackage } from '../files/safe-extract.js';
import type { TarballFile } from '../files/tar-entries.js';
import { writeFileAtomic } from '../io/fs.js';
import { ClientError } from '../errors/client-errors.js';
import { newBackupFolder } from '../files/backup.js';
import { STAGING_PREFIX, writeJournal, type InstallJournal } from './interrupted-install.js';
import { serializeLock, type LockFile, type LockedEdit, type LockedPackage } from './lock-file.js';
import { digestFiles, folderMissing, listFiles, localChanges } from './package-files.js';
import { eachBounded } from '../cache/parallel-downloads.js';
import { digestOf } from '../cache/tarball-cache.js';
import type { ExpectedDigest } from '../cache/integrity.js';

/** Packages extracted into the staging folder at once. */
const EXTRACT_CONCURRENCY = 4;

export interface PackageToInstall {
  record: VersionRecord;
  /** The verified tarball's file in the cache, streamed as it is extracted. */
  tarball: TarballFile;
  /** When restoring the lock: the files the lock says the package has, which the tarball must match. */
  expectedFiles?: Record<string, string>;
  /**
   * The tarball is a cached file not checked yet: its digest is computed as it is extracted, and
   * one that differs stops the transaction (`CachedTarballChanged`) before anything moves.
   */
  unverified?: ExpectedDigest;
}

/** A cached tarball did not have its digest when it was extracted: fetch it (`TarballCache.fetch`) and start again. */
export class CachedTarballChanged extends Error {
  constructor(readonly label: string) {
    super(`the cached tarball of ${label} does not have the expected digest`);
    this.name = 'CachedTarballChanged';
  }
}

export interface InstallTransaction {
  fs: FileSystem;
  projectFs: ProjectFs;
  engine: Engine & { installer: EngineInstaller };
  project: string;
  /** The lock as read; the file is written last, so a failure before that leaves it as it was. */
  lock: LockFile;
  /** Packages whose folder is (re)written. */
  install: PackageToInstall[];
  /** Packages removed from the project. */
  remove: string[];
  /** The new `pkg.json` text; null leaves it alone. */
  manifestText: string | null;
  /** Go on over files changed by hand (they are in the backup). */
  force: boolean;
  /** Where the backup folder goes (the system's temp directory). */
  backupRoot: string;
  now: Date;
}

interface Staged {
  name: string;
  record: VersionRecord;
  /** The extracted folder that becomes the target. */
  dir: string;
  target: string;
  files: Record<string, string>;
}

const posix = (p: string) => p.split('/');

/** Applies the transaction; returns the backup folder (null when nothing was replaced or written). */
export async function applyInstall(tx: InstallTransaction): Promise<{ backupPath: string | null }> {
  const { fs, engine, project, lock } = tx;
  const installer = engine.installer;
  const replaced = [...new Set([...tx.install.map((p) => p.record.name), ...tx.remove])].filter((n) => lock.packages[n]);

  // 1. Hand edits stop everything, before anything is downloaded into the project.
  if (!tx.force) {
    const changes = [];
    for (const name of replaced) {
      const locked = lock.packages[name]!;
      if (await folderMissing(fs, project, locked.folder)) continue;
      // A deleted file has nothing to lose; a changed or added one would be overwritten or removed.
      changes.push(...(await localChanges(fs, project, locked, installer)).filter((c) => c.change !== 'deleted'));
    }
    if (changes.length > 0) {
      const shown = changes.slice(0, 10).map((c) => `${c.path} (${c.change})`);
      throw new ClientError('LOCAL_CHANGES', {
        files: `${shown.join(', ')}${changes.length > 10 ? ` and ${changes.length - 10} more` : ''}`,
      });
    }
  }

  const projectFileName = await installer.projectFile(project, tx.projectFs);
  const projectFile = path.join(project, projectFileName);
  const projectText = await tx.projectFs.readTextIfExists(projectFile);
  if (projectText === null) {
    throw new ClientError('PROJECT_FILE_GONE', { file: projectFileName, project });
  }
  const staging = path.join(project, `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`);
  await fs.mkdir(staging);
  try {
    // 2. Extract and check every package in the staging folder.
    // Several at once: extraction waits on the disk and on zlib's threads, not on this one.
    const staged: Staged[] = await eachBounded(tx.install, EXTRACT_CONCURRENCY, async (item, i) => {
      const { record } = item;
      const label = `${record.name}@${record.version}`;
      const extracted = path.join(staging, `new-${i}`);
      const written: Record<string, string> = {};
      const check = item.unverified;
      const fileHash = check ? createHash(check.algorithm) : undefined;
      try {
        await extractPackage(fs, item.tarball, extracted, label, written, fileHash);
      } catch (err) {
        // A damaged file may fail to extract before its end: its digest says whether it is the cause.
        if (check && (await digestOf(fs, item.tarball, check.algorithm)) !== check.digest) throw new CachedTarballChanged(label);
        throw err;
      }
      if (check && fileHash!.digest('base64') !== check.digest) throw new CachedTarballChanged(label);
      const all = await listFiles(fs, extracted);
      const layout = installer.layout(all, record);
      const prefix = layout.source === '' ? '' : `${layout.source}/`;
      const dir = layout.source === '' ? extracted : path.join(extracted, ...posix(layout.source));
      for (const excluded of layout.exclude) await fs.rm(path.join(dir, ...posix(excluded)), { force: true });
      const files = all
        .filter((f) => f.startsWith(prefix))
        .map((f) => f.slice(prefix.length))
        .filter((f) => !layout.exclude.includes(f));
      // Digested as they were written; a file on disk that extraction did not write is read.
      const digests: Record<string, string> = {};
      for (const f of files) digests[f] = written[prefix + f] ?? (await digestFiles(fs, dir, [f]))[f]!;
      if (item.expectedFiles && !sameFiles(item.expectedFiles, digests)) {
        throw new ClientError('INSTALLED_FILES_DIFFER', { label, lock: PKG_LOCK });
      }
      return { name: record.name, record, dir, target: layout.target, files: digests };
    });

    // 3. A folder that exists must be one the lock gives to a package being replaced or removed.
    const leaving = new Set(replaced);
    for (const [i, s] of staged.entries()) {
      const other = staged.findIndex((o, j) => j !== i && o.target === s.target);
      if (other !== -1) {
        throw new ClientError('TARGETS_CLASH', { name: s.name, other: staged[other]!.name, target: s.target });
      }
      const owner = Object.entries(lock.packages).find(([, p]) => p.folder === s.target)?.[0];
      if (owner !== undefined ? !leaving.has(owner) : !(await folderMissing(fs, project, s.target))) {
        throw owner !== undefined
          ? new ClientError('TARGET_OWNED', { target: s.target, owner, name: s.name })
          : new ClientError('TARGET_EXISTS', { target: s.target, lock: PKG_LOCK });
      }
    }

    // 4. The new project file: the leaving packages' edits undone, the new ones' made.
    let text = projectText;
    const orphaned = new Map<string, string>();
    for (const name of replaced) {
      for (const edit of [...lock.packages[name]!.projectEdits].reverse()) {
        text = installer.disable(text, edit);
        if (edit.created !== undefined) orphaned.set(edit.kind, edit.created);
      }
    }
    const entries = new Map<string, LockedPackage>(Object.entries(lock.packages).filter(([n]) => !leaving.has(n)));
    for (const s of staged) {
      const enabled = installer.enable(text, s.target, Object.keys(s.files));
      const projectEdits: LockedEdit[] = [];
      if (enabled) {
        text = enabled.text;
        projectEdits.push({ file: projectFileName, ...enabled.edit });
      }
      entries.set(s.name, {
        version: s.record.version,
        resolved: String(s.record.dist.tarball),
        integrity: String(s.record.dist.integrity),
        ...(s.record.dependencies && Object.keys(s.record.dependencies).length > 0
          ? { dependencies: { ...s.record.dependencies } }
          : {}),
        folder: s.target,
        files: s.files,
        projectEdits,
      });
    }
    adoptCreations(entries, orphaned);
    const newLock: LockFile = { lockfileVersion: lock.lockfileVersion, packages: Object.fromEntries(entries) };

    // Files under version control are read-only until checked out (Perforce): every one this
    // change writes is checked out or named now, before anything in the project moves.
    const manifestFile = path.join(project, PKG_JSON);
    const manifestBefore = await tx.projectFs.readTextIfExists(manifestFile);
    await tx.projectFs.ensureWritable([
      ...(text !== projectText ? [projectFile] : []),
      ...(tx.manifestText !== null && manifestBefore !== tx.manifestText ? [manifestFile] : []),
      path.join(project, PKG_LOCK),
    ]);

    // 5. The backup: only what this is about to change and cannot be had again. The files of a
    // replaced package are in the cache and the lock names them, so only the ones changed or
    // added by hand (kept with --force) are copied; and the three files this writes.
    const handEdited: string[] = [];
    for (const name of replaced) {
      const locked = lock.packages[name]!;
      if (await folderMissing(fs, project, locked.folder)) continue;
      const changes = await localChanges(fs, project, locked, installer);
      handEdited.push(...changes.filter((c) => c.change !== 'deleted').map((c) => c.path));
    }
    const rewritten = [
      ...(text !== projectText ? [projectFileName] : []),
      ...(tx.manifestText !== null && manifestBefore !== tx.manifestText ? [PKG_JSON] : []),
      PKG_LOCK,
    ];
    const backupPath = await backup(tx, [...rewritten, ...handEdited]);

    // 6. What moves where, decided before anything moves, and written down (the journal) so
    // that a run after a kill can undo it (interrupted-install.ts).
    const movedAside: InstallJournal['movedAside'] = [];
    for (const [i, name] of replaced.entries()) {
      const folder = lock.packages[name]!.folder;
      if (!(await folderMissing(fs, project, folder))) movedAside.push({ folder, aside: `old-${i}` });
    }
    const createdParents: string[] = [];
    for (const s of staged) {
      const parent = s.target.split('/').slice(0, -1).join('/');
      if (parent !== '' && !createdParents.includes(parent) && (await folderMissing(fs, project, parent))) {
        createdParents.push(parent);
      }
    }
    // Created folders stay recorded while a package is in them; with none left, an empty one
    // goes, and anything else in it is the user's, and so is the folder.
    const createdFolders = [...new Set([...(lock.createdFolders ?? []), ...createdParents])];
    const emptied = createdFolders.filter((f) => !Object.values(newLock.packages).some((p) => p.folder.startsWith(`${f}/`)));
    const stillCreated = createdFolders.filter((f) => !emptied.includes(f));
    if (stillCreated.length > 0) newLock.createdFolders = stillCreated;
    else delete newLock.createdFolders;
    const newLockText = serializeLock(newLock);
    const mayRemove: string[] = [];
    for (const f of emptied) if (!createdParents.includes(f) && !(await folderMissing(fs, project, f))) mayRemove.push(f);
    await writeJournal(fs, staging, {
      projectFile: projectFileName,
      projectText,
      manifestText: manifestBefore,
      lockText: newLockText,
      movedAside,
      placed: staged.map((s) => s.target),
      createdParents,
      mayRemove,
    });

    // 7. Move, write, and undo all of it on any failure.
    const undo: (() => Promise<void>)[] = [];
    try {
      for (const { folder, aside: asideName } of movedAside) {
        const target = path.join(project, ...posix(folder));
        const aside = path.join(staging, asideName);
        await fs.rename(target, aside);
        undo.push(() => fs.rename(aside, target));
        const name = replaced.find((n) => lock.packages[n]!.folder === folder);
        const incoming = staged.find((s) => s.name === name);
        if (incoming) await keepGenerated(fs, installer, aside, incoming.dir);
      }
      for (const parent of createdParents) {
        const dir = path.join(project, ...posix(parent));
        await fs.mkdir(dir, { recursive: true });
        // Created here (`addons/` of a project that had none): everything in it is this change's.
        undo.push(() => fs.rm(dir, { recursive: true, force: true }));
      }
      for (const s of staged) {
        const target = path.join(project, ...posix(s.target));
        await fs.rename(s.dir, target);
        undo.push(() => fs.rm(target, { recursive: true, force: true }));
      }
      for (const folder of emptied) {
        const dir = path.join(project, ...posix(folder));
        if ((await fs.readdir(dir).catch(() => null))?.length !== 0) continue;
        await fs.rm(dir, { recursive: true, force: true });
        undo.push(() => fs.mkdir(dir, { recursive: true }).then(() => undefined));
      }
      if (text !== projectText) {
        await tx.projectFs.writeTextAtomic(projectFile, text);
        undo.push(() => tx.projectFs.writeTextAtomic(projectFile, projectText));
      }
      if (tx.manifestText !== null && manifestBefore !== tx.manifestText) {
        await engine.writeManifest(project, tx.manifestText, tx.projectFs);
        undo.push(() =>
          manifestBefore === null
            ? fs.rm(manifestFile, { force: true })
            : tx.projectFs.writeTextAtomic(manifestFile, manifestBefore),
        );
      }
      const lockFile = path.join(project, PKG_LOCK);
      await writeFileAtomic(fs, lockFile, newLockText);
    } catch (err) {
      const cause = err instanceof Error ? err.message : String(err);
      const failures: string[] = [];
      for (const step of undo.reverse()) {
        await step().catch((e: Error) => failures.push(e.message));
      }
      const backup = backupPath ? `The backup is in ${backupPath}.` : '';
      throw failures.length === 0
        ? new ClientError('INSTALL_FAILED', { project, reason: cause, backup }, { cause: err })
        : new ClientError(
            'INSTALL_UNDO_FAILED',
            { project, reason: cause, failures: failures.join('; '), backup },
            { cause: err },
          );
    }
    return { backupPath };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

function sameFiles(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * When the package whose edit created the plugin list leaves while others stay in it, one of
 * those takes over the note, so that removing the last one still removes what the first created.
 */
function adoptCreations(entries: Map<string, LockedPackage>, orphaned: Map<string, string>): void {
  for (const [kind, created] of orphaned) {
    const edits = [...entries.values()].flatMap((p) => p.projectEdits.filter((e) => e.kind === kind));
    if (edits.length === 0 || edits.some((e) => e.created !== undefined)) continue;
    edits[0]!.created = created;
  }
}

/** Carries generated files the engine keeps across versions (Godot's `*.uid`) into the new folder. */
async function keepGenerated(fs: FileSystem, installer: EngineInstaller, from: string, to: string): Promise<void> {
  for (const file of await listFiles(fs, from)) {
    if (!installer.keepsOnUpdate(file)) continue;
    const target = path.join(to, ...posix(file));
    if (
      await fs.stat(target).then(
        () => true,
        () => false,
      )
    )
      continue;
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.copyFile(path.join(from, ...posix(file)), target);
  }
}

/** `<tmp>/pkg-backup-<time>/` with the files and folders that exist; null when none does. */
async function backup(tx: InstallTransaction, files: string[]): Promise<string | null> {
  const { fs, project } = tx;
  const present = [];
  for (const p of files) if (!(await folderMissing(fs, project, p))) present.push(p);
  if (present.length === 0) return null;
  const dir = await newBackupFolder(fs, tx.backupRoot, tx.now, project, present);
  for (const p of present) {
    const target = path.join(dir, ...posix(p));
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.copyFile(path.join(project, ...posix(p)), target);
  }
  return dir;
}
