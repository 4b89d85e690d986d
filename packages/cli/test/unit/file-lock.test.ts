import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs/promises';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockTimeoutError, withFileLock } from '../../src/io/fs.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pkg-file-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const realClock = { sleep, now: () => new Date() };

/** The id of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('withFileLock', () => {
  it('names its holder in the lock file, and removes it afterwards', async () => {
    const lock = path.join(dir, '.lock');
    const seen = await withFileLock(nodeFs, lock, realClock, () => readFile(lock, 'utf8'));
    expect(seen).toBe(`${process.pid}@${hostname()}\n`);
    await expect(stat(lock)).rejects.toThrow(/ENOENT/);
  });

  it('takes over at once the fresh lock of a process of this machine that was killed', async () => {
    const lock = path.join(dir, '.lock');
    await writeFile(lock, `${deadPid()}@${hostname()}\n`);
    expect(await withFileLock(nodeFs, lock, { ...realClock, timeoutMs: 5_000 }, async () => 'ran')).toBe('ran');
  });

  it('waits for a running holder, an unnamed lock or one of another machine, and then says it timed out', async () => {
    for (const owner of [`${process.pid}@${hostname()}\n`, '', `${deadPid()}@another-machine.example\n`]) {
      const lock = path.join(dir, '.lock');
      await writeFile(lock, owner);
      const attempt = withFileLock(nodeFs, lock, { ...realClock, timeoutMs: 100 }, async () => 'ran');
      await expect(attempt).rejects.toBeInstanceOf(LockTimeoutError);
      expect(await readFile(lock, 'utf8')).toBe(owner);
      await rm(lock);
    }
  });

  it('renews the lock file’s time while it is held, so a long holder is not taken for a crashed one', async () => {
    const lock = path.join(dir, '.lock');
    const later = new Date('2030-01-01T00:00:00Z');
    let now = new Date();
    const mtime = await withFileLock(nodeFs, lock, { sleep, now: () => now, staleMs: 30 }, async () => {
      now = later;
      await sleep(200);
      return (await stat(lock)).mtime;
    });
    expect(mtime.getTime()).toBe(later.getTime());
  });
});
