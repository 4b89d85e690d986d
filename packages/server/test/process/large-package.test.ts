import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  downloadDigest,
  loginUser,
  publishTarballFile,
  REGISTRY_BIN,
  spawnRegistry,
  writeLargeTarball,
  type SpawnedRegistry,
  type TarballFile,
} from '@pkg/testkit';

const MiB = 1024 * 1024;
/** PKG_TEST_LARGE_PACKAGE_MB sets the payload (a quicker run, or a larger one). */
const PAYLOAD_MB = Number(process.env.PKG_TEST_LARGE_PACKAGE_MB ?? 300);
const NAME = 'com.acme.textures';

/**
 * A game-sized package through the built server in a process whose V8 heap is capped far below
 * the package's size: the publish must stream into storage and the download out of it.
 * (Memory figures are the benchmark's business: bench/README.md, large package.)
 */
describe(`a ${PAYLOAD_MB} MB package on a server with --max-old-space-size=96`, () => {
  let dir: string;
  let registry: SpawnedRegistry;
  let tarball: TarballFile;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pkg-large-'));
    tarball = await writeLargeTarball(path.join(dir, 'package.tgz'), { name: NAME, version: '1.0.0' }, PAYLOAD_MB * MiB);
    registry = await spawnRegistry({
      command: { file: process.execPath, args: ['--max-old-space-size=96', REGISTRY_BIN, 'serve'] },
    });
  }, 120_000);
  afterAll(async () => {
    await registry?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('publishes it and downloads it back byte for byte', { timeout: 300_000 }, async () => {
    expect(tarball.size).toBeGreaterThan(PAYLOAD_MB * MiB);
    const token = await loginUser(registry.url, 'alice');
    const published = await publishTarballFile(registry.url, token, NAME, '1.0.0', tarball);
    expect(published).toMatchObject({ status: 201, body: { ok: true } });

    const downloaded = await downloadDigest(`${registry.url}/${NAME}/-/${NAME}-1.0.0.tgz`);
    expect(downloaded).toMatchObject({ status: 200, length: tarball.size, integrity: tarball.integrity });
    expect(downloaded.headers['accept-ranges']).toBe('bytes');
    // The upload's temporary file became the tarball: nothing is left behind.
    expect(await readdir(path.join(registry.dataDir, 'tarballs', '.incoming'))).toEqual([]);
    expect(registry.child.exitCode).toBeNull();
  });
});
