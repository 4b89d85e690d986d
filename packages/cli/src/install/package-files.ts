/** The files of an installed package on disk: listing, digests, and what was changed by hand. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { hashFile } from '../io/file-hash.js';
import type { EngineInstaller } from '../engines/installer.js';
import type { LockedPackage } from './lock-file.js';

/** `sha256-<base64>` of a file, read in pieces (an installed file of any size is never held whole). */
export async function fileDigest(fs: FileSystem, file: string): Promise<string> {
  const hash = createHash('sha256');
  await hashFile(fs, file, hash);
  return `sha256-${hash.digest('base64')}`;
}

/** Every file below `dir`, relative to it with `/`, sorted; empty when `dir` does not exist. */
export async function listFiles(fs: FileSystem, dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string) => {
    let entries;
    try {
      entries = await fs.readdir(path.join(dir, relative), { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && relative === '') return;
      throw err;
    }
    for (const entry of entries) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else found.push(child);
    }
  };
  await walk('');
  return found.sort();
}

/** Digests of the files below `dir`, relative path → `sha256-…`. */
export async function digestFiles(fs: FileSystem, dir: string, files: readonly string[]): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const file of files) digests[file] = await fileDigest(fs, path.join(dir, ...file.split('/')));
  return digests;
}

export interface LocalChange {
  /** Relative to the project, with `/`. */
  path: string;
  change: 'modified' | 'deleted' | 'added';
}

/**
 * How the package's folder differs from what was installed: files changed, deleted or added by
 * hand. Files the engine generates (Godot's `*.import`) are not changes.
 */
export async function localChanges(
  fs: FileSystem,
  project: string,
  locked: LockedPackage,
  installer: EngineInstaller,
): Promise<LocalChange[]> {
  const dir = path.join(project, ...locked.folder.split('/'));
  const onDisk = new Set(await listFiles(fs, dir));
  const changes: LocalChange[] = [];
  for (const [file, digest] of Object.entries(locked.files)) {
    const where = `${locked.folder}/${file}`;
    if (!onDisk.has(file)) changes.push({ path: where, change: 'deleted' });
    else if ((await fileDigest(fs, path.join(dir, ...file.split('/')))) !== digest)
      changes.push({ path: where, change: 'modified' });
  }
  for (const file of onDisk) {
    if (!(file in locked.files) && !installer.isGenerated(file))
      changes.push({ path: `${locked.folder}/${file}`, change: 'added' });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** True when the folder does not exist at all (a fresh checkout without installed packages). */
export async function folderMissing(fs: FileSystem, project: string, folder: string): Promise<boolean> {
  try {
    await fs.stat(path.join(project, ...folder.split('/')));
    return false;
  } catch {
    return true;
  }
}
