/**
 * A change to a Godot or Unreal project killed half-way (Ctrl+C twice, a crash, a power cut)
 * cannot undo itself, so before it moves anything it writes a journal into its staging folder:
 * what it will move where and the texts it will overwrite. The next `pkg` run on the project,
 * holding the project's lock, finds the staging folder and finishes the job the killed one
 * could not: a change whose lock was written is complete (its staging folder is only removed);
 * any other is rolled back from the journal, so the project is again as before it.
 */
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { PKG_JSON, PKG_LOCK } from '../engines/pkg-json.js';
import type { ProjectFs } from '../files/project-fs.js';
import { isAtomicWriteTemp, writeFileAtomic } from '../io/fs.js';
import { isSafeRelative } from './lock-file.js';
import { folderMissing } from './package-files.js';

/** Every change stages in `<project>/.pkg-staging-<random>/`. */
export const STAGING_PREFIX = '.pkg-staging-';
const JOURNAL = 'journal.json';

export interface InstallJournal {
  /** The project file (relative) and its text before the change. */
  projectFile: string;
  projectText: string;
  /** `pkg.json`'s text before the change; null when there was none. */
  manifestText: string | null;
  /** The lock the change writes last: when it is on disk, the change completed. */
  lockText: string;
  /** Package folders that exist and are moved aside, each to `<staging>/<aside>`. */
  movedAside: { folder: string; aside: string }[];
  /** Folders the change puts packages into. */
  placed: string[];
  /** Parent folders (`addons`) missing before the change, which it creates. */
  createdParents: string[];
  /** Folders that existed before the change and that it may remove when they become empty. */
  mayRemove: string[];
}

export async function writeJournal(fs: FileSystem, staging: string, journal: InstallJournal): Promise<void> {
  await writeFileAtomic(fs, path.join(staging, JOURNAL), JSON.stringify(journal));
}

const posix = (p: string) => p.split('/');

/**
 * Completes or rolls back the changes of `pkg` processes that were killed, and removes their
 * staging folders. Call it holding the project's lock. Returns what it did, for a warning.
 */
export async function recoverInterrupted(
  fs: FileSystem,
  projectFs: ProjectFs,
  project: string,
): Promise<{ rolledBack: number; removed: number }> {
  let rolledBack = 0;
  let removed = 0;
  const leftovers = (await projectFs.listDir(project)).filter((n) => n.startsWith(STAGING_PREFIX)).sort();
  for (const name of leftovers) {
    const staging = path.join(project, name);
    // Only a real folder is one of ours: a link's target is never read or changed (rm drops the link).
    const text = (await fs.lstat(staging)).isDirectory() ? await projectFs.readTextIfExists(path.join(staging, JOURNAL)) : null;
    // No journal: the change stopped before it moved anything.
    if (text !== null) {
      const journal = parseJournal(text);
      // Not one this program wrote (a crafted folder in a cloned project): its paths are not followed.
      if (journal === null) {
        await fs.rm(staging, { recursive: true, force: true });
        removed++;
        continue;
      }
      // A write of one of the three files cut between its temporary file and the rename.
      const written = [journal.projectFile, PKG_JSON, PKG_LOCK];
      for (const file of await projectFs.listDir(project)) {
        if (written.some((w) => isAtomicWriteTemp(file, w))) await fs.rm(path.join(project, file), { force: true });
      }
      const lockText = await projectFs.readTextIfExists(path.join(project, PKG_LOCK));
      if (lockText !== journal.lockText) {
        await rollBack(fs, projectFs, project, staging, journal);
        rolledBack++;
      }
    }
    await fs.rm(staging, { recursive: true, force: true });
    removed++;
  }
  return { rolledBack, removed };
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isFolderList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isSafeRelative);

/**
 * The journal, when every path in it stays inside the project (it decides what is deleted and
 * moved); else null. It is trusted as far as `pkg-lock.json` is: within the project.
 */
function parseJournal(text: string): InstallJournal | null {
  let j: Partial<Record<keyof InstallJournal, unknown>>;
  try {
    j = JSON.parse(text) as typeof j;
  } catch {
    return null;
  }
  const valid =
    typeof j === 'object' &&
    j !== null &&
    isSafeRelative(j.projectFile) &&
    !j.projectFile.includes('/') &&
    isText(j.projectText) &&
    (j.manifestText === null || isText(j.manifestText)) &&
    isText(j.lockText) &&
    Array.isArray(j.movedAside) &&
    j.movedAside.every(
      (m: unknown) =>
        typeof m === 'object' &&
        m !== null &&
        isSafeRelative((m as { folder?: unknown }).folder) &&
        /^old-\d+$/.test(String((m as { aside?: unknown }).aside)),
    ) &&
    isFolderList(j.placed) &&
    isFolderList(j.createdParents) &&
    isFolderList(j.mayRemove);
  return valid ? (j as InstallJournal) : null;
}

async function rollBack(fs: FileSystem, projectFs: ProjectFs, project: string, staging: string, journal: InstallJournal) {
  const at = (folder: string) => path.join(project, ...posix(folder));
  for (const folder of journal.placed) {
    const moved = journal.movedAside.find((m) => m.folder === folder);
    // A folder that was moved aside and is still aside: what is in its place is the new one.
    // One never moved aside (or already back) is the old one, or is missing.
    if (moved === undefined || !(await folderMissing(fs, staging, moved.aside))) {
      await fs.rm(at(folder), { recursive: true, force: true });
    }
  }
  for (const moved of journal.movedAside) {
    if (await folderMissing(fs, staging, moved.aside)) continue;
    await fs.rm(at(moved.folder), { recursive: true, force: true });
    await fs.mkdir(path.dirname(at(moved.folder)), { recursive: true });
    await fs.rename(path.join(staging, ...posix(moved.aside)), at(moved.folder));
  }
  for (const folder of journal.createdParents) {
    const entries = await fs.readdir(at(folder)).catch(() => null);
    if (entries?.length === 0) await fs.rm(at(folder), { recursive: true, force: true });
  }
  for (const folder of journal.mayRemove) await fs.mkdir(at(folder), { recursive: true });
  const projectFile = at(journal.projectFile);
  if ((await projectFs.readTextIfExists(projectFile)) !== journal.projectText) {
    await projectFs.writeTextAtomic(projectFile, journal.projectText);
  }
  const manifestFile = path.join(project, PKG_JSON);
  if (journal.manifestText === null) await fs.rm(manifestFile, { force: true });
  else if ((await projectFs.readTextIfExists(manifestFile)) !== journal.manifestText) {
    await projectFs.writeTextAtomic(manifestFile, journal.manifestText);
  }
}
