import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishTarballFile,
  removedAfterTest,
  spawnRegistry,
  startFaultProxy,
  tmpUnityProject,
  writeLargeTarball,
  type FaultProxy,
  type SpawnedRegistry,
  type TarballFile,
} from '@pkg/testkit';
import { makeHome, PKG_BIN, runPkg, type Home } from '../support/spawn.js';

// Downloads that survive the network: the built `pkg` fetching a 24 MiB tarball through a proxy
// that cuts or holds it, from a registry process that is killed and started again.
const NAME = 'com.studio.big-assets';
const MiB = 1024 * 1024;
const TARBALL_PATH = `/${NAME}/-/${NAME}-1.0.0.tgz`;

let registry: SpawnedRegistry;
let proxy: FaultProxy;
let home: Home;
let work: string;
let tarball: TarballFile;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'pkg-downloads-'));
  registry = await spawnRegistry();
  const token = await loginUser(registry.url, 'asset-publisher');
  tarball = await writeLargeTarball(path.join(work, 'big.tgz'), { name: NAME, version: '1.0.0', unity: '2021.3' }, 24 * MiB);
  expect((await publishTarballFile(registry.url, token, NAME, '1.0.0', tarball)).status).toBe(201);
  proxy = await startFaultProxy(registry.url);
  home = await makeHome();
});
afterAll(async () => {
  await proxy?.close();
  await registry?.cleanup();
  await rm(work, { recursive: true, force: true });
});

const env = () => ({ PKG_REGISTRY: proxy.url, TMPDIR: work });
const pkg = (args: string[], cwd: string) => runPkg(args, { home, env: env(), cwd });
const cacheDir = () => path.join(home.dir, '.cache', 'pkg', 'tarballs', NAME);
const sha512 = (data: Buffer) => `sha512-${createHash('sha512').update(data).digest('base64')}`;
const rangesAsked = () => proxy.requests.filter((r) => r.url === TARBALL_PATH).map((r) => r.headers.range ?? null);

async function project() {
  const made = await removedAfterTest(
    tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { [NAME]: '1.0.0' },
        scopedRegistries: [{ name: 'Studio', url: proxy.url, scopes: ['com.studio'] }],
      },
    }),
  );
  return made;
}

async function expectCachedAndVerified() {
  const cached = await readFile(path.join(cacheDir(), '1.0.0.tgz'));
  expect(sha512(cached)).toBe(tarball.integrity);
  // Nothing partial or temporary is left beside it.
  expect((await readdir(cacheDir())).sort()).toEqual(['1.0.0.tgz', '1.0.0.tgz.integrity']);
}

/** The size of the partial download in the cache, 0 while there is none. */
async function partialSize(): Promise<number> {
  const partial = (await readdir(cacheDir()).catch(() => [] as string[])).find((f) => f.endsWith('.partial'));
  return partial ? (await stat(path.join(cacheDir(), partial))).size : 0;
}

describe('downloads that survive the network (built binary)', () => {
  // Each test starts from an empty cache and a proxy that passes everything, so that one that
  // fails leaves nothing for the next (a cached tarball would never be downloaded again).
  beforeEach(async () => {
    await rm(cacheDir(), { recursive: true, force: true });
    proxy.set({ kind: 'pass' });
    proxy.requests.length = 0;
  });

  it('resumes a body cut off again and again with Range, within one run, and verifies the whole file', async () => {
    const unity = await project();
    proxy.set({ kind: 'cut-after', bytes: 7 * MiB });
    const installed = await pkg(['install'], unity.dir);
    proxy.set({ kind: 'pass' });
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const ranges = rangesAsked();
    expect(ranges[0]).toBeNull();
    expect(ranges.slice(1)).toEqual([`bytes=${7 * MiB}-`, `bytes=${14 * MiB}-`, `bytes=${21 * MiB}-`]);
    await expectCachedAndVerified();
    expect((await pkg(['cache', 'clean'], unity.dir)).code).toBe(0);
  });

  it('reports a registry killed mid-download with its cause, keeps what came, and resumes from it once the registry is back', async () => {
    const unity = await project();
    proxy.set({ kind: 'stall-after', bytes: 9 * MiB });
    const running = pkg(['install'], unity.dir);
    await proxy.stalled();
    const port = registry.port;
    const dataDir = registry.dataDir;
    await registry.stop('SIGKILL');
    const failed = await running;
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      new RegExp(
        `^Error: Download of ${NAME}@1\\.0\\.0 from ${proxy.url} stopped at 9\\.4 MB of 25\\.2 MB: connection closed unexpectedly\\n` +
          'Hint: The 9\\.4 MB received are kept in the cache: run the command again to resume\\.',
      ),
    );
    expect(failed.stderr).not.toMatch(/bug|Unexpected error/);
    const listed = JSON.parse((await pkg(['cache', 'ls', '--json'], unity.dir)).stdout);
    expect(listed.partial).toEqual([expect.objectContaining({ package: NAME, version: '1.0.0', size: 9 * MiB })]);

    // The same registry, started again on its port and data.
    registry = await spawnRegistry({ dataDir, args: ['--port', String(port)] });
    expect(registry.port).toBe(port);
    proxy.set({ kind: 'pass' });
    proxy.requests.length = 0;
    const resumed = await pkg(['install'], unity.dir);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(rangesAsked()).toEqual([`bytes=${9 * MiB}-`]);
    await expectCachedAndVerified();
    expect((await pkg(['cache', 'clean'], unity.dir)).code).toBe(0);
  });

  it('resumes after a pkg killed mid-download, and removes what older runs left', async () => {
    const unity = await project();
    proxy.set({ kind: 'stall-after', bytes: 5 * MiB });
    const child = spawn(process.execPath, [PKG_BIN, 'install'], {
      cwd: unity.dir,
      env: { ...process.env, ...home.env, ...env() },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('close', resolve));
    await proxy.stalled();
    // The kill comes once the 5 MiB are in the file, as a real kill of a stalled download finds them.
    while ((await partialSize()) < 5 * MiB) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await exited;
    proxy.set({ kind: 'pass' });
    // A temporary file an older pkg left, hours ago.
    const old = path.join(cacheDir(), '.1.0.0.tgz.0123456789ab.tmp');
    await writeFile(old, Buffer.alloc(1024));
    await utimes(old, new Date(Date.now() - 3 * 3600_000), new Date(Date.now() - 3 * 3600_000));

    proxy.requests.length = 0;
    const resumed = await pkg(['install'], unity.dir);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(rangesAsked()).toEqual([`bytes=${5 * MiB}-`]);
    await expectCachedAndVerified();
  });

  it('pkg cache ls, verify and clean', async () => {
    const unity = await project();
    expect((await pkg(['install'], unity.dir)).code).toBe(0);
    const listed = JSON.parse((await pkg(['cache', 'ls', '--json'], unity.dir)).stdout);
    expect(listed).toMatchObject({
      success: true,
      tarballs: [{ package: NAME, version: '1.0.0', size: tarball.size }],
      partial: [],
    });
    const text = await pkg(['cache', 'ls'], unity.dir);
    expect(text.stdout).toContain(`Tarballs:\n  ${NAME}@1.0.0`);

    expect(JSON.parse((await pkg(['cache', 'verify', '--json'], unity.dir)).stdout)).toMatchObject({ verified: 1, corrupt: [] });
    // One byte changed on disk: verify finds it and removes it; the next install fetches it again.
    const file = path.join(cacheDir(), '1.0.0.tgz');
    const bytes = await readFile(file);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    await writeFile(file, bytes);
    const verified = await pkg(['cache', 'verify'], unity.dir);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`Corrupt (removed; the next install downloads them again):\n  ${NAME}@1.0.0`);
    expect(verified.stdout).toContain('Verified 0 tarballs; removed 1 corrupt tarball and 0 leftover files');
    expect(await readdir(cacheDir())).toEqual([]);
    expect((await pkg(['install'], unity.dir)).code).toBe(0);
    await expectCachedAndVerified();

    const cleaned = await pkg(['cache', 'clean', NAME, '--json'], unity.dir);
    expect(JSON.parse(cleaned.stdout)).toMatchObject({ success: true, freed_bytes: tarball.size });
    expect(await readdir(cacheDir())).toEqual([]);
    const bad = await pkg(['cache', 'wipe'], unity.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^Error: Unknown cache action 'wipe'\nHint: Use one of: ls, verify, clean\.\n$/);
  });
});
