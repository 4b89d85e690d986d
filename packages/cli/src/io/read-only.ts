/**
 * Files a version control system has not checked out. Perforce (and Plastic SCM, and others with
 * exclusive checkouts) keep every file of a workspace read-only until `p4 edit` makes it
 * writable: a read-only file is one `pkg` must not change, whoever runs it. So the mode bits
 * decide, not access(2): root may write anything, and a replace-by-rename would not even need
 * write access to the file itself.
 */
import type { FileSystem } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';

/** No write bit for anyone: how `p4`, Plastic and Windows' read-only attribute leave a file. */
export function isReadOnlyMode(mode: number): boolean {
  return (mode & 0o222) === 0;
}

/** The files of `files` that exist and are read-only, in the order given. */
export async function readOnlyFiles(fs: Pick<FileSystem, 'stat'>, files: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of new Set(files)) {
    try {
      if (isReadOnlyMode((await fs.stat(file)).mode)) found.push(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return found;
}

/** Runs the `checkoutCommand` setting on files; resolves once the command has ended. */
export type CheckoutRunner = (files: readonly string[]) => Promise<void>;

/**
 * Makes sure every file of `files` may be changed: the read-only ones are handed to the
 * checkout command when one is configured, then looked at again; any still read-only stops
 * everything with their names, before anything is written.
 */
export async function ensureWritable(
  fs: Pick<FileSystem, 'stat'>,
  files: readonly string[],
  checkout: CheckoutRunner | null,
): Promise<void> {
  let readOnly = await readOnlyFiles(fs, files);
  if (readOnly.length === 0) return;
  if (checkout) {
    await checkout(readOnly);
    readOnly = await readOnlyFiles(fs, files);
    if (readOnly.length === 0) return;
    throw new ClientError('FILES_STILL_READ_ONLY', { files: readOnly.join(', ') });
  }
  throw new ClientError('FILES_READ_ONLY', { files: readOnly.join(', '), placeholder: '{files}' });
}

/** A file as the shell sees one word: quoted for POSIX shells or for cmd.exe. */
export function shellQuote(file: string, platform: NodeJS.Platform): string {
  if (platform === 'win32') return `"${file.replace(/"/g, '""')}"`;
  return `'${file.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line of the `checkoutCommand` setting for `files`: `{files}` becomes the quoted
 * files, separated by spaces; a setting without `{files}` gets them at its end.
 */
export function checkoutCommandLine(template: string, files: readonly string[], platform: NodeJS.Platform): string {
  const quoted = files.map((f) => shellQuote(f, platform)).join(' ');
  return template.includes('{files}') ? template.split('{files}').join(quoted) : `${template} ${quoted}`;
}
