import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRegistry } from '@pkg/testkit';
import { capture, run } from '../support/deps.js';
import { fixtureEntry, fixtureRegistry, projectWith, unityJson, removeProjects } from './fixtures.js';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await fixtureRegistry();
});
afterAll(async () => {
  await registry?.close();
  await removeProjects();
});

const served = async (name: string, version: string) =>
  Buffer.from(await (await fetch(`${registry.url}/${name}/-/${name}-${version}.tgz`)).arrayBuffer());

describe('pkg install (no names)', () => {
  let manifest: string;
  beforeAll(() => {
    manifest = unityJson({
      dependencies: { 'com.fixture.app': '1.1.0', 'com.unity.modules.ui': '1.0.0', 'com.unity.textmeshpro': '3.0.6' },
      scopedRegistries: [fixtureEntry(registry)],
    });
  });

  it('fetches and verifies every registry dependency and theirs into the cache, manifest untouched', async () => {
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stdout, stderr } = await run(deps, ['install', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      success: true,
      fetched: [
        { package: 'com.fixture.app', version: '1.1.0', cached: false },
        { package: 'com.fixture.lib', version: '1.2.0', cached: false },
        { package: 'com.fixture.core', version: '1.1.0', cached: false },
      ],
      skipped: [
        { package: 'com.unity.modules.ui', version: '1.0.0', status: 'built-in' },
        { package: 'com.unity.textmeshpro', version: '3.0.6', status: 'unity-registry' },
      ],
    });
    for (const [name, version] of [
      ['com.fixture.app', '1.1.0'],
      ['com.fixture.lib', '1.2.0'],
      ['com.fixture.core', '1.1.0'],
    ] as const) {
      const cached = await readFile(path.join(deps.env.PKG_CACHE_DIR!, 'tarballs', name, `${version}.tgz`));
      expect(Buffer.compare(cached, await served(name, version))).toBe(0);
    }
    expect(await project.read('Packages/manifest.json')).toBe(manifest);

    // A second run finds them verified in the cache; a damaged file is downloaded again.
    await writeFile(path.join(deps.env.PKG_CACHE_DIR!, 'tarballs', 'com.fixture.lib', '1.2.0.tgz'), 'garbage');
    const again = JSON.parse((await run(deps, ['install', '--json'])).stdout);
    expect(again.fetched.map((f: { cached: boolean }) => f.cached)).toEqual([true, false, true]);
    const repaired = await readFile(path.join(deps.env.PKG_CACHE_DIR!, 'tarballs', 'com.fixture.lib', '1.2.0.tgz'));
    expect(Buffer.compare(repaired, await served('com.fixture.lib', '1.2.0'))).toBe(0);
  });

  it('draws a progress bar on stderr only when it is a terminal and the output is not JSON', async () => {
    const piped = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const plain = await run(piped.deps, ['install']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe('');
    expect(plain.stdout).toContain('3 packages verified in the cache (3 downloaded, 0 already cached)');

    const terminal = await projectWith(registry, { 'Packages/manifest.json': manifest }, { stderr: capture(true) });
    const shown = await run(terminal.deps, ['install']);
    expect(shown.code).toBe(0);
    // Downloads run side by side: the bar ends on whichever package finished last.
    expect(shown.stderr).toMatch(/3\/3 com\.fixture\.[a-z]+@\d+\.\d+\.\d+/);
    expect(shown.stderr).toContain('\r');

    const json = await projectWith(registry, { 'Packages/manifest.json': manifest }, { stderr: capture(true) });
    const quiet = await run(json.deps, ['install', '--json']);
    expect(quiet.stderr).toBe('');
  });

  it('refuses a tarball whose bytes do not match the registry’s integrity', async () => {
    const { deps } = await projectWith(registry, { 'Packages/manifest.json': { dependencies: { 'com.fixture.y': '1.0.0' } } });
    // Corrupt the stored blob behind the registry's back.
    const blobs = await findFiles(registry.dataDir, (f) => f.includes('com.fixture.y') && f.includes('1.0.0'));
    expect(blobs.length).toBeGreaterThan(0);
    for (const blob of blobs) await writeFile(blob, 'tampered');
    const { code, stderr } = await run(deps, ['install']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: Integrity check failed for com\.fixture\.y@1\.0\.0: expected sha512-/);
    await expect(readFile(path.join(deps.env.PKG_CACHE_DIR!, 'tarballs', 'com.fixture.y', '1.0.0.tgz'))).rejects.toThrow();
  });

  it('refuses a manifest version the registry does not have', async () => {
    const { deps } = await projectWith(registry, { 'Packages/manifest.json': { dependencies: { 'com.fixture.core': '1.2.3' } } });
    const { code, stderr } = await run(deps, ['install']);
    expect(code).toBe(1);
    expect(stderr.split('\n')[0]).toBe("Error: Version '1.2.3' of com.fixture.core not found");
  });
});

async function findFiles(dir: string, match: (file: string) => boolean): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter(match);
}

describe('pkg list', () => {
  const files = {
    'Packages/manifest.json': {
      dependencies: {
        'com.fixture.a': '1.0.0',
        'com.fixture.core': '1.4.0',
        'com.fixture.engine': '1.0.0',
        'com.unity.modules.ui': '1.0.0',
        'com.unity.textmeshpro': '3.0.6',
      },
    },
    'Packages/packages-lock.json': {
      dependencies: {
        'com.fixture.a': { version: '1.1.0', depth: 0, source: 'registry' },
        'com.fixture.core': { version: '1.4.0', depth: 0, source: 'registry' },
      },
    },
  };

  it('shows requested, resolved (from packages-lock.json) and latest compatible versions', async () => {
    const { project, deps } = await projectWith(registry, files);
    const { code, stdout } = await run(deps, ['list']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'Packages',
        '─'.repeat(40),
        'Engine: Unity 2022.3.10f1',
        `Project: ${project.dir}`,
        `Registry: ${registry.url}`,
        '',
        'Package                Requested  Resolved  Latest compatible          Unity signature',
        'com.fixture.a          1.0.0      1.1.0     2.1.0                      unsigned',
        'com.fixture.core       1.4.0      1.4.0     1.4.0                      unsigned',
        'com.fixture.engine     1.0.0      -         - (no compatible version)  unsigned',
        'com.unity.modules.ui   1.0.0      -         - (built-in)               -',
        "com.unity.textmeshpro  3.0.6      -         - (Unity's registry)       -",
        '',
      ].join('\n'),
    );
  });

  it('--outdated --json shows only packages with a newer compatible version', async () => {
    const { project, deps } = await projectWith(registry, files);
    const { code, stdout } = await run(deps, ['list', '--outdated', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      success: true,
      engine: 'unity',
      project: project.dir,
      registry: registry.url,
      registries: [registry.url],
      packages: [
        {
          package: 'com.fixture.a',
          requested: '1.0.0',
          resolved: '1.1.0',
          latest_compatible: '2.1.0',
          status: 'registry',
          outdated: true,
          registry: registry.url,
          unity_signature: null,
        },
      ],
    });
  });
});
