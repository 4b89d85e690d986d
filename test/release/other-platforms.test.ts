import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, spawnRegistry, tmpUnityProject, type SpawnedRegistry } from '@pkg/testkit';

/**
 * The Windows and macOS executables `npm run release` writes (docs/cli.md, "Windows and macOS"): what can be
 * checked on Linux. Both are checked as files (format, architecture, the bundle inside, the
 * single-executable fuse set); the Windows one also runs under Wine when Wine is installed
 * (`apt-get install wine64`): `--version`, then `pkg add` into a Unity project whose manifest
 * has CRLF line ends, against a registry on this machine. The macOS one cannot run here.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const releaseDir = path.join(root, 'release');
const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
const FUSE_SET = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1';
/** A sentence of pkg's own error catalogue: the bundle is inside. */
const FROM_THE_BUNDLE = 'Another program keeps {file} open';

/** Wine's loader: `wine64`/`wine` on the PATH, or where Debian's wine64 package puts it. */
function findWine(): string | null {
  for (const candidate of ['wine64', 'wine', '/usr/lib/wine/wine64']) {
    if (spawnSync(candidate, ['--version'], { stdio: 'ignore', timeout: 60_000 }).status === 0) return candidate;
  }
  return null;
}
const wine = findWine();

const scratch: string[] = [];
async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `pkg-release-${label}-`));
  scratch.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('pkg for Windows x64 and macOS x64', () => {
  it('pkg-win32-x64.exe is a PE executable for x64 holding pkg, its single-executable fuse set', async () => {
    const exe = await readFile(path.join(releaseDir, 'pkg-win32-x64.exe'));
    expect(exe.subarray(0, 2).toString('latin1')).toBe('MZ');
    const pe = exe.readUInt32LE(0x3c);
    expect(exe.subarray(pe, pe + 4).toString('latin1')).toBe('PE\0\0');
    expect(exe.readUInt16LE(pe + 4)).toBe(0x8664); // IMAGE_FILE_MACHINE_AMD64
    expect(exe.includes(FUSE_SET)).toBe(true);
    expect(exe.includes(FROM_THE_BUNDLE)).toBe(true);
  });

  it('pkg-darwin-x64 is a 64-bit Mach-O executable for x86_64 holding pkg in its NODE_SEA segment, fuse set', async () => {
    const bin = await readFile(path.join(releaseDir, 'pkg-darwin-x64'));
    expect(bin.readUInt32LE(0)).toBe(0xfeedfacf); // MH_MAGIC_64
    expect(bin.readUInt32LE(4)).toBe(0x01000007); // CPU_TYPE_X86_64
    expect(bin.readUInt32LE(12)).toBe(2); // MH_EXECUTE
    expect(bin.includes('NODE_SEA')).toBe(true);
    expect(bin.includes(FUSE_SET)).toBe(true);
    expect(bin.includes(FROM_THE_BUNDLE)).toBe(true);
  });
});

describe.skipIf(wine === null)('pkg-win32-x64.exe under Wine', () => {
  let registry: SpawnedRegistry;
  let prefix: string;

  /**
   * Runs the Windows pkg. Its output goes to files: under Wine, Node.js cannot open a pipe as
   * its stdout (EBADF in net.Socket), which is Wine's limit, not pkg's (a console or a file works).
   */
  async function runWindowsPkg(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const dir = await tempDir('wine-out');
    const out = path.join(dir, 'stdout');
    const err = path.join(dir, 'stderr');
    const fds = [openSync(out, 'w'), openSync(err, 'w')] as const;
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(wine!, [path.join(releaseDir, 'pkg-win32-x64.exe'), ...args], {
          cwd,
          env: { PATH: process.env.PATH, HOME: prefix, WINEPREFIX: prefix, WINEDEBUG: '-all' },
          stdio: ['ignore', fds[0], fds[1]],
        });
        child.on('error', reject);
        child.on('close', resolve);
      });
      return { code, stdout: await readFile(out, 'utf8'), stderr: await readFile(err, 'utf8') };
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  beforeAll(async () => {
    prefix = await tempDir('wine-prefix');
    // Wine reports Windows 7 unless told otherwise, and Node.js 20 refuses to start below 8.1.
    const set = spawnSync(wine!, ['reg', 'add', 'HKCU\\Software\\Wine', '/v', 'Version', '/d', 'win10', '/f'], {
      env: { PATH: process.env.PATH, HOME: prefix, WINEPREFIX: prefix, WINEDEBUG: '-all' },
      stdio: 'ignore',
      timeout: 300_000,
    });
    expect(set.status).toBe(0);
    registry = await spawnRegistry();
    const token = await loginUser(registry.url, 'releaser');
    await publishFixtures(registry.url, token, {
      'com.acme.windows': [{ version: '1.2.3', manifest: { displayName: 'Windows', unity: '2022.3' } }],
    });
  });
  afterAll(async () => {
    await registry?.cleanup();
    // This prefix's wineserver (started by the runs above) stops, so that its folder can go.
    for (const server of [
      'wineserver',
      path.join(path.dirname(wine!), 'wineserver64'),
      path.join(path.dirname(wine!), 'wineserver'),
    ]) {
      const stopped = spawnSync(server, ['-k'], {
        env: { PATH: process.env.PATH, HOME: prefix, WINEPREFIX: prefix },
        stdio: 'ignore',
      });
      if (stopped.error === undefined) break;
    }
  });

  it('prints the release version', async () => {
    const cwd = await tempDir('wine-cwd');
    expect(await runWindowsPkg(['--version'], cwd)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('adds a package to a Unity project from a registry on this machine, the CRLF manifest kept CRLF', async () => {
    const manifest = '{\r\n  "dependencies": {\r\n    "com.unity.ugui": "1.0.0"\r\n  }\r\n}\r\n';
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });
    scratch.push(project.dir);
    const added = await runWindowsPkg(['add', 'com.acme.windows', '--registry', registry.url], project.dir);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const written = await readFile(path.join(project.dir, 'Packages', 'manifest.json'), 'utf8');
    expect(JSON.parse(written)).toMatchObject({
      dependencies: { 'com.unity.ugui': '1.0.0', 'com.acme.windows': '1.2.3' },
      scopedRegistries: [expect.objectContaining({ url: registry.url, scopes: ['com.acme.windows'] }) as unknown],
    });
    expect(written.replace(/\r\n/g, '')).not.toContain('\n');
    // Nothing temporary is left beside it (the rename over the manifest succeeded).
    expect((await readdir(path.join(project.dir, 'Packages'))).sort()).toEqual(['manifest.json']);
  });
});
