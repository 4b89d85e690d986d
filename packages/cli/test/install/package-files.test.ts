import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { digestFiles, fileDigest } from '../../src/install/package-files.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('fileDigest', () => {
  it('hashes a file larger than one read piece the same as its whole bytes, and an empty one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-digest-'));
    dirs.push(dir);
    // 2.5 pieces of 1 MiB, with bytes that differ from piece to piece.
    const bytes = Buffer.alloc(2.5 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 251;
    await writeFile(path.join(dir, 'big.uasset'), bytes);
    await writeFile(path.join(dir, 'empty.txt'), '');
    const sha = (data: Buffer) => `sha256-${createHash('sha256').update(data).digest('base64')}`;
    expect(await fileDigest(fs, path.join(dir, 'big.uasset'))).toBe(sha(bytes));
    expect(await digestFiles(fs, dir, ['big.uasset', 'empty.txt'])).toEqual({
      'big.uasset': sha(bytes),
      'empty.txt': sha(Buffer.alloc(0)),
    });
  });
});
