import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, type TestRegistry } from '@pkg/testkit';
import { run, testDeps } from '../support/deps.js';
import { fixtureRegistry } from '../project/fixtures.js';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await fixtureRegistry();
});
afterAll(async () => registry?.close());

describe('global packages', () => {
  it('install, list, update and uninstall --global', async () => {
    // Global packages need no project: run from a folder that is not one.
    const deps = await testDeps({ env: { PKG_REGISTRY: registry.url } });
    const globalDir = path.join(deps.env.PKG_DATA_DIR!, 'global');
    const manifest = async () => JSON.parse(await readFile(path.join(globalDir, 'manifest.json'), 'utf8'));
    const from = (...names: string[]) => Object.fromEntries(names.map((n) => [n, registry.url]));
    const installedJson = async (name: string) =>
      JSON.parse(await readFile(path.join(globalDir, 'packages', name, 'package.json'), 'utf8'));

    const installed = await run(deps, ['install', '--global', 'com.fixture.a@1.0.0', 'com.fixture.core@1.0.0']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(await manifest()).toEqual({
      dependencies: { 'com.fixture.a': '1.0.0', 'com.fixture.core': '1.0.0' },
      registries: from('com.fixture.a', 'com.fixture.core'),
    });
    expect(await installedJson('com.fixture.a')).toMatchObject({ name: 'com.fixture.a', version: '1.0.0' });

    const listed = await run(deps, ['list', '--global', '--json']);
    expect(JSON.parse(listed.stdout).packages).toEqual([
      {
        package: 'com.fixture.a',
        requested: '1.0.0',
        resolved: '1.0.0',
        latest_compatible: '2.1.0',
        status: 'registry',
        outdated: true,
        registry: registry.url,
      },
      {
        package: 'com.fixture.core',
        requested: '1.0.0',
        resolved: '1.0.0',
        latest_compatible: '1.4.0',
        status: 'registry',
        outdated: true,
        registry: registry.url,
      },
    ]);

    const preview = await run(deps, ['update', '--global', 'com.fixture.a', '--dry-run', '--json']);
    expect(JSON.parse(preview.stdout)).toMatchObject({
      dry_run: true,
      engine: 'global',
      updated: [{ package: 'com.fixture.a', old_version: '1.0.0', new_version: '1.3.0' }],
    });
    expect(await manifest()).toEqual({
      dependencies: { 'com.fixture.a': '1.0.0', 'com.fixture.core': '1.0.0' },
      registries: from('com.fixture.a', 'com.fixture.core'),
    });

    // No project means no editor: the newest of the major is taken, whatever its unity field.
    const updated = await run(deps, ['update', '--global', 'com.fixture.a']);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain('Updated Packages:\n  com.fixture.a: 1.0.0 → 1.3.0\n');
    expect(await manifest()).toEqual({
      dependencies: { 'com.fixture.a': '1.3.0', 'com.fixture.core': '1.0.0' },
      registries: from('com.fixture.a', 'com.fixture.core'),
    });
    expect(await installedJson('com.fixture.a')).toMatchObject({ version: '1.3.0' });

    const removed = await run(deps, ['uninstall', '--global', 'com.fixture.a']);
    expect(removed.code).toBe(0);
    expect(await manifest()).toEqual({ dependencies: { 'com.fixture.core': '1.0.0' }, registries: from('com.fixture.core') });
    await expect(stat(path.join(globalDir, 'packages', 'com.fixture.a'))).rejects.toThrow();

    const missing = await run(deps, ['uninstall', '--global', 'com.fixture.a']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "Error: package 'com.fixture.a' is not installed globally\nHint: See the global packages with `pkg list --global`.\n",
    );
    const notThere = await run(deps, ['update', '--global', 'com.fixture.b']);
    expect(notThere.code).toBe(1);
    expect(notThere.stderr.split('\n')[0]).toBe("Error: package 'com.fixture.b' is not installed globally");
    const noName = await run(deps, ['install', '--global']);
    expect(noName.code).toBe(2);
  });

  it('remembers the registry each package came from: list and update --global ask it, not the one in effect', async () => {
    // The registry in effect is down; the package was installed with --registry.
    const deps = await testDeps({ env: { PKG_REGISTRY: 'http://127.0.0.1:9' } });
    const installed = await run(deps, ['install', '--global', 'com.fixture.core@1.0.0', '--registry', registry.url]);
    expect(installed.code).toBe(0);
    const listed = await run(deps, ['list', '--global', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).packages).toMatchObject([
      { package: 'com.fixture.core', latest_compatible: '1.4.0', registry: registry.url },
    ]);
    const updated = await run(deps, ['update', '--global', '--json']);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout).updated).toEqual([
      { package: 'com.fixture.core', old_version: '1.0.0', new_version: '1.4.0' },
    ]);
    // --registry narrows to that registry's packages: none come from the one on port 9.
    const narrowed = await run(deps, ['list', '--global', '--json', '--registry', 'http://127.0.0.1:9']);
    expect(JSON.parse(narrowed.stdout).packages).toEqual([]);
    // Naming a package that registry did not serve is refused, by update and uninstall alike.
    for (const command of ['update', 'uninstall']) {
      const refused = await run(deps, [command, '--global', 'com.fixture.core', '--registry', 'http://127.0.0.1:9', '--json']);
      expect(refused.code, command).toBe(1);
      expect(JSON.parse(refused.stdout)).toEqual({
        success: false,
        code: 'GLOBAL_NOT_INSTALLED',
        error: "package 'com.fixture.core' is not installed globally from http://127.0.0.1:9",
        hint: `It came from ${registry.url}; run without --registry to act on it.`,
      });
    }
    expect((await run(deps, ['uninstall', '--global', 'com.fixture.core'])).code).toBe(0);
  });

  it('installs each package alone: neither asks for nor checks the dependencies it never installs', async () => {
    // A tool whose dependency asks for a version nobody published: a project could not resolve
    // it, but a global package is extracted on its own.
    const token = await loginUser(registry.url, 'global-tool-publisher');
    await publishFixtures(registry.url, token, {
      'com.fixture.tool': [{ version: '1.0.0', manifest: { dependencies: { 'com.fixture.core': '9.0.0' } } }],
    });
    const deps = await testDeps({ env: { PKG_REGISTRY: registry.url } });
    const installed = await run(deps, ['install', '--global', 'com.fixture.tool', '--json']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(JSON.parse(installed.stdout)).toMatchObject({ added: [{ package: 'com.fixture.tool', version: '1.0.0' }] });
    const globalDir = path.join(deps.env.PKG_DATA_DIR!, 'global');
    expect(await readdir(path.join(globalDir, 'packages'))).toEqual(['com.fixture.tool']);
    // And uninstall asks no registry at all.
    const offline = { ...deps, env: { ...deps.env, PKG_REGISTRY: 'http://127.0.0.1:9' } };
    expect((await run(offline, ['uninstall', '--global', 'com.fixture.tool'])).code).toBe(0);
    expect(JSON.parse(await readFile(path.join(globalDir, 'manifest.json'), 'utf8'))).toEqual({
      dependencies: {},
      registries: {},
    });
  });
});
