import * as fs from 'node:fs/promises';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildTarball, rawTar } from '@pkg/testkit';
import { ClientError } from '../../src/errors/client-errors.js';
import { extractPackage, packageRelativePath, targetBelow } from '../../src/files/safe-extract.js';

/** A gzipped tar whose entry at `index` gets the given type flag (`2` symlink, `1` hard link). */
function withType(entries: { path: string; content: string }[], index: number, flag: string): Buffer {
  const tar = rawTar(entries);
  let offset = 0;
  for (let i = 0; i < index; i++) offset += 512 + Math.ceil(Buffer.byteLength(entries[i]!.content) / 512) * 512;
  tar.write(flag, offset + 156);
  tar.write('/etc/passwd', offset + 157);
  let sum = 0;
  tar.write('        ', offset + 148);
  for (let i = 0; i < 512; i++) sum += tar[offset + i]!;
  tar.write(sum.toString(8).padStart(6, '0') + '\0 ', offset + 148);
  return gzipSync(tar);
}

async function tempDir() {
  return mkdtemp(path.join(tmpdir(), 'pkg-extract-'));
}

/** The bytes as a tarball file of its own folder, as the cache keeps one: extraction reads only files. */
async function tarballFile(bytes: Buffer): Promise<string> {
  const file = path.join(await tempDir(), 'package.tgz');
  await fs.writeFile(file, bytes);
  return file;
}

describe('packageRelativePath', () => {
  it.each([
    ['package/package.json', 'package.json'],
    ['package/Runtime/A.cs', 'Runtime/A.cs'],
    ['package/./Editor//B.cs', 'Editor/B.cs'],
    ['package/', null],
    ['other-root/file.txt', 'file.txt'],
  ])('%j → %j', (input, expected) => {
    expect(packageRelativePath(input)).toEqual({ ok: true, path: expected });
  });

  it.each([
    ['package/../evil', "'..'"],
    ['../evil', "'..'"],
    ['/etc/passwd', 'absolute'],
    ['C:/Windows/x', 'absolute'],
    ['package\\..\\evil', 'backslash'],
    ['package/a\0b', 'NUL'],
    // Names Windows cannot hold, refused on every system (a team's project is shared with Windows).
    ['package/Runtime/A.cs:hidden', 'a character Windows refuses'],
    ['package/Runtime/C:evil.cs', 'a character Windows refuses'],
    ['package/Editor/what?.cs', 'a character Windows refuses'],
    ['package/Runtime/a\u001b[2Jb.cs', 'a character Windows refuses'],
    ['package/Runtime/nul.cs', 'a device name'],
    ['package/CON', 'a device name'],
    ['package/aux/x.cs', 'a device name'],
    ['package/Plugins/com1.dll', 'a device name'],
    ['package/Docs/readme.', 'ends with a dot or a space'],
    ['package/Docs /a.md', 'ends with a dot or a space'],
  ])('refuses %j', (input, reason) => {
    const result = packageRelativePath(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});

describe('targetBelow with Windows paths', () => {
  const root = 'C:\\Users\\dev\\Game\\Packages\\.pkg-staging\\new-0';
  it.each([
    ['Runtime/A.cs', 'C:\\Users\\dev\\Game\\Packages\\.pkg-staging\\new-0\\Runtime\\A.cs'],
    ['Editor/Sub/B.cs', 'C:\\Users\\dev\\Game\\Packages\\.pkg-staging\\new-0\\Editor\\Sub\\B.cs'],
  ])('%j lands below the drive-letter root', (relative, expected) => {
    expect(targetBelow(root, relative, path.win32)).toBe(expected);
  });

  it.each([
    // What packageRelativePath refuses first; this is the last guard, with Windows' own rules.
    ['D:/elsewhere/x.cs'],
    ['D:x.cs'],
    ['a\\..\\..\\..\\x.cs'],
    ['../../Assets/x.cs'],
    [''],
  ])('%j does not', (relative) => {
    expect(targetBelow(root, relative, path.win32)).toBeNull();
  });

  it('accepts a root given with forward slashes or a lower-case drive letter', () => {
    expect(targetBelow('c:/Users/dev/Game', 'Packages/manifest.json', path.win32)).toBe(
      'c:\\Users\\dev\\Game\\Packages\\manifest.json',
    );
  });
});

describe('extractPackage', () => {
  it('writes the files below package/ into the destination', async () => {
    const dest = path.join(await tempDir(), 'out');
    const tarball = buildTarball({ name: 'com.a.b', version: '1.0.0' }, [{ path: 'Runtime/A.cs', content: 'class A {}' }]);
    expect(await extractPackage(fs, await tarballFile(tarball), dest, 'com.a.b@1.0.0')).toBe(2);
    expect(JSON.parse(await readFile(path.join(dest, 'package.json'), 'utf8'))).toEqual({ name: 'com.a.b', version: '1.0.0' });
    expect(await readFile(path.join(dest, 'Runtime', 'A.cs'), 'utf8')).toBe('class A {}');
    expect((await stat(path.join(dest, 'Runtime', 'A.cs'))).mode & 0o777).toBe(0o644 & ~process.umask());
  });

  it('streams a tarball from its file, each file as it comes (a cached download is never read whole)', async () => {
    const root = await tempDir();
    const big = 'x'.repeat(3 * 1024 * 1024);
    const file = path.join(root, 'package.tgz');
    await fs.writeFile(
      file,
      buildTarball({ name: 'com.a.big', version: '1.0.0' }, [
        { path: 'Content/big.bin', content: big },
        { path: 'Content/small.txt', content: 'small' },
      ]),
    );
    const dest = path.join(root, 'out');
    expect(await extractPackage(fs, file, dest, 'com.a.big@1.0.0')).toBe(3);
    expect(await readFile(path.join(dest, 'Content', 'big.bin'), 'utf8')).toBe(big);
    expect(await readFile(path.join(dest, 'Content', 'small.txt'), 'utf8')).toBe('small');
  });

  it.each([
    ['a parent-directory path', [{ path: 'package/../../escaped.txt', content: 'x' }], -1, ''],
    ['an absolute path', [{ path: '/tmp/escaped.txt', content: 'x' }], -1, ''],
    ['a symbolic link', [{ path: 'package/link', content: '' }], 0, '2'],
    ['a hard link', [{ path: 'package/link', content: '' }], 0, '1'],
  ])('refuses a tarball with %s, writing nothing', async (_, entries, index, flag) => {
    const root = await tempDir();
    const dest = path.join(root, 'out');
    const files = [{ path: 'package/package.json', content: '{}' }, ...entries];
    const tarball = index === -1 ? gzipSync(rawTar(files)) : withType(files, index + 1, flag);
    const error = await extractPackage(fs, await tarballFile(tarball), dest, 'com.evil.pkg@1.0.0').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe('UNSAFE_TARBALL');
    expect((error as ClientError).message).toMatch(/^Refusing to extract com\.evil\.pkg@1\.0\.0: entry /);
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses bytes that are not a tarball', async () => {
    const dest = path.join(await tempDir(), 'out');
    await expect(extractPackage(fs, await tarballFile(Buffer.from('not a tarball at all')), dest, 'x@1.0.0')).rejects.toThrow(
      /cannot be read/,
    );
  });
});
