import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';
import { isReadOnlyMode } from './read-only.js';

/** The file's text, or null when it does not exist. */
export async function readTextIfExists(fs: FileSystem, file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Whether `name` is a temporary file writeFileAtomic left for `target` (a process killed between write and rename). */
export function isAtomicWriteTemp(name: string, target: string): boolean {
  return name.startsWith(`.${target}.`) && /^\.[0-9a-f]{12}\.tmp$/.test(name.slice(target.length + 1));
}

/**
 * Replaces `file` atomically: the data goes to a temporary file in the same directory, is
 * flushed, then renamed over the target, so readers see the old or the new content, never a
 * mix, and a crash leaves the old file intact. A file that exists keeps its mode and owner
 * (a manifest shared through a group, a file of the user's while `sudo pkg` runs); a read-only
 * one is never replaced (read-only.ts): callers find those first, this is the last guard.
 */
export async function writeFileAtomic(
  fs: FileSystem,
  file: string,
  data: string | Buffer,
  options: { mode?: number; dirMode?: number } = {},
): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, ...(options.dirMode !== undefined ? { mode: options.dirMode } : {}) });
  const existing = await fs.stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (existing && isReadOnlyMode(existing.mode)) {
    throw new ClientError('FILES_READ_ONLY', { files: file, placeholder: '{files}' });
  }
  // A secret file's mode is the caller's (exactly 0600), whatever it was; others keep theirs.
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined);
  const owner = existing && differentOwner(existing) ? { uid: existing.uid, gid: existing.gid } : null;
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(temp, 'wx', mode ?? 0o666);
  try {
    await handle.writeFile(data);
    // The umask may have narrowed the mode at creation; the file must end exactly as it was.
    if (mode !== undefined) await handle.chmod(mode);
    if (owner) await handle.chown(owner.uid, owner.gid);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fs.rm(temp, { force: true });
    if (owner && (err as NodeJS.ErrnoException).code === 'EPERM') {
      // Only root may give a file away: keep the owner by writing in place, as editors do.
      await writeInPlace(fs, file, data);
      return;
    }
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/** The file is another user's or group's than the ones this process creates files with. */
function differentOwner(stat: { uid: number; gid: number }): boolean {
  if (typeof process.getuid !== 'function' || typeof process.getgid !== 'function') return false; // Windows
  return stat.uid !== process.getuid() || stat.gid !== process.getgid();
}

/** Truncates and rewrites `file` through its own inode, which keeps its owner and mode. */
async function writeInPlace(fs: FileSystem, file: string, data: string | Buffer): Promise<void> {
  const handle = await fs.open(file, 'r+');
  try {
    await handle.truncate(0);
    await handle.write(typeof data === 'string' ? Buffer.from(data) : data, 0, undefined, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface LockOptions {
  sleep(ms: number): Promise<void>;
  now(): Date;
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock file older than this (ms) is from a crashed process and is taken over. */
  staleMs?: number;
}

/** Another process held the lock for longer than the timeout. */
export class LockTimeoutError extends Error {
  constructor(readonly lockFile: string) {
    super(`timed out waiting for the lock ${path.basename(lockFile)}`);
    this.name = 'LockTimeoutError';
  }
}

/**
 * Runs `fn` while holding an exclusive lock file (created with O_EXCL), so read-modify-write
 * cycles of several processes on one file do not lose each other's updates. While `fn` runs,
 * the lock file's time is renewed, so a long holder is never taken for a crashed one.
 */
export async function withFileLock<T>(fs: FileSystem, lockFile: string, options: LockOptions, fn: () => Promise<T>): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const started = options.now().getTime();
  await fs.mkdir(path.dirname(lockFile), { recursive: true, mode: 0o700 });
  let delay = 5;
  for (;;) {
    try {
      const handle = await fs.open(lockFile, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}@${hostname()}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const age = await lockAge(fs, lockFile, options.now());
    if ((age !== null && age > staleMs) || (await ownerIsGone(fs, lockFile))) {
      await fs.rm(lockFile, { force: true });
      continue;
    }
    if (options.now().getTime() - started > timeoutMs) {
      throw new LockTimeoutError(lockFile);
    }
    await options.sleep(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
  const heartbeat = setInterval(
    () => {
      const now = options.now();
      fs.utimes(lockFile, now, now).catch(() => undefined);
    },
    Math.max(1, Math.floor(staleMs / 3)),
  );
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    await fs.rm(lockFile, { force: true });
  }
}

/**
 * True when the lock names a process of this machine that no longer runs (killed): its lock is
 * taken over at once rather than when it is stale. Locks of other machines (a shared folder)
 * and unnamed ones wait for staleness.
 */
async function ownerIsGone(fs: FileSystem, lockFile: string): Promise<boolean> {
  const owner = /^(\d+)@(.+)\n?$/.exec((await readTextIfExists(fs, lockFile)) ?? '');
  if (!owner || owner[2] !== hostname()) return false;
  try {
    process.kill(Number(owner[1]), 0);
    return false;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function lockAge(fs: FileSystem, lockFile: string, now: Date): Promise<number | null> {
  try {
    const stat = await fs.stat(lockFile);
    return now.getTime() - stat.mtimeMs;
  } catch {
    return null;
  }
}
