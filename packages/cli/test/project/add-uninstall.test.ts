import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRegistry } from '@pkg/testkit';
import { run } from '../support/deps.js';
import { backups, fixtureRegistry, projectWith, unityJson, removeProjects } from './fixtures.js';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await fixtureRegistry();
});
afterAll(async () => {
  await registry?.close();
  await removeProjects();
});

const other = { name: 'other', url: 'https://other.example.com', scopes: ['com.other'] };

describe('pkg add', () => {
  it('adds the newest version the editor supports, not the latest tag', async () => {
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': unityJson({ dependencies: {} }) });
    const { code, stdout } = await run(deps, ['add', 'com.fixture.b', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      success: true,
      added: [{ package: 'com.fixture.b', version: '1.0.0' }],
      // Named as the registry calls itself (GET /-/pkg/registry): its host and port here.
      scoped_registry: { name: new URL(registry.url).host, url: registry.url, scopes: ['com.fixture.b'] },
      message: '1 package added',
    });
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({ 'com.fixture.b': '1.0.0' });
  });

  it('lists the package and every transitive registry dependency in our entry, sorted, other entries untouched', async () => {
    const { project, deps } = await projectWith(registry, {
      'Packages/manifest.json': unityJson({ dependencies: { 'com.unity.modules.ui': '1.0.0' }, scopedRegistries: [other] }),
    });
    const { code, stdout } = await run(deps, ['add', 'com.fixture.app']);
    expect(code).toBe(0);
    expect(stdout).toContain('Added:\n  com.fixture.app@1.1.0\n');
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual({
      dependencies: { 'com.fixture.app': '1.1.0', 'com.unity.modules.ui': '1.0.0' },
      scopedRegistries: [
        other,
        {
          name: new URL(registry.url).host,
          url: registry.url,
          scopes: ['com.fixture.app', 'com.fixture.core', 'com.fixture.lib'],
        },
      ],
    });
    expect(await backups(deps)).toHaveLength(1);
  });

  it('completes an existing entry of ours and raises what the new package needs', async () => {
    const { project, deps } = await projectWith(registry, {
      'Packages/manifest.json': {
        dependencies: { 'com.fixture.lib': '1.0.0' },
        scopedRegistries: [{ name: 'mine', url: `${registry.url}/`, scopes: ['com.fixture.lib'] }],
      },
    });
    const { code, stdout } = await run(deps, ['add', 'com.fixture.app@1.1.0', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).raised).toEqual([
      { package: 'com.fixture.lib', old_version: '1.0.0', new_version: '1.2.0', required_by: 'com.fixture.app@1.1.0' },
    ]);
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual({
      dependencies: { 'com.fixture.app': '1.1.0', 'com.fixture.lib': '1.2.0' },
      scopedRegistries: [
        { name: 'mine', url: `${registry.url}/`, scopes: ['com.fixture.app', 'com.fixture.core', 'com.fixture.lib'] },
      ],
    });
  });

  it('takes a dist-tag and a version', async () => {
    const { project, deps } = await projectWith(registry, {});
    expect((await run(deps, ['add', 'com.fixture.a@latest', 'com.fixture.core@1.0.0'])).code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({
      'com.fixture.a': '2.1.0',
      'com.fixture.core': '1.0.0',
    });
  });

  it('refuses a version the editor cannot use, listing the ones it can', async () => {
    const manifest = unityJson({ dependencies: {} });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stderr } = await run(deps, ['add', 'com.fixture.a@1.3.0']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'Error: com.fixture.a@1.3.0 requires 2023.1 or newer; this project uses Unity 2022.3.10f1\n' +
        'Hint: Versions that work with Unity 2022.3.10f1: 2.1.0, 2.0.0, 1.2.0, 1.1.0, 1.0.0\n',
    );
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
  });

  it('says when no version works with the editor', async () => {
    const { deps } = await projectWith(registry, {});
    const { code, stderr } = await run(deps, ['add', 'com.fixture.engine']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'Error: No version of com.fixture.engine is compatible with Unity 2022.3.10f1\n' +
        'Hint: Published versions: 1.0.0 (needs 6000.0.23f1)\n',
    );
  });

  it.each([
    [['add', 'com.fixture.nope'], 1, "Error: Package 'com.fixture.nope' not found in the registry"],
    [['add', 'com.fixture.a@9.9.9'], 1, "Error: Version '9.9.9' of com.fixture.a not found"],
    [['add', 'Com.Fixture.A'], 2, "Error: Invalid package name 'Com.Fixture.A': the package name must be lowercase"],
    [['add'], 2, "Error: Missing required argument 'package'"],
  ])('%j fails with exit %i', async (argv, exit, first) => {
    const { deps } = await projectWith(registry, {});
    const { code, stderr } = await run(deps, argv);
    expect(code).toBe(exit);
    expect(stderr.split('\n')[0]).toBe(first);
  });

  it('is what `install <name>` does', async () => {
    const { project, deps } = await projectWith(registry, {});
    expect((await run(deps, ['install', 'com.fixture.core'])).code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({ 'com.fixture.core': '1.4.0' });
  });
});

describe('pkg uninstall', () => {
  it('removes the package and the scopes nothing else needs', async () => {
    const manifest = {
      dependencies: { 'com.fixture.app': '1.1.0', 'com.fixture.core': '1.1.0', 'com.unity.modules.ui': '1.0.0' },
      scopedRegistries: [
        {
          name: '127.0.0.1',
          url: registry.url,
          scopes: ['com.fixture.app', 'com.fixture.core', 'com.fixture.lib', 'com.fixture.zzz'],
        },
        other,
      ],
    };
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stdout } = await run(deps, ['uninstall', 'com.fixture.app', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      removed: [{ package: 'com.fixture.app', version: '1.1.0' }],
      message: '1 package removed',
    });
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual({
      dependencies: { 'com.fixture.core': '1.1.0', 'com.unity.modules.ui': '1.0.0' },
      scopedRegistries: [{ name: '127.0.0.1', url: registry.url, scopes: ['com.fixture.core', 'com.fixture.zzz'] }, other],
    });
  });

  it('drops our entry when the last package it served goes', async () => {
    const { project, deps } = await projectWith(registry, {
      'Packages/manifest.json': unityJson({
        dependencies: { 'com.fixture.core': '1.1.0' },
        scopedRegistries: [other, { name: 'r', url: registry.url, scopes: ['com.fixture.core'] }],
      }),
    });
    const { code, stdout } = await run(deps, ['uninstall', 'com.fixture.core']);
    expect(code).toBe(0);
    expect(stdout).toContain("Scoped registry 'r' removed: no package needs it any more");
    expect(await project.read('Packages/manifest.json')).toBe(unityJson({ dependencies: {}, scopedRegistries: [other] }));
  });

  it("fails with package '<name>' not found in project", async () => {
    const manifest = unityJson({ dependencies: { 'com.fixture.core': '1.1.0' } });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stderr } = await run(deps, ['uninstall', 'com.fixture.nope']);
    expect(code).toBe(1);
    expect(stderr).toBe("Error: package 'com.fixture.nope' not found in project\n");
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
  });
});
