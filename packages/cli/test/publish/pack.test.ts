import { chmod, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { list } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFileList, packTarball } from '../../src/publish/pack.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pkg-pack-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function folder(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(dir, name);
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
  return root;
}

const manifest = { name: 'com.vendor.tool', version: '1.0.0' };

describe('packing a folder as npm pack does', () => {
  it('takes only what the files field names, plus what npm always includes', async () => {
    const root = await folder('files-field', {
      'package.json': JSON.stringify({ ...manifest, files: ['Runtime'] }),
      'README.md': '# r\n',
      'Runtime/A.cs': 'a',
      'Tests/T.cs': 't',
      'node_modules/x/index.js': 'x',
    });
    const files = await packFileList(root, { ...manifest, files: ['Runtime'] });
    expect(files.map((f) => f.path)).toEqual(['README.md', 'Runtime/A.cs', 'package.json']);
    expect(files.find((f) => f.path === 'Runtime/A.cs')?.size).toBe(1);
  });

  it('gives the same bytes for the same folder, whatever the files’ times and modes (only the executable bit counts), under package/', async () => {
    const root = await folder('same-bytes', {
      'package.json': JSON.stringify(manifest),
      'Editor/tool.sh': 'echo hi\n',
      'Runtime/A.cs': 'a',
    });
    await chmod(path.join(root, 'Editor', 'tool.sh'), 0o775);
    const files = await packFileList(root, manifest);
    const first = await packTarball(root, files, path.join(dir, 'first.tgz'));
    await utimes(path.join(root, 'Runtime', 'A.cs'), new Date('2031-01-01'), new Date('2031-01-01'));
    await chmod(path.join(root, 'Runtime', 'A.cs'), 0o600);
    await chmod(path.join(root, 'Editor', 'tool.sh'), 0o700);
    const second = await packTarball(root, files, path.join(dir, 'second.tgz'));
    expect(second.integrity).toBe(first.integrity);
    expect(Buffer.compare(await readFile(first.file), await readFile(second.file))).toBe(0);
    expect(first.unpackedSize).toBe(files.reduce((sum, f) => sum + f.size, 0));

    const entries: { path: string; mode: number; mtime: string }[] = [];
    await list({
      file: second.file,
      onReadEntry: (entry) => entries.push({ path: entry.path, mode: entry.mode ?? 0, mtime: entry.mtime!.toISOString() }),
    });
    expect(entries).toEqual([
      { path: 'package/Editor/tool.sh', mode: 0o755, mtime: '1985-10-26T08:15:00.000Z' },
      { path: 'package/Runtime/A.cs', mode: 0o644, mtime: '1985-10-26T08:15:00.000Z' },
      { path: 'package/package.json', mode: 0o644, mtime: '1985-10-26T08:15:00.000Z' },
    ]);
  });
});
