/**
 * Backups taken before a project changes: `<tmp>/pkg-backup-<timestamp>/<path in project>`,
 * holding only the files about to change, and `pkg-backup.json` saying which project they
 * belong to. They stay after a successful run (the report names the folder, and a person can
 * copy a file back by hand); of each project's, the newest `backupsKept` (a setting, 10 by
 * default) are kept, older ones go.
 */
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { writeFileAtomic } from '../io/fs.js';

export interface Backup {
  dir: string;
  /** Project-relative paths of the files saved. */
  files: string[];
}

/** `2024-05-01T12-30-05-123Z`: sortable and valid in a file name on every platform. */
export function backupTimestamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, '-');
}

/** The file in every backup folder that says what it holds. */
export const BACKUP_INFO = 'pkg-backup.json';

export interface BackupInfo {
  /** The project's folder: the files are relative to it. */
  project: string;
  /** When the backup was taken (ISO 8601). */
  created: string;
  /** The files saved, relative to the project, with `/`. */
  files: string[];
}

/**
 * Makes and returns `<root>/pkg-backup-<timestamp>` (with `-2`, `-3`… when a run in the same
 * millisecond has it), with its `pkg-backup.json`.
 */
export async function newBackupFolder(
  fs: FileSystem,
  root: string,
  now: Date,
  project: string,
  files: readonly string[],
): Promise<string> {
  await fs.mkdir(root, { recursive: true });
  const base = path.join(root, `pkg-backup-${backupTimestamp(now)}`);
  for (let dir = base, n = 2; ; dir = `${base}-${n++}`) {
    try {
      await fs.mkdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      continue;
    }
    const info: BackupInfo = { project, created: now.toISOString(), files: [...files] };
    await fs.writeFile(path.join(dir, BACKUP_INFO), `${JSON.stringify(info, null, 2)}\n`);
    return dir;
  }
}

/** The project a backup folder belongs to; undefined for one without a readable `pkg-backup.json`. */
async function projectOf(fs: FileSystem, dir: string): Promise<string | undefined> {
  try {
    const info = JSON.parse(await fs.readFile(path.join(dir, BACKUP_INFO), 'utf8')) as Partial<BackupInfo>;
    return typeof info.project === 'string' ? info.project : undefined;
  } catch {
    return undefined;
  }
}

/** Copies `files` (relative to `project`) into a new backup folder under `root`. */
export async function createBackup(fs: FileSystem, root: string, now: Date, project: string, files: string[]): Promise<Backup> {
  const dir = await newBackupFolder(fs, root, now, project, files);
  for (const file of files) {
    const target = path.join(dir, file);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.copyFile(path.join(project, file), target);
  }
  return { dir, files };
}

/** Puts every backed-up file back, atomically, byte for byte. */
export async function restoreBackup(fs: FileSystem, backup: Backup, project: string): Promise<void> {
  for (const file of backup.files) {
    const saved = await fs.readFile(path.join(backup.dir, file));
    await writeFileAtomic(fs, path.join(project, file), saved);
  }
}

const BACKUP_FOLDER = /^pkg-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z(?:-(\d+))?$/;

/**
 * Removes all but the newest `keep` backup folders of `project` under `root` (0 keeps them
 * all): another project's backups, and folders that do not say their project (an older `pkg`'s),
 * are not counted and not removed. Best effort: a folder that cannot be removed (another user's,
 * in use) is left for the next run.
 */
export async function pruneBackups(fs: FileSystem, root: string, keep: number, project: string): Promise<string[]> {
  if (keep <= 0) return [];
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return [];
  }
  // Timestamps sort as text; a `-<n>` suffix (two backups in one millisecond) comes after.
  const order = (name: string) => {
    const match = BACKUP_FOLDER.exec(name)!;
    return `${name.slice(0, 'pkg-backup-'.length + 24)}${(match[1] ?? '1').padStart(6, '0')}`;
  };
  const backups: string[] = [];
  for (const name of names.filter((n) => BACKUP_FOLDER.test(n))) {
    if ((await projectOf(fs, path.join(root, name))) === project) backups.push(name);
  }
  backups.sort((a, b) => (order(a) < order(b) ? -1 : 1));
  const removed: string[] = [];
  for (const name of backups.slice(0, Math.max(0, backups.length - keep))) {
    try {
      await fs.rm(path.join(root, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // left for the next run
    }
  }
  return removed;
}
