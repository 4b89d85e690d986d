/**
 * Extracting a package tarball where a malicious one cannot reach: every entry must be a plain
 * file or folder below the tarball's single top folder (`package/`), with no absolute path, no
 * `..`, no drive letter or backslash, and no link or device. One bad entry refuses the whole
 * tarball before anything is written.
 */
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { ClientError } from '../output/errors.js';
import { readTarEntries, type TarEntry } from './tar-entries.js';

const FILE_TYPES = new Set<TarEntry['type']>(['File', 'OldFile', 'ContiguousFile']);

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

export async function extractPackage(fs: FileSystem, tarball: Buffer, destination: string, label: string): Promise<number> {
  let entries: TarEntry[];
  try {
    entries = await readTarEntries(tarball);
  } catch (err) {
    throw new ClientError('UNREADABLE_TARBALL', { label, reason: (err as Error).message });
  }
  const root = path.resolve(destination);
  const plan: { target: string; entry: TarEntry }[] = [];
  for (const entry of entries) {
    const refuse = (reason: string) => new ClientError('UNSAFE_TARBALL', { label, entry: entry.path, reason });
    if (!FILE_TYPES.has(entry.type) && entry.type !== 'Directory') throw refuse(`an unsupported type (${entry.type})`);
    const relative = packageRelativePath(entry.path);
    if (!relative.ok) throw refuse(relative.reason);
    if (relative.path === null) continue;
    const target = path.resolve(root, ...relative.path.split('/'));
    if (!target.startsWith(root + path.sep)) throw refuse('a path outside the package');
    plan.push({ target, entry });
  }
  await fs.mkdir(root, { recursive: true });
  let files = 0;
  for (const { target, entry } of plan) {
    if (entry.type === 'Directory') {
      await fs.mkdir(target, { recursive: true });
      continue;
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    // Modes from the archive are not kept: no executable or setuid bits from a download.
    await fs.writeFile(target, entry.data, { mode: 0o644 });
    files++;
  }
  return files;
}
