/**
 * Windows lets no one rename or remove a file that a program holds open: the Unity editor
 * reading the manifest it watches, a virus scanner or the search indexer looking at a file just
 * written, a file preview. Such a hold usually lasts moments, so a rename or remove that meets
 * one is tried again for about a second and a half; a hold that outlasts it is FILE_IN_USE, which
 * names the file. EBUSY means the same everywhere; EPERM and EACCES are how Windows reports it,
 * while elsewhere they mean a real lack of permission and are not retried. Windows also answers
 * EPERM for a file with the read-only attribute: that one is no hold and is reported at once.
 */
import type { FileSystem } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';
import { isReadOnlyMode } from './read-only.js';

/** The waits between tries, in milliseconds. */
export const LOCKED_FILE_RETRY_MS: readonly number[] = [50, 100, 200, 400, 800];

/** Whether `err` says the file is held open by another program, on `platform`. */
export function isLockedFileError(err: unknown, platform: NodeJS.Platform): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EBUSY') return true;
  return platform === 'win32' && (code === 'EPERM' || code === 'EACCES');
}

/** `fs` with `rename` and `rm` tried again while the file is held open, then FILE_IN_USE. */
export function retryingLockedFiles(fs: FileSystem, platform: NodeJS.Platform, sleep: (ms: number) => Promise<void>): FileSystem {
  async function patiently<T>(action: string, file: string, attempt: () => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt();
      } catch (err) {
        if (!isLockedFileError(err, platform)) throw err;
        if (tries === 0 && (await isReadOnly(file))) throw err;
        const wait = LOCKED_FILE_RETRY_MS[tries];
        if (wait === undefined) throw new ClientError('FILE_IN_USE', { file, action }, { cause: err });
        await sleep(wait);
      }
    }
  }
  const isReadOnly = (file: string) =>
    fs.stat(file).then(
      (stat) => isReadOnlyMode(stat.mode),
      () => false,
    );
  return {
    ...fs,
    rename: (from, to) => patiently('replace', String(to), () => fs.rename(from, to)),
    rm: (file, options) => patiently('remove', String(file), () => fs.rm(file, options)),
  };
}
