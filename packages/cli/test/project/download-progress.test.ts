import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishBody, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { Reporter } from '../../src/output/reporter.js';
import { transferLine, transferProgress } from '../../src/output/transfer-progress.js';
import { capture, run } from '../support/deps.js';
import { makeHome, runPkg } from '../support/spawn.js';
import { projectWith, removeProjects } from './fixtures.js';

describe('transferProgress', () => {
  const reporterOn = (isTTY: boolean, json = false) => {
    const stderr = capture(isTTY);
    return { stderr, reporter: new Reporter({ stdout: capture(isTTY), stderr, json, verbose: false }) };
  };

  it('shows nothing for the first second, then bytes, rate and time left, redrawn in place, and clears on done', () => {
    const { stderr, reporter } = reporterOn(true);
    let clock = 0;
    const progress = transferProgress(reporter, true, 10_000_000, 'com.acme.big@1.0.0', () => clock);
    clock = 500;
    progress.advance(1_000_000);
    expect(stderr.text()).toBe('');
    clock = 2000;
    progress.advance(3_000_000);
    expect(stderr.text()).toBe(
      `\r\x1b[2Kcom.acme.big@1.0.0  ${'█'.repeat(8)}${'░'.repeat(12)}  4.0 MB / 10.0 MB  2.0 MB/s  3 s left`,
    );
    // At most one redraw per 100 ms.
    clock = 2050;
    progress.advance(1_000_000);
    expect(stderr.text().split('\r').length).toBe(2);
    clock = 2200;
    progress.advance(1_000_000);
    expect(stderr.text().split('\r').length).toBe(3);
    progress.done();
    expect(stderr.text().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('says nothing at all for a transfer done within a second', () => {
    const { stderr, reporter } = reporterOn(true);
    let clock = 0;
    const progress = transferProgress(reporter, true, 100, 'x', () => clock);
    clock = 900;
    progress.advance(100);
    progress.done();
    expect(stderr.text()).toBe('');
  });

  it('never draws when stderr is not a terminal, or with --json', () => {
    for (const [isTTY, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const { stderr, reporter } = reporterOn(isTTY, json);
      let clock = 0;
      const progress = transferProgress(reporter, isTTY, 1000, 'x', () => clock);
      clock = 5000;
      progress.advance(500);
      progress.done();
      expect(stderr.text()).toBe('');
    }
  });

  it('without a known size shows bytes and rate only', () => {
    expect(transferLine('x', 3_000_000, undefined, 2)).toBe('x  3.0 MB  1.5 MB/s');
    expect(transferLine('x', 0, 100, 0)).toContain('0.0 MB/s');
    expect(transferLine('x', 1_000_000, 91_000_000, 1)).toContain('1 min 30 s left');
  });
});

describe('pkg install/add download into the cache as a stream', () => {
  const NAME = 'com.acme.textures';
  let registry: TestRegistry;
  let tarball: Buffer;

  beforeAll(async () => {
    registry = await startRegistry();
    const token = await loginUser(registry.url, 'publisher');
    const published = publishBody(NAME, '1.0.0', {
      files: [{ path: 'Textures/atlas.bin', content: randomBytes(3 * 1024 * 1024) }],
    });
    tarball = published.tarball;
    expect((await request(`${registry.url}/${NAME}`, { method: 'PUT', token, body: published.body })).status).toBe(201);
  });
  afterAll(async () => {
    await registry?.close();
    await removeProjects();
  });

  /** The project's manifest: `com.acme.*` from the test's registry (a scoped registry, as Unity needs). */
  const manifestWith = (dependencies: Record<string, string>) => ({
    'Packages/manifest.json': {
      scopedRegistries: [{ name: 'acme', url: registry.url, scopes: ['com.acme'] }],
      dependencies,
    },
  });
  const manifest = () => manifestWith({ [NAME]: '1.0.0' });
  /** A clock that moves 300 ms each time it is read: every download "takes" seconds. */
  const slowClock = () => {
    let ms = Date.now();
    return () => new Date((ms += 300));
  };

  it('shows the progress line on a terminal when a download takes more than a second', async () => {
    const { deps } = await projectWith(registry, manifest(), { stderr: capture(true), now: slowClock() });
    const result = await run(deps, ['install']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`\\r\\x1b\\[2K${NAME.replace(/\./g, '\\.')}@1\\.0\\.0 .*MB / 3\\.\\d MB .*MB/s`));
    const dir = path.join(deps.env.PKG_CACHE_DIR!, 'tarballs', NAME);
    expect((await readFile(path.join(dir, '1.0.0.tgz'))).equals(tarball)).toBe(true);
    // The download went through a partial file, renamed once verified; its integrity is recorded beside it.
    expect((await readdir(dir)).sort()).toEqual(['1.0.0.tgz', '1.0.0.tgz.integrity']);
  });

  it('prints none of it with --json, on a terminal too', async () => {
    const { deps } = await projectWith(registry, manifest(), { stderr: capture(true), now: slowClock() });
    const result = await run(deps, ['add', `${NAME}@1.0.0`, '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ success: true });
  });

  it('a download whose bytes do not match leaves nothing in the cache, not even a partial file', async () => {
    const owner = await loginUser(registry.url, 'publisher');
    const published = publishBody('com.acme.damaged', '1.0.0', {
      files: [{ path: 'a.bin', content: randomBytes(2 * 1024 * 1024) }],
    });
    expect(
      (await request(`${registry.url}/com.acme.damaged`, { method: 'PUT', token: owner, body: published.body })).status,
    ).toBe(201);
    // Damaged behind the registry's back (same size, other bytes).
    const blob = path.join(registry.dataDir, 'tarballs', '_global', 'com.acme.damaged', 'com.acme.damaged-1.0.0.tgz');
    await writeFile(blob, randomBytes(published.tarball.length));
    const { deps } = await projectWith(registry, manifestWith({ 'com.acme.damaged': '1.0.0' }));
    const result = await run(deps, ['install']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: Integrity check failed for com\.acme\.damaged@1\.0\.0: expected sha512-/);
    const dir = path.join(deps.env.PKG_CACHE_DIR!, 'tarballs', 'com.acme.damaged');
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });

  it('the built binary shows none when its output is not a terminal', async () => {
    const { project } = await projectWith(registry, manifest());
    const home = await makeHome();
    const result = await runPkg(['install'], { home, env: { PKG_REGISTRY: registry.url }, cwd: project.dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain('\r');
    expect(result.stdout).toContain(`Fetched and Verified:\n  ${NAME}@1.0.0`);
  });
});
