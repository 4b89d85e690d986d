import { chmod, chown, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import * as realFs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../src/deps.js';
import { writeFileAtomic } from '../../src/io/fs.js';
import { checkoutCommandLine, ensureWritable, isReadOnlyMode, readOnlyFiles } from '../../src/io/read-only.js';
import { ClientError } from '../../src/errors/client-errors.js';

const fs = realFs as unknown as FileSystem;
const tmp = () => mkdtemp(path.join(tmpdir(), 'pkg-read-only-'));
const modeOf = async (file: string) => (await stat(file)).mode & 0o7777;

describe('read-only files', () => {
  it('are the ones without any write bit, whoever runs pkg', () => {
    expect(isReadOnlyMode(0o100444)).toBe(true);
    expect(isReadOnlyMode(0o100555)).toBe(true);
    expect(isReadOnlyMode(0o100644)).toBe(false);
    expect(isReadOnlyMode(0o100464)).toBe(false);
  });

  it('are all found before anything is written, and only those that exist', async () => {
    const dir = await tmp();
    const [a, b, c] = ['a.json', 'b.json', 'c.json'].map((f) => path.join(dir, f)) as [string, string, string];
    await writeFile(a, '{}');
    await writeFile(b, '{}');
    await chmod(a, 0o444);
    await chmod(b, 0o444);
    expect(await readOnlyFiles(fs, [a, b, c])).toEqual([a, b]);
    const refused = await ensureWritable(fs, [a, b, c], null).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ClientError);
    expect((refused as ClientError).code).toBe('FILES_READ_ONLY');
    expect((refused as ClientError).message).toBe(`Read-only files, not changed: ${a}, ${b}`);
    expect((refused as ClientError).hint).toMatch(/pkg config set checkoutCommand "p4 edit \{files\}"/);
  });

  it('are handed to the checkout command, and looked at again afterwards', async () => {
    const dir = await tmp();
    const a = path.join(dir, 'a.json');
    await writeFile(a, '{}');
    await chmod(a, 0o444);
    const handed: string[][] = [];
    await ensureWritable(fs, [a], async (files) => {
      handed.push([...files]);
      await chmod(a, 0o644);
    });
    expect(handed).toEqual([[a]]);
    const still = await ensureWritable(fs, [a, a], async () => undefined)
      .then(() => chmod(a, 0o444))
      .then(() => ensureWritable(fs, [a], async () => undefined))
      .catch((err: ClientError) => err);
    expect((still as ClientError).hint).toMatch(/ran but left them read-only/);
  });

  it('are quoted for the shell in the checkout command line, Windows paths included', () => {
    expect(checkoutCommandLine('p4 edit {files}', ['/p/Packages/manifest.json', "/p/it's.json"], 'linux')).toBe(
      `p4 edit '/p/Packages/manifest.json' '/p/it'\\''s.json'`,
    );
    expect(checkoutCommandLine('p4 edit', ['C:\\Game\\Game.uproject'], 'win32')).toBe('p4 edit "C:\\Game\\Game.uproject"');
    expect(checkoutCommandLine('cm co {files} --silent', ['D:\\My Game\\pkg.json'], 'win32')).toBe(
      'cm co "D:\\My Game\\pkg.json" --silent',
    );
  });
});

describe('writeFileAtomic', () => {
  it('never replaces a read-only file, and leaves it as it was', async () => {
    const file = path.join(await tmp(), 'manifest.json');
    await writeFile(file, '{"dependencies": {}}\n');
    await chmod(file, 0o444);
    await expect(writeFileAtomic(fs, file, '{}')).rejects.toMatchObject({ code: 'FILES_READ_ONLY' });
    expect(await readFile(file, 'utf8')).toBe('{"dependencies": {}}\n');
    expect(await modeOf(file)).toBe(0o444);
  });

  it('keeps the mode of the file it replaces, whatever the umask', async () => {
    const file = path.join(await tmp(), 'pkg.json');
    await writeFile(file, 'old');
    await chmod(file, 0o664);
    const umask = process.umask(0o077);
    try {
      await writeFileAtomic(fs, file, 'new');
    } finally {
      process.umask(umask);
    }
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(await modeOf(file)).toBe(0o664);
  });

  it.runIf(process.getuid?.() === 0)('run by root, keeps the owner of the file it replaces', async () => {
    const file = path.join(await tmp(), 'Game.uproject');
    await writeFile(file, 'old');
    await chown(file, 4321, 4321);
    await writeFileAtomic(fs, file, 'new');
    const after = await stat(file);
    expect([after.uid, after.gid]).toEqual([4321, 4321]);
    expect(await readFile(file, 'utf8')).toBe('new');
  });

  it('writes in place, keeping the file, when it may not give the new one the owner', async () => {
    const dir = await tmp();
    const file = path.join(dir, 'project.godot');
    await writeFile(file, 'a much longer old text\n');
    const before = await stat(file);
    // As for a user who is not root, with a file of another user's: chown is refused.
    const notOwner: FileSystem = {
      ...fs,
      stat: async (p: Parameters<FileSystem['stat']>[0]) => {
        const s = await fs.stat(p);
        return p === file ? Object.assign(s, { uid: s.uid + 1 }) : s;
      },
      open: async (...args: Parameters<FileSystem['open']>) => {
        const handle = await fs.open(...args);
        return Object.assign(handle, {
          chown: async () => {
            throw Object.assign(new Error('EPERM: operation not permitted, fchown'), { code: 'EPERM' });
          },
        });
      },
    } as unknown as FileSystem;
    await writeFileAtomic(notOwner, file, 'new\n');
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect((await stat(file)).ino).toBe(before.ino);
    expect((await realFs.readdir(dir)).sort()).toEqual(['project.godot']);
  });
});
