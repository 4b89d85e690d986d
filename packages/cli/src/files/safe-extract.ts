/**
 * Extracting a package tarball where a malicious one cannot reach: every entry must be a plain
 * file or folder below the tarball's single top folder (`package/`), with no absolute path, no
 * `..`, no drive letter or backslash, and no link or device. One bad entry refuses the whole
 * tarball and leaves nothing written: each entry is checked before it is written, each file is
 * streamed to disk (a tarball of any size is never held in memory), and what a tarball refused
 * half-way wrote is removed.
 *
 * Names Windows cannot hold are refused on every system: a project is shared by a team through
 * Perforce or git, usually with Windows machines among them, and a package that installs on a Mac
 * but not beside it on Windows breaks the team's project. On Windows they are worse than
 * unreadable: `a.cs:x` writes a hidden stream of `a.cs`, `nul.cs` writes nothing, `a.` is `a`.
 */
import { createHash, type Hash } from 'node:crypto';
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';
import { forEachTarEntry, type TarballFile, type TarEntryType } from './tar-entries.js';

const FILE_TYPES = new Set<TarEntryType>(['File', 'OldFile', 'ContiguousFile']);

/** Device names Windows reserves in every folder, with any extension (`con.txt` is the console). */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
/** Characters Windows refuses in a name (`:` would name an alternate data stream instead). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const WINDOWS_FORBIDDEN = /[<>:"|?*\x00-\x1f]/;

/** Why Windows cannot hold a file or folder of this name; null when it can. */
export function windowsNameProblem(segment: string): string | null {
  // The name itself is not repeated: it may hold control characters.
  if (WINDOWS_FORBIDDEN.test(segment)) return 'a character Windows refuses in a name (< > : " | ? * or a control character)';
  if (WINDOWS_DEVICE.test(segment)) return `'${segment}', a device name on Windows`;
  if (/[. ]$/.test(segment)) return `'${segment}' ends with a dot or a space, which Windows drops`;
  return null;
}

/** The entry's path inside the package (top folder removed), or why it is refused. */
export function packageRelativePath(entryPath: string): { ok: true; path: string | null } | { ok: false; reason: string } {
  if (entryPath.includes('\0')) return { ok: false, reason: 'a NUL byte in the path' };
  if (entryPath.includes('\\')) return { ok: false, reason: 'a backslash in the path' };
  if (entryPath.startsWith('/') || /^[A-Za-z]:/.test(entryPath)) return { ok: false, reason: 'an absolute path' };
  const segments = entryPath.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { ok: false, reason: "a '..' segment" };
  // npm tarballs keep everything under one top folder (`package/`); it is dropped on extraction.
  const inside = segments.slice(1);
  for (const segment of inside) {
    const problem = windowsNameProblem(segment);
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true, path: inside.length === 0 ? null : inside.join('/') };
}

/**
 * Where `relative` (with `/`) lands below `root`, or null when it would land outside it. `paths`
 * is the platform's path module (`path.win32` in tests of Windows paths: drive letters, `\\`).
 */
export function targetBelow(root: string, relative: string, paths: path.PlatformPath = path): string | null {
  const base = paths.resolve(root);
  const target = paths.resolve(base, ...relative.split('/'));
  const inside = paths.relative(base, target);
  if (inside === '' || inside.startsWith('..') || paths.isAbsolute(inside)) return null;
  return target;
}

/**
 * Extracts the tarball `file` into `destination`, streamed; returns how many files it wrote.
 * With `digests`, the SHA-256 of each file written (`sha256-<base64>`, by its path inside the
 * package) is put there as it is written, so the caller need not read the files back; with
 * `fileHash`, every byte of the tarball's file is fed to it as it is read.
 *
 * One pass: each entry is checked before anything of it is written, and a refused entry (or a
 * tarball that stops being readable) removes what the earlier entries wrote, so a refused
 * tarball leaves nothing behind, without reading and unzipping the file twice.
 */
export async function extractPackage(
  fs: FileSystem,
  file: TarballFile,
  destination: string,
  label: string,
  digests?: Record<string, string>,
  fileHash?: Hash,
): Promise<number> {
  const root = path.resolve(destination);
  const existed = await fs.stat(root).then(
    () => true,
    () => false,
  );
  await fs.mkdir(root, { recursive: true });
  const written: string[] = [];
  // Folders known to exist: most entries share theirs with the entry before.
  const folders = new Set<string>([root]);
  const ensureFolder = async (dir: string) => {
    if (folders.has(dir)) return;
    await fs.mkdir(dir, { recursive: true });
    folders.add(dir);
  };
  let files = 0;
  try {
    await readEntries(
      fs,
      file,
      label,
      async (entry) => {
        const refuse = (reason: string) => new ClientError('UNSAFE_TARBALL', { label, entry: entry.path, reason });
        if (!FILE_TYPES.has(entry.type) && entry.type !== 'Directory') throw refuse(`an unsupported type (${entry.type})`);
        const relative = packageRelativePath(entry.path);
        if (!relative.ok) throw refuse(relative.reason);
        if (relative.path === null) return;
        const target = targetBelow(root, relative.path);
        if (target === null) throw refuse('a path outside the package');
        if (entry.type === 'Directory') {
          await ensureFolder(target);
          return;
        }
        await ensureFolder(path.dirname(target));
        written.push(target);
        // Modes from the archive are not kept: no executable or setuid bits from a download.
        const handle = await fs.open(target, 'w', 0o644);
        const hash = digests ? createHash('sha256') : undefined;
        try {
          for await (const chunk of entry.data) {
            hash?.update(chunk);
            await handle.write(chunk);
          }
        } finally {
          await handle.close();
        }
        // A path given twice holds the last entry's bytes, and so does its digest.
        if (digests && hash) digests[relative.path] = `sha256-${hash.digest('base64')}`;
        files++;
      },
      fileHash,
    );
  } catch (err) {
    if (existed) for (const target of written) await fs.rm(target, { force: true });
    else await fs.rm(root, { recursive: true, force: true });
    throw err;
  }
  return files;
}

/** The tarball's entries; a tarball that cannot be read is `UNREADABLE_TARBALL`. */
async function readEntries(
  fs: FileSystem,
  file: TarballFile,
  label: string,
  onEntry: Parameters<typeof forEachTarEntry>[2],
  fileHash?: Hash,
): Promise<void> {
  try {
    await forEachTarEntry(fs, file, onEntry, fileHash);
  } catch (err) {
    if (err instanceof ClientError) throw err;
    throw new ClientError('UNREADABLE_TARBALL', { label, reason: (err as Error).message });
  }
}
