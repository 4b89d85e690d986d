/**
 * Packing a package folder as `npm pack` does: npm-packlist picks the files (the `files` field,
 * `.npmignore` or `.gitignore`, npm's always-included and never-included lists), and tar writes
 * them under `package/`, sorted, with npm's fixed mtime and normalized modes, so the same folder
 * always gives the same bytes. The tarball goes to a file: a package may be hundreds of MB.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

/** npm's fixed date for every entry (pacote's), so packing does not depend on file times. */
const FIXED_MTIME = new Date('1985-10-26T08:15:00.000Z');

export interface PackedFile {
  /** Relative to the package root, `/`-separated. */
  path: string;
  size: number;
}

export interface PackResult {
  /** Where the tarball was written. */
  file: string;
  files: PackedFile[];
  /** Bytes of the tarball. */
  size: number;
  unpackedSize: number;
  integrity: string;
  shasum: string;
}

/** The files npm would publish from `dir`, sorted; `manifest` is its package.json. */
export async function packFileList(dir: string, manifest: Record<string, unknown>): Promise<PackedFile[]> {
  const { default: packlist } = await import('npm-packlist');
  const names = await packlist({ path: dir, package: manifest, isProjectRoot: true, edgesOut: new Map() });
  const sorted = [...new Set(names.map((n) => n.replace(/\\/g, '/')))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(sorted.map(async (name) => ({ path: name, size: (await stat(path.join(dir, name))).size })));
}

/** Writes the tarball of `files` (from packFileList) to `target` and measures it. */
export async function packTarball(dir: string, files: PackedFile[], target: string): Promise<PackResult> {
  const { create } = await import('tar');
  await create(
    {
      cwd: dir,
      file: target,
      prefix: 'package/',
      portable: true,
      gzip: { level: 9 },
      mtime: FIXED_MTIME,
      // Modes as npm normalizes them: 0644, or 0755 for anything executable.
      onWriteEntry(entry) {
        if (entry.stat) entry.stat.mode = (entry.stat.mode & ~0o7777) | (entry.stat.mode & 0o111 ? 0o755 : 0o644);
      },
    },
    files.map((f) => f.path),
  );
  const measured = await measureFile(target);
  return { file: target, files, ...measured, unpackedSize: files.reduce((sum, f) => sum + f.size, 0) };
}

/** A tarball's size and the digests npm sends with it, read once from disk. */
export async function measureFile(file: string): Promise<{ size: number; integrity: string; shasum: string }> {
  const sha512 = createHash('sha512');
  const sha1 = createHash('sha1');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    sha512.update(chunk as Buffer);
    sha1.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, integrity: `sha512-${sha512.digest('base64')}`, shasum: sha1.digest('hex') };
}
