/**
 * Extracting a package tarball where a malicious one cannot reach: every entry must be a plain
 * file or folder below the tarball's single top folder (`package/`), with no absolute path, no
 * `..`, no drive letter or backslash, and no link or device. One bad entry refuses the whole
 * tarball before anything is written: a first pass reads only the headers, a second streams each
 * file to disk, so a tarball of any size is never held in memory.
 */
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';
import { forEachTarEntry, type TarballSource, type TarEntryType } from './tar-entries.js';

const FILE_TYPES = new Set<TarEntryType>(['File', 'OldFile', 'ContiguousFile']);

/** The entry's path inside the package (top folder removed), or why it is refused. */
export function packageRelativePath(entryPath: string): { ok: true; path: string | null } | { ok: false; reason: string } {
  if (entryPath.includes('\0')) return { ok: false, reason: 'a NUL byte in the path' };
  if (entryPath.includes('\\')) return { ok: false, reason: 'a backslash in the path' };
  if (entryPath.startsWith('/') || /^[A-Za-z]:/.test(entryPath)) return { ok: false, reason: 'an absolute path' };
  const segments = entryPath.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { ok: false, reason: "a '..' segment" };
  // npm tarballs keep everything under one top folder (`package/`); it is dropped on extraction.
  const inside = segments.slice(1);
  return { ok: true, path: inside.length === 0 ? null : inside.join('/') };
}

/** Extracts `tarball` (a file's path, or bytes) into `destination`; returns how many files it wrote. */
export async function extractPackage(
  fs: FileSystem,
  tarball: TarballSource,
  destination: string,
  label: string,
): Promise<number> {
  const root = path.resolve(destination);
  // Pass 1: every header checked; the target of each entry, in order (null: nothing to write).
  const targets: ({ target: string; folder: boolean } | null)[] = [];
  await readEntries(fs, tarball, label, async (entry) => {
    const refuse = (reason: string) => new ClientError('UNSAFE_TARBALL', { label, entry: entry.path, reason });
    if (!FILE_TYPES.has(entry.type) && entry.type !== 'Directory') throw refuse(`an unsupported type (${entry.type})`);
    const relative = packageRelativePath(entry.path);
    if (!relative.ok) throw refuse(relative.reason);
    if (relative.path === null) {
      targets.push(null);
      return;
    }
    const target = path.resolve(root, ...relative.path.split('/'));
    if (!target.startsWith(root + path.sep)) throw refuse('a path outside the package');
    targets.push({ target, folder: entry.type === 'Directory' });
  });
  await fs.mkdir(root, { recursive: true });
  // Pass 2: the same entries, streamed to their files.
  let files = 0;
  let index = 0;
  await readEntries(fs, tarball, label, async (entry) => {
    const planned = targets[index++];
    if (!planned) return;
    if (planned.folder) {
      await fs.mkdir(planned.target, { recursive: true });
      return;
    }
    await fs.mkdir(path.dirname(planned.target), { recursive: true });
    // Modes from the archive are not kept: no executable or setuid bits from a download.
    const handle = await fs.open(planned.target, 'w', 0o644);
    try {
      for await (const chunk of entry.data) await handle.write(chunk);
    } finally {
      await handle.close();
    }
    files++;
  });
  return files;
}

/** The tarball's entries; a tarball that cannot be read is `UNREADABLE_TARBALL`. */
async function readEntries(
  fs: FileSystem,
  tarball: TarballSource,
  label: string,
  onEntry: Parameters<typeof forEachTarEntry>[2],
): Promise<void> {
  try {
    await forEachTarEntry(fs, tarball, onEntry);
  } catch (err) {
    if (err instanceof ClientError) throw err;
    throw new ClientError('UNREADABLE_TARBALL', { label, reason: (err as Error).message });
  }
}
