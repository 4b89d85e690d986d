/**
 * The file operations the project commands need, behind one small interface so tests can run
 * them on real temp directories and still inject a failure at an exact step.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

export interface ProjectFs {
  /** The file's text (UTF-8); throws when it cannot be read. */
  readText(file: string): Promise<string>;
  /** The file's text, or null when it does not exist. */
  readTextIfExists(file: string): Promise<string | null>;
  isFile(file: string): Promise<boolean>;
  isDirectory(dir: string): Promise<boolean>;
  mkdirp(dir: string): Promise<void>;
  /**
   * Replaces `file` with `text` atomically: written and flushed to a temporary file beside it,
   * then renamed over it, so a reader (Unity) sees the old bytes or the new, never half a file.
   */
  writeTextAtomic(file: string, text: string): Promise<void>;
  /** Copies a file, refusing to overwrite `to` unless `overwrite` is set. */
  copyFile(from: string, to: string, overwrite?: boolean): Promise<void>;
}

async function exists(p: string, kind: 'file' | 'dir'): Promise<boolean> {
  try {
    const s = await stat(p);
    return kind === 'file' ? s.isFile() : s.isDirectory();
  } catch {
    return false;
  }
}

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export const nodeProjectFs: ProjectFs = {
  readText: (file) => readFile(file, 'utf8'),
  async readTextIfExists(file) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  },
  isFile: (file) => exists(file, 'file'),
  isDirectory: (dir) => exists(dir, 'dir'),
  mkdirp: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  writeTextAtomic: (file, text) => writeFileAtomic(file, text),
  copyFile: (from, to, overwrite = false) => copyFile(from, to, overwrite ? 0 : constants.COPYFILE_EXCL),
};
