import * as realFs from 'node:fs/promises';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../src/deps.js';
import { ClientError } from '../../src/errors/client-errors.js';
import { writeFileAtomic } from '../../src/io/fs.js';
import { isLockedFileError, LOCKED_FILE_RETRY_MS, retryingLockedFiles } from '../../src/io/locked-files.js';

// Windows refuses to rename over, or remove, a file another program holds open (the Unity editor,
// a virus scan): EBUSY, or EPERM/EACCES. This machine cannot hold a file that way, so the refusal
// is played by a real filesystem whose rename fails the first `held` times, as Windows would.
const errno = (code: string) => Object.assign(new Error(`${code}: operation not permitted, rename`), { code });

function heldFor(held: number, code: string): { fs: FileSystem; renames: () => number } {
  let renames = 0;
  const fs: FileSystem = {
    ...realFs,
    rename: async (from, to) => {
      renames++;
      if (renames <= held) throw errno(code);
      await realFs.rename(from, to);
    },
  };
  return { fs, renames: () => renames };
}

let dir: string;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pkg-locked-'));
  waits.length = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('files held open by another program', () => {
  it.each([
    ['EBUSY', 'linux', true],
    ['EBUSY', 'win32', true],
    ['EPERM', 'win32', true],
    ['EACCES', 'win32', true],
    // Elsewhere these are a real lack of permission: retrying would only delay the error.
    ['EPERM', 'linux', false],
    ['EACCES', 'darwin', false],
    ['ENOENT', 'win32', false],
  ] as const)('%s on %s is a file held open: %s', (code, platform, held) => {
    expect(isLockedFileError(errno(code), platform)).toBe(held);
  });

  it('a manifest held for a moment on Windows is replaced once it is let go, byte for byte', async () => {
    const manifest = path.join(dir, 'manifest.json');
    await writeFile(manifest, '{\r\n  "dependencies": {}\r\n}\r\n');
    const held = heldFor(2, 'EPERM');
    const fs = retryingLockedFiles(held.fs, 'win32', sleep);
    await writeFileAtomic(fs, manifest, '{\r\n  "dependencies": {"com.a": "1.0.0"}\r\n}\r\n');
    expect(await readFile(manifest, 'utf8')).toBe('{\r\n  "dependencies": {"com.a": "1.0.0"}\r\n}\r\n');
    expect(held.renames()).toBe(3);
    expect(waits).toEqual(LOCKED_FILE_RETRY_MS.slice(0, 2));
    // Nothing temporary is left beside it.
    expect(await realFs.readdir(dir)).toEqual(['manifest.json']);
  });

  it('a file held past the retries is FILE_IN_USE naming it; the old content stays and no temporary file is left', async () => {
    const file = path.join(dir, 'manifest.json');
    await writeFile(file, 'old');
    const fs = retryingLockedFiles(heldFor(Infinity, 'EBUSY').fs, 'win32', sleep);
    const failed = await writeFileAtomic(fs, file, 'new').catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(ClientError);
    expect(failed).toMatchObject({ code: 'FILE_IN_USE', exitCode: 1 });
    expect((failed as ClientError).message).toBe(`Another program keeps ${file} open: pkg could not replace it`);
    expect((failed as ClientError).hint).toMatch(/^Close what holds it \(the Unity editor/);
    expect(waits).toEqual([...LOCKED_FILE_RETRY_MS]);
    expect(await readFile(file, 'utf8')).toBe('old');
    expect(await realFs.readdir(dir)).toEqual(['manifest.json']);
  });

  it('on Linux, EPERM on rename is reported at once, as the permission error it is', async () => {
    const file = path.join(dir, 'manifest.json');
    await writeFile(file, 'old');
    const held = heldFor(1, 'EPERM');
    const fs = retryingLockedFiles(held.fs, 'linux', sleep);
    await expect(writeFileAtomic(fs, file, 'new')).rejects.toMatchObject({ code: 'EPERM' });
    expect(held.renames()).toBe(1);
    expect(waits).toEqual([]);
  });

  it("a file with Windows' read-only attribute is no hold: its EPERM is reported at once", async () => {
    const file = path.join(dir, 'Game.uproject');
    await writeFile(file, '{}');
    await realFs.chmod(file, 0o444);
    let removes = 0;
    const fs = retryingLockedFiles(
      {
        ...realFs,
        rm: async () => {
          removes++;
          throw errno('EPERM');
        },
      },
      'win32',
      sleep,
    );
    await expect(fs.rm(file, { force: true })).rejects.toMatchObject({ code: 'EPERM' });
    expect(removes).toBe(1);
    expect(waits).toEqual([]);
  });

  it('a folder held while it is removed is waited for too', async () => {
    const folder = path.join(dir, 'Packages', 'com.a');
    await realFs.mkdir(folder, { recursive: true });
    let removes = 0;
    const fs = retryingLockedFiles(
      {
        ...realFs,
        rm: async (target, options) => {
          if (++removes === 1) throw errno('EBUSY');
          await realFs.rm(target, options);
        },
      },
      'win32',
      sleep,
    );
    await fs.rm(folder, { recursive: true, force: true });
    expect(removes).toBe(2);
    expect(await realFs.readdir(path.join(dir, 'Packages'))).toEqual([]);
  });
});
