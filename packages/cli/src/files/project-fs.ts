/**
 * The file operations engines need, as a narrow view of the client's `FileSystem`: tests hand in
 * a real file system with one operation made to fail, and see exactly what a user would.
 */
import type { FileSystem } from '../deps.js';
import { readTextIfExists, writeFileAtomic } from '../io/fs.js';
import { ensureWritable, type CheckoutRunner } from '../io/read-only.js';

export interface ProjectFs {
  /** The file's text, or null when it does not exist. */
  readTextIfExists(file: string): Promise<string | null>;
  isFile(file: string): Promise<boolean>;
  isDirectory(dir: string): Promise<boolean>;
  /**
   * Replaces `file` with `text` atomically (temporary file beside it, flushed, renamed over it),
   * so a reader such as the Unity editor sees the old bytes or the new, never half a file.
   */
  writeTextAtomic(file: string, text: string): Promise<void>;
  /** The names of the entries of `dir`; empty when it does not exist. */
  listDir(dir: string): Promise<string[]>;
  /**
   * Before a change writes anything: every file of `files` that is read-only (not checked out
   * of version control) is checked out by the `checkoutCommand` setting, or the change stops
   * naming them all (`FILES_READ_ONLY`). Files that do not exist yet are fine.
   */
  ensureWritable(files: readonly string[]): Promise<void>;
}

export function projectFs(fs: FileSystem, checkout: CheckoutRunner | null = null): ProjectFs {
  const is = async (p: string, kind: 'file' | 'dir') => {
    try {
      const s = await fs.stat(p);
      return kind === 'file' ? s.isFile() : s.isDirectory();
    } catch {
      return false;
    }
  };
  return {
    readTextIfExists: (file) => readTextIfExists(fs, file),
    isFile: (file) => is(file, 'file'),
    isDirectory: (dir) => is(dir, 'dir'),
    writeTextAtomic: (file, text) => writeFileAtomic(fs, file, text),
    listDir: (dir) => fs.readdir(dir).catch(() => []),
    ensureWritable: (files) => ensureWritable(fs, files, checkout),
  };
}
